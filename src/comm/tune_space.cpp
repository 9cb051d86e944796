// Tuning spaces of `comm tune` (see tune_space.h).
#include "comm/tune_space.h"

#include "core/error.h"

namespace dmlkit::comm {

std::vector<TuneDimension> tune_dimensions(const std::string& scheduler) {
  if (scheduler == "bytescheduler") return {{"partition_mb", 1, 128, true}, {"credit_mb", 4, 256, true}};
  if (scheduler == "horovod") return {{"fusion_mib", 1, 256, true}, {"cycle_ms", 0.5, 20, true}};
  throw Error("", 0, "scheduler", "tune supports bytescheduler and horovod, not '" + scheduler + "'");
}

SchedulerOptions apply_tune_point(const std::string& scheduler, SchedulerOptions o, const std::vector<double>& x) {
  if (scheduler == "bytescheduler") {
    o.partition_bytes = x[0] * 1e6;
    o.credit_bytes = x[1] * 1e6;
    if (o.credit_mode == CreditMode::skip && *o.credit_bytes < *o.partition_bytes)
      o.credit_bytes = o.partition_bytes;  // skip needs credit >= partition
  } else {
    o.fusion_bytes = x[0] * 1024 * 1024;
    o.cycle_s = x[1] * 1e-3;
  }
  return o;
}

}  // namespace dmlkit::comm
