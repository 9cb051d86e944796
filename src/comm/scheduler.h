// The communication-scheduler interface. The iteration simulator tells a scheduler when a
// gradient tensor becomes ready (backward pass) and when a transfer it started has finished; the
// scheduler decides partitioning, order, what is in flight (credit/window), fusion, and preemption
// at partition boundaries (a started transfer is never interrupted; a higher-priority ready
// partition overtakes queued ones). A Transfer is one synchronisation operation: a PS push+pull
// or one ring all-reduce, of `bytes` made of pieces (`chunks`) of one or more tensors.
//
// Registry: scheduler_registry() (scheduler.cpp) lists the entries; each scheduler lives in
// src/comm/schedulers/<name>.cpp with the paper it implements, every assumption, and its entry
// (name, summary, factory, knobs, architectures, tuning space).
#pragma once
#include <functional>
#include <limits>
#include <string_view>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "comm/network.h"
#include "comm/tuner.h"
#include "comm/workload.h"
#include "core/knobs.h"
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

// What a factory builds a scheduler for: the architecture, and the workload and network its
// run-dependent defaults are resolved on (p3's credit of one slice per server, PACE's partition).
struct SchedulerContext {
  Arch arch = Arch::ps;
  const TrainingWorkload* workload = nullptr;  // never null when a factory is called
  const NetworkConfig* net = nullptr;          // never null when a factory is called
};

// A factory reads its knobs (declared in its entry) through `knobs`; a run-dependent default is
// read as knobs.get_double(name, fallback), so results.json's effective_knobs records the value
// used (core/knob_use.h). Bad values raise Error naming the knob.
using SchedulerFactory = std::unique_ptr<CommScheduler> (*)(const Knobs& knobs, const SchedulerContext& ctx);

// A size knob in bytes: the given value x `unit` (bytes per unit of the knob, e.g. 1e6 for
// "-mb"), else `fallback_bytes()` used as is and recorded in the knob's unit as the value used.
double size_knob_bytes(const Knobs& knobs, std::string_view name, double unit,
                       const std::function<double()>& fallback_bytes);

// What `comm tune` searches for a scheduler, declared in its entry next to its knobs: the box
// (tuner.h) and how a point of it becomes knob values.
struct TuneSpace {
  std::vector<TuneDimension> dims;  // empty: the scheduler is not tunable
  // `knobs` (the scheduler's resolved values, "<scheduler>.<knob>" keys) with point x applied.
  KnobValues (*apply)(KnobValues knobs, const std::vector<double>& x) = nullptr;
};

struct SchedulerTraits {
  bool ps = true;         // supports the PS architecture
  bool allreduce = true;  // supports ring all-reduce
  TuneSpace tune;
};

// An entry's knobs are named "<scheduler>.<knob>" ("bytescheduler.partition-mb"). A run gives
// knob values as KnobValues whose keys are either such names or a bare "<knob>" ("partition-mb",
// what the shared CLI options --partition-mb, --credit-mb, ... set): a bare key applies to every
// chosen scheduler declaring "<scheduler>.<knob>"; a qualified key wins over a bare one.
using SchedulerEntry = RegistryEntry<SchedulerFactory, SchedulerTraits>;
using SchedulerRegistry = Registry<SchedulerEntry>;

// The schedulers in the order `dmlkit comm schedulers` lists them.
const SchedulerRegistry& scheduler_registry();
std::vector<std::string> scheduler_names();
bool supports(const SchedulerEntry& entry, Arch arch);

// The knob values of scheduler `name` among `params` (qualified keys of this scheduler, then bare
// keys it declares), as "<name>.<knob>" keys.
KnobValues scheduler_knobs(const std::string& name, const KnobValues& params);
// Rejects a key that no scheduler of `selected` declares (a bare key: as the suffix of one of its
// knobs) and a value its knob does not accept. A bare key's message names it as the option
// "--<knob>" (the CLI's shared option of that name); a qualified key's names `flag`.
void check_scheduler_params(const std::vector<std::string>& selected, const KnobValues& params,
                            const std::string& flag = "--scheduler-param");

// Error(field "scheduler") on an unknown name or one that does not support the architecture;
// Error naming the knob on a bad value. Knobs: scheduler_knobs(name, params).
std::unique_ptr<CommScheduler> make_scheduler(const std::string& name, const KnobValues& params,
                                              const TrainingWorkload& workload, const NetworkConfig& net);
// Checks name/arch/knobs without running (used before forking a simulation).
void validate_scheduler(const std::string& name, const KnobValues& params, const TrainingWorkload& workload,
                        const NetworkConfig& net);
// Every knob of scheduler `name` as the run uses it (the given value, else its default resolved
// for this workload and network), "<name>.<knob>" keys: results.json's inputs.effective_knobs.
KnobValues effective_scheduler_knobs(const std::string& name, const KnobValues& params,
                                     const TrainingWorkload& workload, const NetworkConfig& net);

}  // namespace dmlkit::comm
