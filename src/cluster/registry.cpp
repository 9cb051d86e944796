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
      {"fifo", "first come first served, gang, no preemption (fifo.backfill=1 lets later jobs that fit start)",
       make_fifo},
      {"srtf", "shortest remaining time first (oracle), gang, preemptive", make_srtf},
      {"drf", "Dominant Resource Fairness by progressive filling over GPU/CPU/memory, elastic (NSDI'11)", make_drf},
      {"tetris", "multi-resource packing: alignment + remaining-work term + fairness knob (SIGCOMM'14)", make_tetris},
      {"tiresias", "discretized 2D-LAS priority queues, gang, preemptive, starvation promotion (NSDI'19)",
       make_tiresias},
      {"optimus",
       "Optimus (EuroSys'18) for parameter-server jobs: online convergence and speed models, greedy marginal gain, "
       "placement, PAA, stragglers",
       make_optimus},
      {"drf-dl2", "DL2 simulator's DRF on PS jobs: bundles by lowest dominant share, rebuilt each slot (TPDS'21)",
       make_drf_dl2},
      {"fifo-dl2", "DL2 simulator's FIFO on PS jobs: up to 16 bundles per job in arrival order, rebuilt each slot",
       make_fifo_dl2},
      {"srtf-dl2", "DL2 simulator's SRTF on PS jobs: FIFO order by remaining fraction of epochs", make_srtf_dl2},
      {"tetris-dl2", "DL2 simulator's Tetris on PS jobs: per-server alignment + remaining-work score, bundles",
       make_tetris_dl2},
      {"optimus-dl2", "DL2 simulator's oracle Optimus on PS jobs: marginal gain with the true speed, single tasks",
       make_optimus_dl2},
      {"optimus-oracle", "Pollux study's Optimus+Oracle: greedy marginal gain over GPUs with true step times (OSDI'21)",
       make_optimus_oracle},
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
  const std::string* v = find_param(key);
  if (v == nullptr) return fallback;
  double out = 0;
  if (!parse_double(*v, out)) throw Error("--policy-param " + key + ": not a number: '" + *v + "'");
  return out;
}

std::string PolicyOptions::param_str(const std::string& key, const std::string& fallback) const {
  const std::string* v = find_param(key);
  return v == nullptr ? fallback : *v;
}

PolicyOptions::ReadKeys& PolicyOptions::ReadKeys::operator=(const ReadKeys& o) {
  if (this != &o) {
    std::set<std::string> k = o.snapshot();
    const std::lock_guard<std::mutex> lock(mutex);
    keys = std::move(k);
  }
  return *this;
}

std::set<std::string> PolicyOptions::ReadKeys::snapshot() const {
  const std::lock_guard<std::mutex> lock(mutex);
  return keys;
}

const std::string* PolicyOptions::find_param(const std::string& key) const {
  {
    const std::lock_guard<std::mutex> lock(read_.mutex);
    read_.keys.insert(key);
  }
  auto it = params.find(key);
  return it == params.end() ? nullptr : &it->second;
}

void add_policy_params(std::map<std::string, std::string>& params, const std::vector<std::string>& key_values) {
  for (const auto& kv : key_values) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) throw Error("--policy-param: expected key=value, got '" + kv + "'");
    params[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
}

std::vector<std::string> PolicyOptions::unread_params() const {
  const std::set<std::string> read = read_.snapshot();
  std::vector<std::string> out;
  for (const auto& [key, value] : params)
    if (!read.count(key)) out.push_back(key);
  return out;
}

}  // namespace dmlkit::cluster
