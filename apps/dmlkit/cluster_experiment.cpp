// `dmlkit cluster experiments` (list the presets in experiments/) and
// `dmlkit cluster compare --experiment NAME` (run one over its seeds): results.json with one record
// per (policy, seed) and a per-policy summary (mean, standard deviation, min, max), CSV tables and
// report.html. See docs/optimus.md.
#include "dmlkit/run_output.h"
#include "dmlkit/cluster_experiment.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <ostream>

#include "cluster/model/cluster_spec.h"
#include "cluster/workload/experiment.h"
#include "core/error.h"
#include "core/html_report.h"
#include "core/output_dir.h"
#include "core/progress.h"
#include "core/stats.h"
#include "core/table.h"
#include "dmlkit/cluster_output.h"

namespace dmlkit::app {

namespace cl = dmlkit::cluster;
using nlohmann::ordered_json;

namespace {

ordered_json stat_json(const Summary& s) { return {{"mean", s.mean}, {"sd", s.sd}, {"min", s.min}, {"max", s.max}}; }

struct PolicySummary {
  std::string policy;
  Summary jct, makespan;
  size_t finished = 0, jobs = 0;
  int timed_out = 0;
};

std::vector<PolicySummary> summarize_policies(const cl::Experiment& e, const std::vector<cl::ExperimentRun>& runs) {
  std::vector<PolicySummary> out;
  for (const auto& p : e.policies) {
    PolicySummary s;
    s.policy = p;
    std::vector<double> jct, mk;
    for (const auto& r : runs) {
      if (r.policy != p) continue;
      jct.push_back(r.metrics.avg_jct_s);
      mk.push_back(r.metrics.makespan_s);
      s.finished += r.metrics.finished;
      s.jobs += r.metrics.jobs;
      s.timed_out += r.result.timed_out ? 1 : 0;
    }
    s.jct = summarize(jct);
    s.makespan = summarize(mk);
    out.push_back(s);
  }
  return out;
}

TextTable summary_table(const std::vector<PolicySummary>& sums, double round_s) {
  TextTable t({"policy", "avg_jct_s", "jct_sd_s", "avg_jct_slots", "makespan_s", "makespan_sd_s", "finished"});
  for (const auto& s : sums)
    t.add_row({s.policy, fixed(s.jct.mean, 1), fixed(s.jct.sd, 1), fixed(s.jct.mean / round_s, 3),
               fixed(s.makespan.mean, 1), fixed(s.makespan.sd, 1),
               std::to_string(s.finished) + "/" + std::to_string(s.jobs)});
  return t;
}

TextTable runs_table(const std::vector<cl::ExperimentRun>& runs) {
  TextTable t({"policy", "seed", "avg_jct_s", "median_jct_s", "p95_jct_s", "makespan_s", "avg_queue_s",
               "gpu_utilization", "preemptions", "finished", "jobs", "timed_out"});
  for (const auto& r : runs) {
    const auto& m = r.metrics;
    t.add_row({r.policy, std::to_string(r.seed), fixed(m.avg_jct_s, 3), fixed(m.median_jct_s, 3), fixed(m.p95_jct_s, 3),
               fixed(m.makespan_s, 3), fixed(m.avg_queue_s, 3), fixed(m.gpu_utilization, 4),
               std::to_string(m.preemptions), std::to_string(m.finished), std::to_string(m.jobs),
               r.result.timed_out ? "1" : "0"});
  }
  return t;
}

TextTable jobs_table(const cl::SimResult& r) {
  TextTable t({"id", "name", "type", "arrival_s", "first_start_s", "finish_s", "jct_s", "restarts"});
  for (const auto& j : r.jobs)
    t.add_row({std::to_string(j.id), j.name, j.application, fixed(j.arrival_s, 3),
               j.first_start_s >= 0 ? fixed(j.first_start_s, 3) : "", j.finished() ? fixed(j.finish_s, 3) : "",
               j.finished() ? fixed(j.jct_s(), 3) : "", std::to_string(j.restarts)});
  return t;
}

ordered_json results_json(const cl::Experiment& e, const cl::ClusterSpec& cluster,
                          const std::vector<cl::ExperimentRun>& runs, const std::vector<PolicySummary>& sums) {
  ordered_json j;
  j["schema_version"] = kResultsSchemaVersion;
  j["tool"] = "dmlkit";
  j["version"] = DMLKIT_VERSION;
  j["command"] = "cluster compare --experiment";
  ordered_json in;
  in["experiment"] = e.name;
  in["experiment_path"] = e.path;
  in["cluster"] = e.cluster;
  in["cluster_servers"] = cluster.num_servers();
  in["cluster_gpus"] = cluster.total_gpus();
  in["speed_model"] = e.speed_model;
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
  in["workload"] = w;
  j["inputs"] = in;
  ordered_json records = ordered_json::array();
  for (const auto& r : runs) {
    const auto& m = r.metrics;
    records.push_back({{"policy", r.policy},
                       {"seed", r.seed},
                       {"timed_out", r.result.timed_out},
                       {"metrics",
                        {{"jobs", m.jobs},
                         {"finished", m.finished},
                         {"avg_jct_s", m.avg_jct_s},
                         {"median_jct_s", m.median_jct_s},
                         {"p95_jct_s", m.p95_jct_s},
                         {"makespan_s", m.makespan_s},
                         {"avg_queue_s", m.avg_queue_s},
                         {"gpu_utilization", m.gpu_utilization},
                         {"preemptions", m.preemptions}}}});
  }
  j["records"] = records;
  ordered_json summary = ordered_json::array();
  for (const auto& s : sums)
    summary.push_back({{"policy", s.policy},
                       {"avg_jct_s", stat_json(s.jct)},
                       {"makespan_s", stat_json(s.makespan)},
                       {"finished", s.finished},
                       {"jobs", s.jobs},
                       {"timed_out_runs", s.timed_out}});
  j["summary"] = summary;
  return j;
}

std::string report_html(const cl::Experiment& e, const cl::ClusterSpec& cluster,
                        const std::vector<cl::ExperimentRun>& runs, const std::vector<PolicySummary>& sums) {
  HtmlReport rep("dmlkit experiment " + e.name);
  if (!e.description.empty()) rep.add_paragraph(e.description);
  std::string seeds;
  for (auto s : e.seeds) seeds += (seeds.empty() ? "" : ", ") + std::to_string(s);
  rep.add_facts({{"Cluster", e.cluster + " (" + std::to_string(cluster.num_servers()) + " servers, " +
                                 std::to_string(cluster.total_gpus()) + " GPUs)"},
                 {"Jobs per run", std::to_string(e.workload.num_jobs) + " (" + e.workload.arrivals + " arrivals)"},
                 {"Speed model", e.speed_model},
                 {"Slot", fixed(e.round_s, 0) + " s"},
                 {"Restart delay", fixed(e.restart_delay_s, 0) + " s"},
                 {"Seeds", seeds}});
  rep.add_heading("Summary over seeds");
  rep.add_table(summary_table(sums, e.round_s), "mean and sample standard deviation over the seeds");
  LineChart jct{"Average JCT per seed", "seed", "average JCT (s)", {}, {}, {}, 0.0, {}, false};
  LineChart mk{"Makespan per seed", "seed", "makespan (s)", {}, {}, {}, 0.0, {}, false};
  for (const auto& p : e.policies) {
    ChartSeries a{p, {}, {}, false}, b{p, {}, {}, false};
    for (const auto& r : runs) {
      if (r.policy != p) continue;
      a.x.push_back(static_cast<double>(r.seed));
      a.y.push_back(r.metrics.avg_jct_s);
      b.x.push_back(static_cast<double>(r.seed));
      b.y.push_back(r.metrics.makespan_s);
    }
    jct.series.push_back(a);
    mk.series.push_back(b);
  }
  rep.add_chart(jct);
  rep.add_chart(mk);
  rep.add_heading("Every run");
  rep.add_table(runs_table(runs));
  return rep.render();
}

}  // namespace

int run_cluster_experiment(const ExperimentCliOptions& o, Context& ctx) {
  cl::Experiment e = cl::load_experiment(o.experiment, o.experiments_dir);
  if (!o.policies.empty()) e.policies = o.policies;
  if (!o.seeds.empty()) e.seeds = o.seeds;
  // The user's knobs must belong to a policy that runs (as in `cluster simulate`); the preset's own
  // knobs may name a policy --policies dropped (make_policy still rejects a knob no policy has).
  KnobValues user_params;
  cl::add_policy_params(user_params, o.policy_params);
  cl::check_policy_params(e.policies, user_params);
  for (const auto& [k, v] : user_params) e.policy_params[k] = v;
  const cl::ClusterSpec cluster = cl::ClusterSpec::parse(e.cluster);
  ProgressBar bar(e.name, static_cast<double>(e.policies.size() * e.seeds.size()));
  size_t done = 0;
  const auto runs = cl::run_experiment(e, o.data_dir, [&](const std::string& policy, uint64_t seed) {
    bar.update(static_cast<double>(done++), policy + " seed " + std::to_string(seed));
  });
  bar.update(static_cast<double>(done));
  bar.finish();
  const auto sums = summarize_policies(e, runs);
  OutputDir out(o.out.empty() ? "out/cluster-compare-" + e.name : o.out);
  const ordered_json j = results_json(e, cluster, runs, sums);
  out.write("results.json", j.dump(2) + "\n");
  out.write("summary.csv", summary_table(sums, e.round_s).to_csv());
  out.write("runs.csv", runs_table(runs).to_csv());
  for (const auto& r : runs)
    out.write("jobs-" + r.policy + "-seed" + std::to_string(r.seed) + ".csv", jobs_table(r.result).to_csv());
  out.write("report.html", report_html(e, cluster, runs, sums));
  const std::string path = commit_output(out);
  if (o.format == "json") {
    ctx.out << j.dump(2) << "\n";
  } else if (o.format == "csv") {
    ctx.out << summary_table(sums, e.round_s).to_csv();
  } else {
    std::string seeds;
    for (auto s : e.seeds) seeds += (seeds.empty() ? "" : ",") + std::to_string(s);
    ctx.out << "experiment " << e.name << ": " << e.workload.num_jobs << " PS jobs on " << cluster.num_servers()
            << " servers, speed model " << e.speed_model << ", seeds " << seeds << "\n\n"
            << summary_table(sums, e.round_s).render();
  }
  print_output_location(ctx, o.format, path);
  return 0;
}

void add_cluster_experiments_command(CLI::App& cluster, Context& ctx) {
  auto& dir = ctx.make<std::string>();
  dir = cl::default_experiments_dir();
  auto* cmd = cluster.add_subcommand("experiments", "List the experiment presets (run one with compare --experiment)");
  cmd->add_option("--dir", dir, "Folder of experiment files")->capture_default_str();
  cmd->callback([&] {
    ctx.run = [&] {
      for (const auto& e : cl::list_experiments(dir)) {
        std::string pol, seeds;
        for (const auto& p : e.policies) pol += (pol.empty() ? "" : ",") + p;
        for (auto s : e.seeds) {
          if (!seeds.empty()) seeds += ',';
          seeds += std::to_string(s);
        }
        ctx.out << e.name << "\t" << e.description << "\t[policies " << pol << "; seeds " << seeds << "]\n";
      }
      return 0;
    };
  });
}

}  // namespace dmlkit::app
