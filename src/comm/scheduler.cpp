// Registry of the communication schedulers (see scheduler.h).
#include "comm/scheduler.h"

#include "comm/schedulers/factories.h"
#include "core/error.h"

namespace dmlkit::comm {

const std::vector<SchedulerInfo>& scheduler_infos() {
  static const std::vector<SchedulerInfo> infos = {
      {"fifo", "framework default: whole tensors in ready order, no partitioning", true, true},
      {"p3", "P3 (SysML'19): parameter slicing + layer priority", true, true},
      {"tictac", "TicTac (SysML'19): whole tensors in DAG-depth order, enforced", true, true},
      {"bytescheduler", "ByteScheduler (SOSP'19): partitions, credit window, priority", true, true},
      {"horovod", "Horovod tensor fusion: threshold + cycle time", false, true},
      {"ddp", "PyTorch DDP buckets: 25 MiB, first bucket 1 MiB", false, true},
      {"pace", "PACE (INFOCOM'20, reconstructed): preemptive DAG priority + DP fusion", false, true},
  };
  return infos;
}

std::vector<std::string> scheduler_names() {
  std::vector<std::string> names;
  for (const auto& i : scheduler_infos()) names.push_back(i.name);
  return names;
}

std::unique_ptr<CommScheduler> make_scheduler(const std::string& name, const SchedulerOptions& o, Arch arch) {
  const SchedulerInfo* info = nullptr;
  for (const auto& i : scheduler_infos())
    if (i.name == name) info = &i;
  if (!info) {
    std::string known;
    for (const auto& n : scheduler_names()) known += (known.empty() ? "" : ", ") + n;
    throw Error("", 0, "scheduler", "unknown scheduler '" + name + "' (known: " + known + ")");
  }
  if ((arch == Arch::ps && !info->ps) || (arch == Arch::allreduce && !info->allreduce))
    throw Error("", 0, "scheduler", "scheduler '" + name + "' does not support --arch " + to_string(arch));
  // Partitions below 10 kB would only multiply simulated transfers (and real per-message costs).
  if (o.partition_bytes && !(*o.partition_bytes >= 1e4))
    throw Error("", 0, "partition", "must be at least 10 kB (0.01 MB)");
  if (name == "fifo") return make_fifo(o, arch);
  if (name == "p3") return make_p3(o, arch);
  if (name == "tictac") return make_tictac(o, arch);
  if (name == "bytescheduler") return make_bytescheduler(o, arch);
  if (name == "horovod") return make_horovod(o, arch);
  if (name == "ddp") return make_ddp(o, arch);
  return make_pace(o, arch);
}

void validate_scheduler(const std::string& name, const SchedulerOptions& options, Arch arch) {
  (void)make_scheduler(name, options, arch);
}

}  // namespace dmlkit::comm
