// Registry of the communication schedulers (see scheduler.h).
#include "comm/scheduler.h"

#include "comm/schedulers/factories.h"
#include "core/error.h"

namespace dmlkit::comm {

namespace {

KnobSpec partition_mb(const std::string& def, const std::string& help) {
  return knob_double("--partition-mb", 0, help).at_least(0.01).shown(def);
}
KnobSpec credit_mb(const std::string& def) {
  return knob_double("--credit-mb", 0, "bytes in flight (MB)").at_least(0, true).shown(def);
}

}  // namespace

// Adding a scheduler: write schedulers/<name>.cpp with its factory, declare the factory in
// schedulers/factories.h, and add one entry here (name, summary, factory, the flags it reads).
const SchedulerRegistry& scheduler_registry() {
  static const SchedulerRegistry registry(
      {"scheduler", "scheduler", "", ""},
      {
          {"fifo", "framework default: whole tensors in ready order, no partitioning", make_fifo},
          {"p3",
           "P3 (SysML'19): parameter slicing + layer priority",
           make_p3,
           {partition_mb("0.2", "slice size (MB)"), credit_mb("one slice per server (ps), one slice (allreduce)")}},
          {"tictac", "TicTac (SysML'19): whole tensors in DAG-depth order, enforced", make_tictac},
          {"bytescheduler",
           "ByteScheduler (SOSP'19): partitions, credit window, priority",
           make_bytescheduler,
           {partition_mb("4 (ps), 32 (allreduce)", "partition size (MB)"), credit_mb("16 (ps), 64 (allreduce)"),
            knob_enum("--credit-mode", "any", {"any", "skip"},
                      "any: send while credit > 0; skip: BytePS, skip tasks larger than the credit")}},
          {"horovod",
           "Horovod tensor fusion: threshold + cycle time",
           make_horovod,
           {knob_double("--fusion-mb", 64, "fusion threshold (MiB)").at_least(0),
            knob_double("--cycle-ms", 5, "cycle time (ms)").at_least(0, true)},
           {.ps = false}},
          {"ddp",
           "PyTorch DDP buckets: 25 MiB, first bucket 1 MiB",
           make_ddp,
           {knob_double("--bucket-mib", 25, "bucket cap (MiB)").at_least(0, true),
            knob_double("--first-bucket-mib", 1, "first bucket cap (MiB)").at_least(0, true)},
           {.ps = false}},
          {"pace",
           "PACE (INFOCOM'20, reconstructed): preemptive DAG priority + DP fusion",
           make_pace,
           {partition_mb("chosen by the oracle (1..64 MiB)", "preemption unit (MB)"), credit_mb("one partition")},
           {.ps = false}},
      });
  return registry;
}

std::vector<std::string> scheduler_names() { return scheduler_registry().names(); }

std::unique_ptr<CommScheduler> make_scheduler(const std::string& name, const SchedulerOptions& o, Arch arch) {
  const SchedulerEntry& entry = scheduler_registry().get(name);  // Error(field "scheduler") if unknown
  if ((arch == Arch::ps && !entry.traits.ps) || (arch == Arch::allreduce && !entry.traits.allreduce))
    throw Error("", 0, "scheduler", "scheduler '" + name + "' does not support --arch " + to_string(arch));
  // Partitions below 10 kB would only multiply simulated transfers (and real per-message costs).
  if (o.partition_bytes && !(*o.partition_bytes >= 1e4))
    throw Error("", 0, "partition", "must be at least 10 kB (0.01 MB)");
  // The factory comes from the entry: a registered name cannot run another scheduler's code.
  return entry.make(o, arch);
}

void validate_scheduler(const std::string& name, const SchedulerOptions& options, Arch arch) {
  (void)make_scheduler(name, options, arch);
}

}  // namespace dmlkit::comm
