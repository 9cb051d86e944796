// The output of a run of policies on one workload (cluster/run.h): inputs, detail tables, report,
// the printed summary and the trace. docs/results-schema.md describes the folder.
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cluster/report/report.h"
#include "cluster/report/results.h"
#include "cluster/report/trace.h"
#include "cluster/run.h"

namespace dmlkit::cluster {

using nlohmann::ordered_json;

void RunDescription::write_inputs(Results& results) const {
  auto& in = results.inputs();
  in["workload"] = workload;
  in["workload_path"] = workload_path;
  in["jobs"] = jobs;
  in["dropped_oversized"] = dropped_oversized;
  in["cluster"] = cluster;
  in["cluster_servers"] = cluster_servers;
  in["cluster_gpus"] = cluster_gpus;
  in["profile"] = profile;
  in["placement"] = placement;
  in["policy_params"] = policy_params;
  in["effective_knobs"] = effective_knobs;
  in["seeds"] = ordered_json::array({seed});
  in["round_s"] = round_s;
  in["restart_delay_s"] = restart_delay_s;
  if (interference != "none" || !interference_file.empty()) {  // older runs' results unchanged
    in["interference"] = interference;
    if (!interference_file.empty()) in["interference_file"] = interference_file;
  }
  if (!calibration.empty())
    in["calibration"] = {{"file", calibration},
                         {"arrival_latency_s", arrival_latency_s},
                         {"start_latency_s", start_latency_s},
                         {"restart_latency_s", restart_latency_s}};
}

std::vector<OutputFile> RunOutput::detail_files() const {
  std::vector<OutputFile> files;
  for (const auto& r : runs) {
    const std::string stem = run_file_stem(r.policy, description.seed);
    std::ostringstream jobs, rounds;
    write_jobs_csv(jobs, r);
    write_rounds_csv(rounds, r);
    files.push_back({"jobs-" + stem + ".csv", jobs.str()});
    files.push_back({"rounds-" + stem + ".csv", rounds.str()});
  }
  return files;
}

std::optional<std::string> RunOutput::detail_file(const std::string& name) const {
  for (const auto& r : runs) {
    const std::string stem = run_file_stem(r.policy, description.seed);
    std::ostringstream text;
    if (name == "jobs-" + stem + ".csv")
      write_jobs_csv(text, r);
    else if (name == "rounds-" + stem + ".csv")
      write_rounds_csv(text, r);
    else
      continue;
    return text.str();
  }
  return std::nullopt;
}

HtmlReport RunOutput::report() const {
  const RunDescription& d = description;
  ReportInfo info;
  info.workload = d.workload;
  info.cluster = d.cluster + " (" + std::to_string(d.cluster_servers) + " servers)";
  info.profile = d.profile;
  info.seed = d.seed;
  info.extra = {{"Round length", std::isfinite(d.round_s) ? fixed(d.round_s, 0) + " s" : "none (events only)"},
                {"Restart delay", fixed(d.restart_delay_s, 0) + " s"},
                {"Placement", d.placement}};
  if (!d.calibration.empty())
    info.extra.push_back({"Calibration", d.calibration + ": arrival +" + fixed(d.arrival_latency_s, 1) +
                                             " s, first start +" + fixed(d.start_latency_s, 1) + " s, restart +" +
                                             fixed(d.restart_latency_s, 1) + " s"});
  for (const auto& [k, v] : d.policy_params) info.extra.push_back({"Policy knob " + k, v});
  return cluster_report(info, runs, metrics);
}

std::string RunOutput::summary(const std::string& format) const {
  if (format == "json") return results.json_text();
  TextTable t = summary_table(runs, metrics);
  if (format == "csv") return t.to_csv();
  const RunDescription& d = description;
  std::string head = "workload " + d.workload + " (" + std::to_string(d.jobs) + " jobs";
  if (d.dropped_oversized > 0) head += ", " + std::to_string(d.dropped_oversized) + " oversized dropped";
  head += ") on " + d.cluster + " (" + std::to_string(d.cluster_gpus) + " GPUs), profile " + d.profile + ", seed " +
          std::to_string(d.seed) + "\n\n";
  return head + t.render();
}

TraceEvents RunOutput::trace() const {
  TraceEvents trace;
  for (const auto& r : runs) add_placement_trace(trace, r, cluster);
  return trace;
}

void RunOutput::write(OutputDir& out) const {
  results.write(out);
  for (const auto& r : runs) write_run_detail_files(out, r, description.seed);
  report().write(out);
}

}  // namespace dmlkit::cluster
