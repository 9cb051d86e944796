// Policy comparison: speed-ups, records, tables and charts (see compare.h).
#include "ps/compare.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "comm/network.h"
#include "core/error.h"
#include "core/knob_use.h"
#include "core/progress.h"
#include "ps/policy.h"

namespace dmlkit::ps {
namespace {

nlohmann::ordered_json number_or_null(double v) {
  return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json();
}

double imbalance(const std::vector<double>& loads) {
  double sum = 0, mx = 0;
  int n = 0;
  for (double b : loads)
    if (b > 0) sum += b, mx = std::max(mx, b), ++n;
  return n > 0 && sum > 0 ? mx / (sum / n) : 1.0;
}

}  // namespace

void add_comparisons(std::vector<PolicyRun>& runs, int warmup) {
  const PolicyRun* mxnet = nullptr;
  const PolicyRun* byteps = nullptr;
  for (const auto& r : runs) {
    if (r.run.policy == "mxnet") mxnet = &r;
    if (r.run.policy == "byteps") byteps = &r;
  }
  for (auto& r : runs) {
    const auto& it = r.run.iteration_s;
    double sum = 0;
    int n = 0;
    for (size_t k = static_cast<size_t>(std::max(0, warmup)); k < it.size(); ++k) sum += it[k], ++n;
    r.iteration_mean_s = n ? sum / n : 0;
    r.speedup_over_mxnet = mxnet ? mxnet->run.total_s / r.run.total_s : std::nan("");
    r.speedup_over_byteps = byteps ? byteps->run.total_s / r.run.total_s : std::nan("");
    double imb = 0;
    for (const auto& l : r.run.load_bytes) imb += imbalance(l);
    r.mean_imbalance = r.run.load_bytes.empty() ? 1 : imb / r.run.load_bytes.size();
  }
}

void add_policy_records(Results& results, const std::vector<PolicyRun>& runs, uint64_t seed) {
  for (const auto& r : runs) {
    ResultRecord& rec = results.add(r.run.policy, seed);
    auto& m = rec.metrics;
    m["total_s"] = r.run.total_s;
    m["iteration_mean_s"] = r.iteration_mean_s;
    m["speedup_over_mxnet"] = number_or_null(r.speedup_over_mxnet);
    m["speedup_over_byteps"] = number_or_null(r.speedup_over_byteps);
    m["mean_imbalance"] = r.mean_imbalance;
    m["switches"] = static_cast<long>(r.run.events.size());
    m["migrated_bytes"] = r.run.migrated_bytes;
    double wait = 0;
    for (const auto& e : r.run.events) wait += e.wait_s;
    m["switch_wait_s"] = wait;
    rec.detail["iteration_s"] = r.run.iteration_s;
    rec.files["iterations_csv"] = "iterations.csv";
    rec.files["loads_csv"] = "loads.csv";
    rec.files["events_csv"] = "events.csv";
  }
}

TextTable summary_table(const std::vector<PolicyRun>& runs) {
  TextTable t({"policy", "total_s", "iteration_mean_ms", "speedup_over_mxnet", "speedup_over_byteps", "mean_imbalance",
               "switches", "migrated_MB"});
  for (const auto& r : runs)
    t.add_row({r.run.policy, fixed(r.run.total_s, 2), fixed(r.iteration_mean_s * 1e3, 3),
               std::isfinite(r.speedup_over_mxnet) ? fixed(r.speedup_over_mxnet, 3) : "",
               std::isfinite(r.speedup_over_byteps) ? fixed(r.speedup_over_byteps, 3) : "", fixed(r.mean_imbalance, 3),
               std::to_string(r.run.events.size()), fixed(r.run.migrated_bytes / 1e6, 1)});
  return t;
}

TextTable iterations_table(const std::vector<PolicyRun>& runs) {
  TextTable t({"policy", "iteration", "iteration_s"});
  for (const auto& r : runs)
    for (size_t k = 0; k < r.run.iteration_s.size(); ++k)
      t.add_row({r.run.policy, std::to_string(k), fixed(r.run.iteration_s[k], 6)});
  return t;
}

TextTable loads_table(const std::vector<PolicyRun>& runs) {
  TextTable t({"policy", "iteration", "server", "load_bytes", "busy_s", "estimate_Bps"});
  for (const auto& r : runs)
    for (size_t k = 0; k < r.run.load_bytes.size(); ++k)
      for (size_t j = 0; j < r.run.load_bytes[k].size(); ++j) {
        const bool busy = k < r.run.busy_s.size() && j < r.run.busy_s[k].size();
        const bool est = k < r.run.estimate_Bps.size() && j < r.run.estimate_Bps[k].size();
        t.add_row({r.run.policy, std::to_string(k), std::to_string(j), fixed(r.run.load_bytes[k][j], 0),
                   busy ? fixed(r.run.busy_s[k][j], 6) : "", est ? fixed(r.run.estimate_Bps[k][j], 0) : ""});
      }
  return t;
}

TextTable events_table(const std::vector<PolicyRun>& runs) {
  TextTable t({"policy", "kind", "decided_iteration", "switch_iteration", "moved_bytes", "transferred_bytes",
               "migration_s", "wait_s", "active_servers", "predicted_gain"});
  for (const auto& r : runs)
    for (const auto& e : r.run.events)
      t.add_row({r.run.policy, e.kind, std::to_string(e.decided_iteration), std::to_string(e.switch_iteration),
                 fixed(e.moved_bytes, 0), fixed(e.transferred_bytes, 0), fixed(e.migration_s, 6), fixed(e.wait_s, 6),
                 std::to_string(e.active_servers), fixed(e.predicted_gain, 4)});
  return t;
}

TextTable stragglers_table(const StragglerScenario& s) {
  TextTable t({"server", "start_iteration", "end_iteration", "kind", "amount"});
  for (const auto& e : s.events)
    t.add_row({std::to_string(e.server), std::to_string(e.start_iteration), std::to_string(e.end_iteration),
               e.kind == StragglerKind::cpu ? "cpu" : "bandwidth", fixed(e.amount, 2)});
  return t;
}

LineChart iteration_chart(const std::vector<PolicyRun>& runs) {
  LineChart c;
  c.title = "Iteration time over the run";
  c.x_title = "iteration";
  c.y_title = "iteration time (ms)";
  for (const auto& r : runs) {
    ChartSeries s;
    s.label = r.run.policy;
    for (size_t k = 0; k < r.run.iteration_s.size(); ++k) {
      s.x.push_back(static_cast<double>(k));
      s.y.push_back(r.run.iteration_s[k] * 1e3);
    }
    c.series.push_back(std::move(s));
  }
  return c;
}

LineChart load_chart(const PolicyRun& r) {
  LineChart c;
  c.title = "Share of the parameter bytes per server: " + r.run.policy;
  c.x_title = "iteration";
  c.y_title = "share of the bytes";
  c.y_min = 0;
  for (int j = 0; j < r.run.server_hosts; ++j) {
    ChartSeries s;
    s.label = "server" + std::to_string(j);
    s.step = true;
    for (size_t k = 0; k < r.run.load_bytes.size(); ++k) {
      const auto& l = r.run.load_bytes[k];
      const double total = std::accumulate(l.begin(), l.end(), 0.0);
      s.x.push_back(static_cast<double>(k));
      s.y.push_back(total > 0 && j < static_cast<int>(l.size()) ? l[j] / total : 0);
    }
    c.series.push_back(std::move(s));
  }
  return c;
}

LineChart estimate_chart(const PolicyRun& r) {
  LineChart c;
  c.title = "Throughput estimates per server: " + r.run.policy;
  c.x_title = "iteration";
  c.y_title = "estimate (GB/s of piece bytes)";
  for (int j = 0; j < r.run.server_hosts; ++j) {
    ChartSeries s;
    s.label = "server" + std::to_string(j);
    for (size_t k = 0; k < r.run.estimate_Bps.size(); ++k)
      if (j < static_cast<int>(r.run.estimate_Bps[k].size())) {
        s.x.push_back(static_cast<double>(k));
        s.y.push_back(r.run.estimate_Bps[k][j] / 1e9);
      }
    c.series.push_back(std::move(s));
  }
  return c;
}

namespace {

HtmlReport compare_report(const CompareSpec& o, const comm::Setup& s, const StragglerScenario& st,
                          const std::vector<PolicyRun>& runs) {
  HtmlReport rep("dmlkit ps: " + o.model + ", " + std::to_string(s.net.workers) + " workers, " +
                 std::to_string(s.net.servers) + " PSs, stragglers " + o.stragglers);
  rep.add_facts({{"Model", o.model + " (" + std::to_string(s.workload.tensors.size()) + " gradient tensors, " +
                               fixed(s.workload.total_bytes() / 1e6, 1) + " MB)"},
                 {"Cluster", std::to_string(s.net.workers) + " workers, " + std::to_string(s.net.servers) +
                                 " parameter servers, NIC " + o.bandwidth},
                 {"Server CPU", fixed(o.server_GBps, 2) + " GB/s aggregation per healthy server"},
                 {"Iterations", std::to_string(o.iterations)},
                 {"Stragglers", o.stragglers + " (" + std::to_string(st.events.size()) + " events)"}});
  rep.add_heading("Time for all iterations per policy");
  rep.add_table(summary_table(runs),
                "speedup = the baseline's time for all iterations / this policy's. imbalance = mean over "
                "iterations of the most loaded server's bytes over the mean of the servers holding bytes.");
  rep.add_heading("Iteration time over the run");
  rep.add_chart(iteration_chart(runs));
  rep.add_heading("PS load over time");
  for (const auto& r : runs) rep.add_chart(load_chart(r));
  bool dynamic = false;
  for (const auto& r : runs) dynamic = dynamic || !r.run.events.empty();
  if (dynamic) {
    rep.add_heading("When the dynamic policies migrated or scaled");
    rep.add_table(events_table(runs),
                  "decided: the iteration the change was agreed; switch: the iteration the key map flipped; "
                  "wait_s: how long that iteration waited for the moves.");
    for (const auto& r : runs)
      if (!r.run.events.empty()) rep.add_chart(estimate_chart(r));
  }
  if (!st.events.empty()) {
    rep.add_heading("Straggler scenario");
    rep.add_table(stragglers_table(st),
                  "cpu: slowdown factor of the server CPU; bandwidth: background flows "
                  "into and out of the server NIC. Iterations [start, end).");
  }
  return rep;
}

}  // namespace

void CompareSpec::write_inputs(Results& res, const comm::Setup& s, const KnobValues& effective_knobs) const {
  auto& in = res.inputs();
  in["model"] = model;
  in["tensors"] = tensors;
  in["workers"] = s.net.workers;
  in["servers"] = s.net.servers;
  in["bandwidth_Bps"] = s.net.bandwidth_Bps;
  in["latency_s"] = s.net.latency_s;
  in["op_overhead_s"] = s.net.op_overhead_s;
  in["server_Bps"] = server_GBps * 1e9;
  in["compute_scale"] = compute_scale;
  in["batch"] = batch;
  in["iterations"] = iterations;
  in["warmup"] = warmup;
  in["stragglers"] = stragglers;
  in["policies"] = policies;
  auto& pp = in["policy_params"] = nlohmann::ordered_json::object();
  for (const auto& [k, v] : policy_params) pp[k] = v;
  in["effective_knobs"] = effective_knobs;
  in["seeds"] = nlohmann::ordered_json::array({seed});
}

CheckedCompare check(const CompareSpec& o) {
  if (o.arch != "ps") throw Error("", 0, "arch", "dmlkit ps runs parameter servers only (--arch ps)");
  if (o.servers < 1) throw Error("", 0, "servers", "must be >= 1");
  CheckedCompare c{comm::make_setup(o), {}, {}};
  if (!(o.server_GBps >= 0) || !std::isfinite(o.server_GBps)) throw Error("", 0, "server_GBps", "must be >= 0");
  if (o.policies.empty()) throw Error("", 0, "policies", "no policy given");
  policy_registry().check_knobs(o.policies, o.policy_params);
  KnobUseRecorder used;  // the values the factories read, run-dependent defaults included
  for (size_t i = 0; i < o.policies.size(); ++i) {
    (void)make_policy(o.policies[i], o.policy_params);
    for (size_t k = 0; k < i; ++k)
      if (o.policies[i] == o.policies[k]) throw Error("", 0, "policies", "'" + o.policies[i] + "' given twice");
  }
  c.effective_knobs = effective_knobs(policy_registry(), o.policies, o.policy_params, used.values());
  c.stragglers = load_stragglers(o.stragglers, c.setup.net.servers, o.iterations);
  return c;
}

comm::RunOutput run(const CompareSpec& o, ProgressBar* progress) {
  const CheckedCompare c = check(o);
  const comm::Setup& s = c.setup;
  PsRunOptions ro;
  ro.iterations = o.iterations;
  ro.server_Bps = o.server_GBps * 1e9;
  ro.seed = o.seed;
  std::vector<PolicyRun> runs;
  for (const auto& name : o.policies) {
    runs.push_back({run_policy(s.workload, s.net, name, o.policy_params, c.stragglers, ro)});
    if (progress) progress->update(static_cast<double>(runs.size()), name);
  }
  add_comparisons(runs, o.warmup);
  comm::RunOutput out(Results("ps compare", "policy"), "", summary_table(runs).header());
  Results& res = out.results;
  o.write_inputs(res, s, c.effective_knobs);
  auto& d = res.derived();
  d["compute_s"] = s.workload.compute_s();
  d["gradient_bytes"] = s.workload.total_bytes();
  d["tensors"] = s.workload.tensors.size();
  d["lower_bound_s"] = comm::lower_bound_s(s.workload, s.net);
  add_policy_records(res, runs, o.seed);
  out.files = {{"iterations.csv", iterations_table(runs).to_csv()},
               {"loads.csv", loads_table(runs).to_csv()},
               {"events.csv", events_table(runs).to_csv()},
               {"stragglers.csv", stragglers_table(c.stragglers).to_csv()}};
  out.report = compare_report(o, s, c.stragglers, runs);
  out.summary = summary_table(runs);
  out.before_table = o.model + ", " + std::to_string(s.net.workers) + " workers, " + std::to_string(s.net.servers) +
                     " PSs, " + o.bandwidth + ", stragglers " + o.stragglers + ", " + std::to_string(o.iterations) +
                     " iterations\n\n";
  return out;
}

}  // namespace dmlkit::ps
