#include "dmlkit/cluster/cluster_output.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "cluster/report/report.h"
#include "cluster/report/results.h"
#include "core/table.h"

namespace dmlkit::app {

namespace cl = dmlkit::cluster;
using nlohmann::ordered_json;

Results cluster_results(const RunDescription& d, const std::vector<cl::SimResult>& results,
                        const std::vector<cl::Metrics>& metrics) {
  Results res(d.command, "policy");
  auto& in = res.inputs();
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
  in["effective_knobs"] = d.effective_knobs;
  in["seeds"] = ordered_json::array({d.seed});
  in["round_s"] = d.round_s;
  in["restart_delay_s"] = d.restart_delay_s;
  if (d.interference != "none" || !d.interference_file.empty()) {  // older runs' results unchanged
    in["interference"] = d.interference;
    if (!d.interference_file.empty()) in["interference_file"] = d.interference_file;
  }
  if (!d.calibration.empty())
    in["calibration"] = {{"file", d.calibration},
                         {"arrival_latency_s", d.arrival_latency_s},
                         {"start_latency_s", d.start_latency_s},
                         {"restart_latency_s", d.restart_latency_s}};
  for (size_t i = 0; i < results.size(); ++i) cl::add_run_record(res, results[i], metrics[i], d.seed);
  return res;
}

void write_cluster_outputs(OutputDir& out, const RunDescription& desc, const Results& res,
                           const std::vector<cl::SimResult>& results, const std::vector<cl::Metrics>& metrics) {
  res.write(out);
  for (const auto& r : results) cl::write_run_detail_files(out, r, desc.seed);
  cl::ReportInfo info;
  info.workload = desc.workload;
  info.cluster = desc.cluster + " (" + std::to_string(desc.cluster_servers) + " servers)";
  info.profile = desc.profile;
  info.seed = desc.seed;
  info.extra = {{"Round length", std::isfinite(desc.round_s) ? fixed(desc.round_s, 0) + " s" : "none (events only)"},
                {"Restart delay", fixed(desc.restart_delay_s, 0) + " s"},
                {"Placement", desc.placement}};
  if (!desc.calibration.empty())
    info.extra.push_back({"Calibration", desc.calibration + ": arrival +" + fixed(desc.arrival_latency_s, 1) +
                                             " s, first start +" + fixed(desc.start_latency_s, 1) +
                                             " s, restart +" + fixed(desc.restart_latency_s, 1) + " s"});
  for (const auto& [k, v] : desc.policy_params) info.extra.push_back({"Policy knob " + k, v});
  cl::cluster_report(info, results, metrics).write(out);
}

std::string render_cluster_summary(const RunDescription& desc, const Results& res,
                                   const std::vector<cl::SimResult>& results, const std::vector<cl::Metrics>& metrics,
                                   const std::string& format) {
  if (format == "json") return res.json_text();
  TextTable t = cl::summary_table(results, metrics);
  if (format == "csv") return t.to_csv();
  std::string head = "workload " + desc.workload + " (" + std::to_string(desc.jobs) + " jobs";
  if (desc.dropped_oversized > 0) head += ", " + std::to_string(desc.dropped_oversized) + " oversized dropped";
  head += ") on " + desc.cluster + " (" + std::to_string(desc.cluster_gpus) + " GPUs), profile " + desc.profile +
          ", seed " + std::to_string(desc.seed) + "\n\n";
  return head + t.render();
}

}  // namespace dmlkit::app
