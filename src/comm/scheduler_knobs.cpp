// resolved_scheduler_knobs (see scheduler_knobs.h). The defaults here are the ones the factories in
// schedulers/ apply (the same functions where a default is computed).
#include "comm/scheduler_knobs.h"

#include <fmt/format.h>

#include "comm/schedulers/factories.h"

namespace dmlkit::comm {

namespace {

std::string number(double v) { return fmt::format("{}", v); }

}  // namespace

KnobValues resolved_scheduler_knobs(const std::vector<std::string>& schedulers, const SchedulerOptions& o, Arch arch,
                                    const TrainingWorkload& w, const NetworkConfig& net) {
  constexpr double kMB = 1e6, kMiB = 1024.0 * 1024;
  KnobValues out;
  for (const auto& name : schedulers) {
    const std::string k = name + ".";
    const std::string mode = o.credit_mode == CreditMode::skip ? "skip" : "any";
    if (name == "p3") {
      const double slice = o.partition_bytes.value_or(kP3DefaultSliceBytes);
      out[k + "partition-mb"] = number(slice / kMB);
      out[k + "credit-mb"] = number(o.credit_bytes.value_or(arch == Arch::ps ? slice * net.servers : slice) / kMB);
    } else if (name == "bytescheduler") {
      out[k + "partition-mb"] = number(o.partition_bytes.value_or(bytescheduler_default_partition_bytes(arch)) / kMB);
      out[k + "credit-mb"] = number(o.credit_bytes.value_or(bytescheduler_default_credit_bytes(arch)) / kMB);
      out[k + "credit-mode"] = mode;
    } else if (name == "horovod") {
      out[k + "fusion-mb"] = number(o.fusion_bytes.value_or(kHorovodDefaultFusionBytes) / kMiB);
      out[k + "cycle-ms"] = number(o.cycle_s.value_or(kHorovodDefaultCycleS) * 1e3);
    } else if (name == "ddp") {
      out[k + "bucket-mib"] = number(o.bucket_bytes / kMiB);
      out[k + "first-bucket-mib"] = number(o.first_bucket_bytes / kMiB);
    } else if (name == "pace") {
      out[k + "partition-mb"] = number(o.partition_bytes.value_or(pace_default_partition_bytes(w, net)) / kMB);
      // Without --credit-mb PACE keeps one partition in flight (no byte credit).
      out[k + "credit-mb"] = o.credit_bytes ? number(*o.credit_bytes / kMB) : "none (one partition in flight)";
    }
  }
  return out;
}

}  // namespace dmlkit::comm
