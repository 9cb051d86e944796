// The built-in cluster policies. Adding a policy: write policies/<name>.cpp with a factory
// function, declare it in policies/factories.h, and add one line here.
#include <string>

#include "cluster/policies/factories.h"
#include "cluster/policy.h"
#include "core/csv.h"
#include "core/error.h"

namespace dmlkit::cluster {

const std::vector<PolicyInfo>& policy_registry() {
  static const std::vector<PolicyInfo> registry = {
      // {"name", "one-line summary", make_name},
      {"fifo", "first come first served, gang, no preemption (fifo.backfill=1 lets later jobs that fit start)", make_fifo},
      {"srtf", "shortest remaining time first (oracle), gang, preemptive", make_srtf},
      {"drf", "Dominant Resource Fairness by progressive filling over GPU/CPU/memory, elastic (NSDI'11)", make_drf},
      {"tetris", "multi-resource packing: alignment + remaining-work term + fairness knob (SIGCOMM'14)", make_tetris},
      {"tiresias", "discretized 2D-LAS priority queues, gang, preemptive, starvation promotion (NSDI'19)", make_tiresias},
      {"optimus-oracle", "Pollux study's Optimus+Oracle: greedy marginal gain over GPUs with true step times (OSDI'21)", make_optimus_oracle},
  };
  return registry;
}

std::unique_ptr<Policy> make_policy(const std::string& name, const PolicyOptions& options) {
  std::string known;
  for (const auto& info : policy_registry()) {
    if (info.name == name) return info.make(options);
    known += (known.empty() ? "" : ", ") + info.name;
  }
  throw Error("unknown policy '" + name + "' (known: " + known + ")");
}

double PolicyOptions::param(const std::string& key, double fallback) const {
  auto it = params.find(key);
  if (it == params.end()) return fallback;
  double v = 0;
  if (!parse_double(it->second, v)) throw Error("--policy-param " + key + ": not a number: '" + it->second + "'");
  return v;
}

std::string PolicyOptions::param_str(const std::string& key, const std::string& fallback) const {
  auto it = params.find(key);
  return it == params.end() ? fallback : it->second;
}

}  // namespace dmlkit::cluster
