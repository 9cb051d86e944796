// Results and report of an OASiS experiment (see oasis_experiment.h).
#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <set>

#include "cluster/oasis/oasis_experiment.h"
#include "core/html_report.h"
#include "core/results_table.h"
#include "core/table.h"

namespace dmlkit::cluster::oasis {

using nlohmann::ordered_json;

Results oasis_results(const OasisExperiment& e, const std::vector<OasisRunRecord>& runs) {
  Results res("cluster compare --experiment", "policy");
  auto& in = res.inputs();
  in["experiment"] = e.name;
  in["experiment_path"] = e.path;
  in["engine"] = "oasis";
  in["horizon_slots"] = e.horizon_slots;
  in["worker_servers"] = e.worker_servers;
  in["ps_servers"] = e.ps_servers;
  in["shared_pool"] = e.shared_pool;
  in["policy_params"] = e.params;
  in["seeds"] = e.seeds;
  in["loads"] = e.loads;
  in["servers"] = e.server_counts;
  in["lp_bound"] = e.lp_bound;
  ordered_json w;
  w["load"] = e.workload.load;
  w["arrivals"] = e.workload.arrivals;
  w["arrival_slots"] = e.workload.arrival_slots;
  w["slot_s"] = e.workload.slot_s;
  w["utility"] = to_string(e.workload.utility);
  w["target_from"] = e.workload.target_from;
  in["workload"] = w;
  for (const auto& r : runs) {
    ResultRecord& rec = res.add(r.method, r.seed);
    rec.params["load"] = r.point.load;
    rec.params["servers"] = r.point.servers;
    auto& m = rec.metrics;
    m["jobs"] = r.metrics.jobs;
    m["admitted_jobs"] = r.metrics.admitted;
    m["completed_jobs"] = r.metrics.completed;
    m["total_utility"] = r.metrics.total_utility;
    m["worker_gpu_utilization"] = r.metrics.worker_gpu_utilization;
    m["worker_cpu_utilization"] = r.metrics.worker_cpu_utilization;
    m["ps_cpu_utilization"] = r.metrics.ps_cpu_utilization;
    m["max_server_utilization"] = r.metrics.max_server_utilization;
    if (e.lp_bound) {
      m["lp_upper_bound"] = r.bound.upper_bound;
      m["lp_converged"] = r.bound.converged;
      m["utility_over_bound"] = r.bound.upper_bound > 0 ? r.metrics.total_utility / r.bound.upper_bound : 1.0;
    }
    if (r.theoretical_ratio > 0) m["theoretical_ratio"] = r.theoretical_ratio;
    if (!r.log.empty()) rec.detail["log"] = r.log;
  }
  return res;
}

namespace {

double mean_of(const SummaryGroup& g, const std::string& metric) {
  const MetricSummary* s = g.find(metric);
  return s != nullptr ? s->stats.mean : 0;
}

}  // namespace

TextTable oasis_summary_table(const Results& results) {
  TextTable t({"policy", "load", "servers", "runs", "total_utility", "total_utility_sd", "total_utility_min",
               "total_utility_max", "admitted_jobs", "completed_jobs", "worker_gpu_utilization", "utility_over_bound"});
  for (const auto& g : results.summary()) {
    const MetricSummary* u = g.find("total_utility");
    t.add_row({g.name, fixed(g.params["load"].get<double>(), 2), std::to_string(g.params["servers"].get<int>()),
               std::to_string(g.runs), fixed(u ? u->stats.mean : 0, 1), fixed(u ? u->stats.sd : 0, 1),
               fixed(u ? u->stats.min : 0, 1), fixed(u ? u->stats.max : 0, 1), fixed(mean_of(g, "admitted_jobs"), 1),
               fixed(mean_of(g, "completed_jobs"), 1), fixed(mean_of(g, "worker_gpu_utilization"), 3),
               g.find("utility_over_bound") ? fixed(mean_of(g, "utility_over_bound"), 3) : ""});
  }
  return t;
}

HtmlReport oasis_report(const OasisExperiment& e, const Results& results) {
  HtmlReport rep("dmlkit experiment " + e.name);
  if (!e.description.empty()) rep.add_paragraph(e.description);
  const std::string seeds = fmt::to_string(fmt::join(e.seeds, ", "));
  const std::string methods = fmt::to_string(fmt::join(e.methods, ", "));
  const int base = e.worker_servers + e.ps_servers;
  rep.add_facts({{"Engine", "oasis (slotted admission model, docs/oasis.md)"},
                 {"Cluster", e.shared_pool ? std::to_string(base) + " servers, one shared pool"
                                           : std::to_string(e.worker_servers) + " worker servers + " +
                                                 std::to_string(e.ps_servers) + " PS servers"},
                 {"Horizon", std::to_string(e.horizon_slots) + " slots of " + fixed(e.workload.slot_s, 0) + " s"},
                 {"Arrivals", e.workload.arrivals + " over the first " + std::to_string(e.workload.arrival_slots) + " slots"},
                 {"Utility", std::string(to_string(e.workload.utility)) + ", target from " + e.workload.target_from},
                 {"Methods", methods},
                 {"Seeds", seeds}});
  const auto groups = results.summary();
  // Charts: total utility against load (base size) and against size (base load); mean over seeds,
  // the LP bound as its own line.
  auto chart = [&](const std::string& title, const std::string& x_title, bool by_load, const std::string& metric,
                   const std::string& y_title, bool with_bound) {
    LineChart c{title, x_title, y_title, {}, {}, {}, 0.0, {}, false};
    std::map<std::string, ChartSeries> series;
    std::map<double, double> bound;
    for (const auto& g : groups) {
      const double load = g.params["load"].get<double>();
      const int servers = g.params["servers"].get<int>();
      if (by_load ? servers != base : load != e.workload.load) continue;
      const double x = by_load ? load : servers;
      if (!g.find(metric)) continue;
      auto& s = series[g.name];
      s.label = g.name;
      s.x.push_back(x);
      s.y.push_back(mean_of(g, metric));
      if (with_bound && g.find("lp_upper_bound")) bound[x] = mean_of(g, "lp_upper_bound");
    }
    for (const auto& name : e.methods)
      if (series.count(name) && series[name].x.size() > 0) {
        auto s = series[name];
        std::vector<size_t> idx(s.x.size());
        for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
        std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return s.x[a] < s.x[b]; });
        ChartSeries sorted{s.label, {}, {}, false};
        for (size_t i : idx) sorted.x.push_back(s.x[i]), sorted.y.push_back(s.y[i]);
        c.series.push_back(sorted);
      }
    if (!bound.empty()) {
      ChartSeries b{"LP upper bound", {}, {}, false};
      for (const auto& [x, y] : bound) b.x.push_back(x), b.y.push_back(y);
      c.series.push_back(b);
    }
    if (!c.series.empty() && c.series.front().x.size() > 1) rep.add_chart(c);
  };
  rep.add_heading("Total utility");
  chart("Total utility vs load (" + std::to_string(base) + " servers; mean over seeds)", "offered load", true,
        "total_utility", "total utility", e.lp_bound);
  chart("Total utility vs cluster size (load " + fixed(e.workload.load, 2) + "; mean over seeds)", "servers", false,
        "total_utility", "total utility", e.lp_bound);
  if (e.lp_bound) {
    rep.add_heading("Empirical competitive ratio");
    rep.add_paragraph(
        "Total utility divided by the LP upper bound on the offline optimum (lp_bound.h), the same jobs; the "
        "theoretical guarantee of OASiS is 1 / (2 alpha), alpha = max(1, ln(U/L)).");
    chart("Utility / upper bound vs load", "offered load", true, "utility_over_bound", "utility / bound", false);
  }
  rep.add_heading("Summary over seeds");
  rep.add_table(oasis_summary_table(results), "mean, sample standard deviation, min and max over the seeds");
  for (const auto& r : results.records())
    if (r.detail.contains("log")) {
      std::string text;
      for (const auto& l : r.detail["log"]) text += (text.empty() ? "" : "; ") + l.get<std::string>();
      rep.add_paragraph("Price bounds of " + r.name + " (seed " + std::to_string(r.seed) + "): " + text);
      break;
    }
  rep.add_heading("Every run");
  rep.add_table(rounded_records_table(results), "records.csv (there at full precision)");
  return rep;
}

}  // namespace dmlkit::cluster::oasis
