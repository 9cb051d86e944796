// The communication-scheduler interface. The iteration simulator tells a scheduler when a
// gradient tensor becomes ready (backward pass) and when a transfer it started has finished; the
// scheduler decides partitioning, order, what is in flight (credit/window), fusion, and preemption
// at partition boundaries (a started transfer is never interrupted; a higher-priority ready
// partition overtakes queued ones). A Transfer is one synchronisation operation: a PS push+pull
// or one ring all-reduce, of `bytes` made of pieces (`chunks`) of one or more tensors.
//
// Registry: scheduler_registry() (scheduler.cpp) holds fifo, p3, tictac, bytescheduler, horovod,
// ddp, pace with their factories, architectures and knobs; each lives in
// src/comm/schedulers/<name>.cpp with the paper it implements and every assumption.
#pragma once
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "comm/network.h"
#include "comm/workload.h"
#include "core/registry.h"

namespace dmlkit::comm {

struct Chunk {
  int tensor = 0;
  double bytes = 0;
};

struct Transfer {
  long id = -1;         // set by the scheduler, unique within a run
  long key = 0;         // PS key of the tensor (or fused group) ...
  long part = 0;        // ... and partition index: the server is ((key + part) * 9973) % M, MXNet's
                        // rule with partitions registered as consecutive keys (as ByteScheduler's
                        // MXNet plugin declares them)
  double priority = 0;  // smaller = more urgent (for the record; order is the scheduler's)
  double bytes = 0;
  std::vector<Chunk> chunks;
};

enum class CreditMode {
  any,   // ByteScheduler: dispatch the head while any credit remains (credit may go negative)
  skip,  // BytePS: skip queued tasks larger than the remaining credit, take smaller ones
};

// Knobs; an unset optional takes the scheduler's documented default (which may depend on arch).
struct SchedulerOptions {
  std::optional<double> partition_bytes;  // bytescheduler, p3 (slice), pace (preemption unit)
  std::optional<double> credit_bytes;     // bytescheduler, p3, pace
  CreditMode credit_mode = CreditMode::any;
  std::optional<double> fusion_bytes;         // horovod fusion threshold
  std::optional<double> cycle_s;              // horovod cycle time
  double bucket_bytes = 25.0 * 1024 * 1024;   // ddp bucket_cap_mb = 25 (MiB)
  double first_bucket_bytes = 1024.0 * 1024;  // ddp first bucket, 1 MiB
};

class CommScheduler {
 public:
  virtual ~CommScheduler() = default;
  // Called once before the run.
  virtual void setup(const TrainingWorkload& workload, const NetworkConfig& net) = 0;
  // Tensor `tensor`'s gradient is ready at now_s.
  virtual void on_ready(int tensor, double now_s) = 0;
  // A transfer returned by poll() has finished.
  virtual void on_done(const Transfer& transfer, double now_s) = 0;
  // Appends the transfers to start at now_s.
  virtual void poll(double now_s, std::vector<Transfer>& out) = 0;
  // The next time poll() must be called even if nothing happens (a cycle timer); +inf if none.
  virtual double next_wakeup_s() const { return std::numeric_limits<double>::infinity(); }
};

using SchedulerFactory = std::unique_ptr<CommScheduler> (*)(const SchedulerOptions& options, Arch arch);

struct SchedulerTraits {
  bool ps = true;         // supports the PS architecture
  bool allreduce = true;  // supports ring all-reduce
};

// An entry's knobs are the command-line options of `comm simulate/compare` it reads (named as the
// flags, e.g. "--partition-mb"), with its defaults; SchedulerOptions carries their values.
using SchedulerEntry = RegistryEntry<SchedulerFactory, SchedulerTraits>;
using SchedulerRegistry = Registry<SchedulerEntry>;

// The schedulers in the order `dmlkit comm schedulers` lists them.
const SchedulerRegistry& scheduler_registry();
std::vector<std::string> scheduler_names();
// Error(field "scheduler") on an unknown name or one that does not support `arch`; Error on
// invalid options (field named).
std::unique_ptr<CommScheduler> make_scheduler(const std::string& name, const SchedulerOptions& options, Arch arch);
// Checks name/arch/options without building (used before forking a simulation).
void validate_scheduler(const std::string& name, const SchedulerOptions& options, Arch arch);

}  // namespace dmlkit::comm
