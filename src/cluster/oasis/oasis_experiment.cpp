// OASiS experiment presets: parsing and running (see oasis_experiment.h).
#include "cluster/oasis/oasis_experiment.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <set>

#include "core/error.h"
#include "core/parallel_for.h"
#include "core/table.h"
#include "core/yaml.h"

namespace dmlkit::cluster::oasis {

namespace {

using yaml::line_of;

constexpr long kMaxSlotServers = 2000000;  // 64 MB per ledger

std::string scalar(const std::string& path, const YAML::Node& n, const std::string& field) {
  if (!n.IsScalar()) throw Error(path, line_of(n), field, "expected a value, got a list or mapping");
  return n.Scalar();
}

Range range(const std::string& path, const YAML::Node& n, const std::string& field, double min, double max) {
  if (!n.IsSequence() || n.size() != 2) throw Error(path, line_of(n), field, "expected [lo, hi]");
  Range r;
  r.lo = yaml::number(path, n[0], field);
  r.hi = yaml::number(path, n[1], field);
  if (r.lo < min) {
    if (min == 0) throw Error(path, line_of(n), field, "must not be negative (got " + n[0].Scalar() + ")");
    throw Error(path, line_of(n), field, "out of range: " + n[0].Scalar() + " (allowed >= " + fixed(min, 6) + ")");
  }
  if (r.hi > max) throw Error(path, line_of(n), field, "out of range: " + n[1].Scalar());
  if (r.lo > r.hi) throw Error(path, line_of(n), field, "expected [lo, hi] with lo <= hi");
  return r;
}

void demands(const std::string& path, const YAML::Node& n, const std::string& field, ResourceVec& lo, ResourceVec& hi) {
  if (!n.IsMap()) throw Error(path, line_of(n), field, "expected a mapping of gpu, cpu, mem_gb, net_gbps to [lo, hi]");
  yaml::check_keys(path, n, {"gpu", "cpu", "mem_gb", "net_gbps"});
  for (int r = 0; r < kNumResources; ++r) {
    const std::string name = resource_name(r);
    if (!n[name]) continue;
    const YAML::Node v = n[name];
    if (!v.IsSequence() || v.size() != 2) throw Error(path, line_of(v), field + "." + name, "expected [lo, hi]");
    for (int k = 0; k < 2; ++k) {
      const double x = yaml::number(path, v[k], field + "." + name);
      if (x < 0) throw Error(path, line_of(v), field + "." + name, "a demand must not be negative (got " + v[k].Scalar() + ")");
    }
    const Range rr = range(path, v, field + "." + name, 0, 1e9);
    lo[r] = rr.lo;
    hi[r] = rr.hi;
  }
}

ResourceVec capacity(const std::string& path, const YAML::Node& n, const std::string& field, ResourceVec c) {
  if (!n.IsMap()) throw Error(path, line_of(n), field, "expected a mapping of gpus, cpus, mem_gb, net_gbps");
  yaml::check_keys(path, n, {"gpus", "cpus", "mem_gb", "net_gbps"});
  const char* keys[kNumResources] = {"gpus", "cpus", "mem_gb", "net_gbps"};
  for (int r = 0; r < kNumResources; ++r)
    if (n[keys[r]]) c[r] = yaml::number(path, n[keys[r]], field + "." + keys[r], 0, 1e9);
  return c;
}

OasisWorkloadSpec parse_workload(const std::string& path, const YAML::Node& w, int horizon) {
  if (!w.IsMap()) throw Error(path, line_of(w), "workload", "expected a mapping");
  yaml::check_keys(path, w,
                   {"slot_s", "load", "arrivals", "google_pattern_max", "arrival_slots", "epochs", "chunks",
                    "minibatches", "per_worker_slots", "model_size_mb", "workers_per_ps", "worker_demand",
                    "ps_demand", "utility", "priority", "decay", "target_slots", "target_from",
                    "user_worker_fraction"});
  OasisWorkloadSpec s;
  if (w["slot_s"]) s.slot_s = yaml::number(path, w["slot_s"], "slot_s", 1e-3, 1e9);
  if (w["load"]) s.load = yaml::number(path, w["load"], "load", 1e-6, 20);
  if (w["arrivals"]) s.arrivals = scalar(path, w["arrivals"], "arrivals");
  if (s.arrivals != "google" && s.arrivals != "poisson")
    throw Error(path, line_of(w["arrivals"]), "arrivals", "expected google or poisson");
  if (w["google_pattern_max"])
    s.google_pattern_max = static_cast<int>(yaml::integer(path, w["google_pattern_max"], "google_pattern_max", 1, 1000));
  if (w["arrival_slots"])
    s.arrival_slots = static_cast<int>(yaml::integer(path, w["arrival_slots"], "arrival_slots", 1, horizon));
  else
    s.arrival_slots = std::min(s.arrival_slots, horizon);
  if (w["epochs"]) s.epochs = range(path, w["epochs"], "epochs", 1e-6, 1e9);
  if (w["chunks"]) s.chunks = range(path, w["chunks"], "chunks", 1, 1e5);
  if (w["minibatches"]) s.minibatches = range(path, w["minibatches"], "minibatches", 1e-6, 1e9);
  if (w["per_worker_slots"]) s.per_worker_slots = range(path, w["per_worker_slots"], "per_worker_slots", 1e-6, 1e6);
  if (w["model_size_mb"]) s.model_size_mb = range(path, w["model_size_mb"], "model_size_mb", 0, 1e9);
  if (w["workers_per_ps"]) s.workers_per_ps = range(path, w["workers_per_ps"], "workers_per_ps", 1, 1e5);
  if (w["worker_demand"]) demands(path, w["worker_demand"], "worker_demand", s.worker_lo, s.worker_hi);
  if (w["ps_demand"]) demands(path, w["ps_demand"], "ps_demand", s.ps_lo, s.ps_hi);
  if (w["utility"]) {
    const std::string u = scalar(path, w["utility"], "utility");
    if (u != "sigmoid" && u != "step" && u != "linear")
      throw Error(path, line_of(w["utility"]), "utility", "expected sigmoid, step or linear");
    s.utility = parse_utility_kind(u);
  }
  if (w["priority"]) s.priority = range(path, w["priority"], "priority", 0, 1e12);
  if (w["decay"]) {
    const YAML::Node d = w["decay"];
    if (!d.IsSequence() || d.size() != 2) throw Error(path, line_of(d), "decay", "expected [lo, hi]");
    s.decay = {yaml::number(path, d[0], "decay"), yaml::number(path, d[1], "decay")};
    if (s.decay.lo < 0 || s.decay.hi < 0)
      throw Error(path, line_of(d), "decay",
                  "a negative decay makes the utility increase with the completion time; OASiS needs a "
                  "non-increasing utility");
    if (s.decay.lo > s.decay.hi) throw Error(path, line_of(d), "decay", "expected [lo, hi] with lo <= hi");
  }
  if (w["target_slots"]) s.target_slots = range(path, w["target_slots"], "target_slots", 1e-6, 1e9);
  if (w["target_from"]) {
    s.target_from = scalar(path, w["target_from"], "target_from");
    if (s.target_from != "fastest" && s.target_from != "arrival")
      throw Error(path, line_of(w["target_from"]), "target_from", "expected fastest or arrival");
  }
  if (w["user_worker_fraction"])
    s.user_worker_fraction = yaml::number(path, w["user_worker_fraction"], "user_worker_fraction", 1e-6, 1);
  check_workload_spec(s, horizon, path, line_of(w));
  return s;
}

}  // namespace

OasisExperiment load_oasis_experiment(const std::string& path) {
  const YAML::Node root = yaml::load_file(path);
  if (!root.IsMap() || !root["experiment"])
    throw Error(path, 1, "experiment", "not an experiment file (no 'experiment' key)");
  yaml::check_keys(path, root,
                   {"experiment", "engine", "description", "seeds", "policies", "policy_params", "horizon_slots",
                    "cluster", "loads", "servers", "lp_bound", "lp_max_iterations", "workload"});
  OasisExperiment e;
  e.path = path;
  e.name = scalar(path, root["experiment"], "experiment");
  if (root["description"]) e.description = scalar(path, root["description"], "description");
  if (root["seeds"]) {
    const YAML::Node s = root["seeds"];
    if (!s.IsSequence() || s.size() == 0) throw Error(path, line_of(s), "seeds", "expected a non-empty list");
    e.seeds.clear();
    for (const auto& v : s) e.seeds.push_back(static_cast<uint64_t>(yaml::integer(path, v, "seeds", 0, 9000000000000000L)));
  }
  if (!root["policies"] || !root["policies"].IsSequence() || root["policies"].size() == 0)
    throw Error(path, root["policies"] ? line_of(root["policies"]) : 1, "policies", "expected a non-empty list");
  for (const auto& p : root["policies"]) {
    const std::string name = scalar(path, p, "policies");
    if (oasis_method_registry().find(name) == nullptr)
      throw Error(path, line_of(p), "policies",
                  "unknown method '" + name + "' (known: " + oasis_method_registry().known() + ")");
    e.methods.push_back(name);
  }
  if (root["policy_params"]) {
    const YAML::Node pp = root["policy_params"];
    if (!pp.IsMap()) throw Error(path, line_of(pp), "policy_params", "expected a mapping");
    for (const auto& kv : pp) e.params[scalar(path, kv.first, "policy_params")] = scalar(path, kv.second, kv.first.Scalar());
  }
  if (root["horizon_slots"]) e.horizon_slots = static_cast<int>(yaml::integer(path, root["horizon_slots"], "horizon_slots", 1, 100000));
  if (root["cluster"]) {
    const YAML::Node c = root["cluster"];
    if (!c.IsMap()) throw Error(path, line_of(c), "cluster", "expected a mapping");
    yaml::check_keys(path, c, {"worker_servers", "ps_servers", "worker_server", "ps_server", "shared_pool"});
    if (c["worker_servers"]) e.worker_servers = static_cast<int>(yaml::integer(path, c["worker_servers"], "worker_servers", 1, 100000));
    if (c["ps_servers"]) e.ps_servers = static_cast<int>(yaml::integer(path, c["ps_servers"], "ps_servers", 0, 100000));
    if (c["worker_server"]) e.worker_capacity = capacity(path, c["worker_server"], "worker_server", e.worker_capacity);
    if (c["ps_server"]) e.ps_capacity = capacity(path, c["ps_server"], "ps_server", e.ps_capacity);
    if (c["shared_pool"]) e.shared_pool = yaml::boolean(path, c["shared_pool"], "shared_pool");
    if (!e.shared_pool && e.ps_servers == 0) throw Error(path, line_of(c), "ps_servers", "separate pools need at least one PS server");
  }
  if (root["loads"]) {
    const YAML::Node l = root["loads"];
    if (!l.IsSequence()) throw Error(path, line_of(l), "loads", "expected a list");
    for (const auto& v : l) e.loads.push_back(yaml::number(path, v, "loads", 1e-6, 20));
  }
  if (root["servers"]) {
    const YAML::Node l = root["servers"];
    if (!l.IsSequence()) throw Error(path, line_of(l), "servers", "expected a list");
    for (const auto& v : l) e.server_counts.push_back(static_cast<int>(yaml::integer(path, v, "servers", 2, 100000)));
  }
  if (root["lp_bound"]) e.lp_bound = yaml::boolean(path, root["lp_bound"], "lp_bound");
  if (root["lp_max_iterations"])
    e.lp_max_iterations = static_cast<int>(yaml::integer(path, root["lp_max_iterations"], "lp_max_iterations", 1, 100000));
  // Memory and time stay bounded: every ledger holds slots x servers x 4 numbers.
  int largest = e.worker_servers + e.ps_servers;
  for (int s : e.server_counts) largest = std::max(largest, s);
  if (static_cast<long>(largest) * e.horizon_slots > kMaxSlotServers)
    throw Error(path, root["servers"] ? line_of(root["servers"]) : line_of(root["cluster"]), "servers",
                "horizon_slots x servers = " + std::to_string(static_cast<long>(largest) * e.horizon_slots) +
                    " exceeds " + std::to_string(kMaxSlotServers));
  if (!root["workload"]) throw Error(path, 1, "workload", "missing field");
  e.workload = parse_workload(path, root["workload"], e.horizon_slots);
  return e;
}

std::vector<SweepPoint> sweep_points(const OasisExperiment& e) {
  const int base = e.worker_servers + e.ps_servers;
  std::vector<SweepPoint> pts;
  auto add = [&](double load, int servers) {
    for (const auto& p : pts)
      if (p.load == load && p.servers == servers) return;
    pts.push_back({load, servers});
  };
  add(e.workload.load, base);
  for (double l : e.loads) add(l, base);
  for (int s : e.server_counts) add(e.workload.load, s);
  return pts;
}

OasisCluster experiment_cluster(const OasisExperiment& e, int total) {
  const int base = e.worker_servers + e.ps_servers;
  int ps = e.ps_servers == 0 ? 0 : std::max(1, static_cast<int>(std::lround(static_cast<double>(total) * e.ps_servers / base)));
  ps = std::min(ps, total - 1);
  return make_cluster(total - ps, e.worker_capacity, ps, e.ps_capacity, e.shared_pool, e.horizon_slots);
}

std::vector<OasisRunRecord> run_oasis_experiment(const OasisExperiment& e, const std::string& data_dir, int threads,
                                                 const std::function<void()>& on_item) {
  for (const auto& m : e.methods) make_oasis_method(m, e.params, 1);  // names and knobs first
  const std::vector<SweepPoint> pts = sweep_points(e);
  const size_t S = e.seeds.size(), M = e.methods.size();
  std::vector<OasisRunRecord> out(pts.size() * S * M);
  std::mutex mu;
  parallel_for(pts.size() * S, std::max(1, threads), [&](size_t item) {
    const SweepPoint pt = pts[item / S];
    const uint64_t seed = e.seeds[item % S];
    if (on_item) {
      std::lock_guard<std::mutex> lock(mu);
      on_item();
    }
    const OasisCluster cluster = experiment_cluster(e, pt.servers);
    OasisWorkloadSpec spec = e.workload;
    spec.load = pt.load;
    const std::vector<OasisJob> jobs = oasis_workload(spec, cluster, seed, data_dir);
    for (const auto& j : jobs) check_job(j, cluster.horizon_slots, e.path, 0);
    LpBound bound;
    if (e.lp_bound) {
      LpBoundOptions lo;
      lo.max_iterations = e.lp_max_iterations;
      bound = lp_upper_bound(cluster, jobs, lo);
    }
    const OasisProblem problem{&cluster, &jobs, &spec};
    for (size_t m = 0; m < M; ++m) {
      auto method = make_oasis_method(e.methods[m], e.params, seed);
      const OasisRun run = method->run(problem);
      OasisRunRecord& r = out[item * M + m];
      r.method = e.methods[m];
      r.seed = seed;
      r.point = pt;
      r.metrics = check_and_measure(problem, run);
      r.theoretical_ratio = run.theoretical_ratio;
      r.log = run.log;
      r.bound = bound;
    }
  });
  return out;
}

}  // namespace dmlkit::cluster::oasis
