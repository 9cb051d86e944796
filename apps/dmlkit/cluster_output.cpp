#include "dmlkit/cluster_output.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "cluster/report/report.h"
#include "core/table.h"

namespace dmlkit::app {

namespace cl = dmlkit::cluster;
using nlohmann::ordered_json;

namespace {

ordered_json metrics_json(const cl::Metrics& m) {
  ordered_json j;
  j["jobs"] = m.jobs;
  j["finished"] = m.finished;
  j["avg_jct_s"] = m.avg_jct_s;
  j["median_jct_s"] = m.median_jct_s;
  j["p95_jct_s"] = m.p95_jct_s;
  j["p99_jct_s"] = m.p99_jct_s;
  j["makespan_s"] = m.makespan_s;
  j["avg_queue_s"] = m.avg_queue_s;
  j["gpu_utilization"] = m.gpu_utilization;
  j["preemptions"] = m.preemptions;
  return j;
}

ordered_json results_json(const RunDescription& d, const std::vector<cl::SimResult>& results,
                          const std::vector<cl::Metrics>& metrics) {
  ordered_json j;
  j["schema_version"] = kResultsSchemaVersion;
  j["tool"] = "dmlkit";
  j["version"] = DMLKIT_VERSION;
  j["command"] = d.command;
  ordered_json in;
  in["workload"] = d.workload;
  in["workload_path"] = d.workload_path;
  in["jobs"] = d.jobs;
  in["dropped_oversized"] = d.dropped_oversized;
  in["cluster"] = d.cluster;
  in["cluster_servers"] = d.cluster_servers;
  in["cluster_gpus"] = d.cluster_gpus;
  in["profile"] = d.profile;
  in["placement"] = d.placement;
  in["policy_params"] = d.policy_params;
  in["seed"] = d.seed;
  in["round_s"] = d.round_s;
  in["restart_delay_s"] = d.restart_delay_s;
  j["inputs"] = in;
  ordered_json records = ordered_json::array();
  for (size_t i = 0; i < results.size(); ++i) {
    ordered_json r;
    r["policy"] = results[i].policy;
    r["timed_out"] = results[i].timed_out;
    r["metrics"] = metrics_json(metrics[i]);
    r["jobs_csv"] = "jobs-" + results[i].policy + ".csv";
    r["rounds_csv"] = "rounds-" + results[i].policy + ".csv";
    records.push_back(r);
  }
  j["records"] = records;
  return j;
}

std::string num(double v) { return fixed(v, 3); }

TextTable jobs_table(const cl::SimResult& r) {
  TextTable t({"id", "name", "application", "num_gpus", "arrival_s", "first_start_s", "finish_s", "jct_s", "queued_s",
               "executed_s", "gpu_s", "preemptions", "restarts"});
  for (const auto& j : r.jobs) {
    const bool done = j.finished();
    t.add_row({std::to_string(j.id), j.name, j.application, std::to_string(j.num_gpus), num(j.arrival_s),
               j.first_start_s >= 0 ? num(j.first_start_s) : "", done ? num(j.finish_s) : "",
               done ? num(j.jct_s()) : "", done ? num(j.queued_s()) : "", num(j.executed_s), num(j.gpu_s),
               std::to_string(j.preemptions), std::to_string(j.restarts)});
  }
  return t;
}

TextTable rounds_table(const cl::SimResult& r) {
  TextTable t({"time_s", "gpus_busy", "running_jobs", "queued_jobs"});
  for (const auto& s : r.rounds)
    t.add_row(
        {num(s.time_s), std::to_string(s.gpus_busy), std::to_string(s.running_jobs), std::to_string(s.queued_jobs)});
  return t;
}

// The summary table. Average JCT keeps 4 decimals so it can be compared with published tables
// printed to that precision; other times are rounded to 0.1 s.
TextTable summary_table(const std::vector<cl::SimResult>& results, const std::vector<cl::Metrics>& metrics) {
  TextTable t({"policy", "avg_jct_s", "median_jct_s", "p95_jct_s", "p99_jct_s", "makespan_s", "avg_queue_s", "gpu_util",
               "preemptions", "finished"});
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& m = metrics[i];
    t.add_row({results[i].policy, fixed(m.avg_jct_s, 4), fixed(m.median_jct_s, 1), fixed(m.p95_jct_s, 1),
               fixed(m.p99_jct_s, 1), fixed(m.makespan_s, 1), fixed(m.avg_queue_s, 1), fixed(m.gpu_utilization, 4),
               std::to_string(m.preemptions), std::to_string(m.finished) + "/" + std::to_string(m.jobs)});
  }
  return t;
}

}  // namespace

void write_cluster_outputs(OutputDir& out, const RunDescription& desc, const std::vector<cl::SimResult>& results,
                           const std::vector<cl::Metrics>& metrics) {
  out.write("results.json", results_json(desc, results, metrics).dump(2) + "\n");
  out.write("metrics.csv", summary_table(results, metrics).to_csv());
  for (const auto& r : results) {
    out.write("jobs-" + r.policy + ".csv", jobs_table(r).to_csv());
    out.write("rounds-" + r.policy + ".csv", rounds_table(r).to_csv());
  }
  cl::ReportInfo info;
  info.workload = desc.workload;
  info.cluster = desc.cluster + " (" + std::to_string(desc.cluster_servers) + " servers)";
  info.profile = desc.profile;
  info.seed = desc.seed;
  info.extra = {{"Round length", std::isfinite(desc.round_s) ? fixed(desc.round_s, 0) + " s" : "none (events only)"},
                {"Restart delay", fixed(desc.restart_delay_s, 0) + " s"},
                {"Placement", desc.placement}};
  for (const auto& [k, v] : desc.policy_params) info.extra.push_back({"Policy knob " + k, v});
  out.write("report.html", cl::cluster_report_html(info, results, metrics));
}

std::string render_cluster_summary(const RunDescription& desc, const std::vector<cl::SimResult>& results,
                                   const std::vector<cl::Metrics>& metrics, const std::string& format) {
  if (format == "json") return results_json(desc, results, metrics).dump(2) + "\n";
  TextTable t = summary_table(results, metrics);
  if (format == "csv") return t.to_csv();
  std::string head = "workload " + desc.workload + " (" + std::to_string(desc.jobs) + " jobs";
  if (desc.dropped_oversized > 0) head += ", " + std::to_string(desc.dropped_oversized) + " oversized dropped";
  head += ") on " + desc.cluster + " (" + std::to_string(desc.cluster_gpus) + " GPUs), profile " + desc.profile +
          ", seed " + std::to_string(desc.seed) + "\n\n";
  return head + t.render();
}

}  // namespace dmlkit::app
