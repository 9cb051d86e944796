// Results and report of an experiment preset run (see experiment_report.h).
#include "cluster/report/experiment_report.h"

#include <set>

#include "cluster/policy.h"
#include "cluster/report/results.h"
#include "core/html_report.h"
#include "core/results_table.h"
#include "core/table.h"

namespace dmlkit::cluster {

using nlohmann::ordered_json;

Results experiment_results(const Experiment& e, const ClusterSpec& cluster, const std::vector<ExperimentRun>& runs) {
  Results res("cluster compare --experiment", "policy");
  auto& in = res.inputs();
  in["experiment"] = e.name;
  in["experiment_path"] = e.path;
  in["cluster"] = e.cluster;
  in["cluster_servers"] = cluster.num_servers();
  in["cluster_gpus"] = cluster.total_gpus();
  in["speed_model"] = e.speed_model;
  if (e.interference != "none" || !e.interference_file.empty()) {  // older presets' results unchanged
    in["interference"] = e.interference;
    if (!e.interference_file.empty()) in["interference_file"] = e.interference_file;
  }
  in["round_s"] = e.round_s;
  in["restart_delay_s"] = e.restart_delay_s;
  in["measure_noise"] = e.measure_noise;
  in["straggler_prob"] = e.straggler_prob;
  in["policy_params"] = e.policy_params;
  in["seeds"] = e.seeds;
  ordered_json w;
  w["num_jobs"] = e.workload.num_jobs;
  w["arrivals"] = e.workload.arrivals;
  w["max_arrivals_per_slot"] = e.workload.max_arrivals_per_slot;
  w["slot_s"] = e.workload.slot_s;
  w["max_num_epochs"] = e.workload.max_num_epochs;
  w["demands"] = e.workload.demands;
  if (e.workload.catalogue != "dl2") w["catalogue"] = e.workload.catalogue;
  in["workload"] = w;
  for (const auto& r : runs) add_run_record(res, r.result, r.metrics, r.seed);
  return res;
}

HtmlReport experiment_report(const Experiment& e, const ClusterSpec& cluster, const Results& results) {
  HtmlReport rep("dmlkit experiment " + e.name);
  if (!e.description.empty()) rep.add_paragraph(e.description);
  std::string seeds;
  for (auto s : e.seeds) seeds += (seeds.empty() ? "" : ", ") + std::to_string(s);
  std::vector<std::pair<std::string, std::string>> facts{
      {"Cluster", e.cluster + " (" + std::to_string(cluster.num_servers()) + " servers, " +
                      std::to_string(cluster.total_gpus()) + " GPUs)"},
      {"Jobs per run", std::to_string(e.workload.num_jobs) + " (" + e.workload.arrivals + " arrivals)"},
      {"Speed model", e.speed_model + (e.interference != "none" ? ", interference " + e.interference : "")},
      {"Slot", fixed(e.round_s, 0) + " s"},
      {"Restart delay", fixed(e.restart_delay_s, 0) + " s"},
      {"Seeds", seeds}};
  // The preset's and the command line's knobs that a policy that ran declares (its registry entry;
  // e.g. which trained model `dl2` loaded, or fixed-dl2's fixed.rule), as "knob=value".
  std::set<std::string> declared;
  for (const auto& r : results.records())
    if (const PolicyEntry* entry = policy_registry().find(r.name))
      for (const KnobSpec& k : entry->knobs) declared.insert(k.name);
  std::string knobs;
  for (const auto& [key, value] : e.policy_params)
    if (declared.count(key) > 0) knobs += (knobs.empty() ? "" : ", ") + key + "=" + value;
  if (!knobs.empty()) facts.emplace_back("Policy parameters", knobs);
  rep.add_facts(std::move(facts));
  rep.add_heading("Summary over seeds");
  rep.add_table(seed_summary_table(results, e.round_s), "mean and sample standard deviation over the seeds");
  LineChart jct{"Average JCT per seed", "seed", "average JCT (s)", {}, {}, {}, 0.0, {}, false};
  LineChart mk{"Makespan per seed", "seed", "makespan (s)", {}, {}, {}, 0.0, {}, false};
  for (const auto& g : results.summary()) {
    // Seeds are categories: points, not lines joining seed 1 to seed 2.
    ChartSeries a{g.name, {}, {}, false, true}, b{g.name, {}, {}, false, true};
    for (const auto& r : results.records()) {
      if (r.name != g.name) continue;
      if (r.metrics["avg_jct_s"].is_number()) {  // null: the run finished no job, no point
        a.x.push_back(static_cast<double>(r.seed));
        a.y.push_back(r.metrics["avg_jct_s"].get<double>());
      }
      if (r.metrics["makespan_s"].is_number()) {
        b.x.push_back(static_cast<double>(r.seed));
        b.y.push_back(r.metrics["makespan_s"].get<double>());
      }
    }
    jct.series.push_back(a);
    mk.series.push_back(b);
  }
  rep.add_chart(jct);
  rep.add_chart(mk);
  rep.add_heading("Every run");
  rep.add_table(rounded_records_table(results), "records.csv (there at full precision)");
  return rep;
}

}  // namespace dmlkit::cluster
