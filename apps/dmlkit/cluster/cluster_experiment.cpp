// `dmlkit cluster experiments` (list the presets in experiments/) and
// `dmlkit cluster compare --experiment NAME` (run one over its seeds): results.json with one record
// per (policy, seed) and a per-policy summary (mean, standard deviation, min, max), CSV tables and
// report.html, the same layout as `cluster compare` on a workload (docs/results-schema.md). Runs
// go in parallel (--threads). See docs/optimus.md.
#include "dmlkit/run_output.h"
#include "dmlkit/cluster/cluster_experiment.h"
#include "dmlkit/python_plugin.h"

#include <ostream>

#include "cluster/model/cluster_spec.h"
#include "cluster/report/experiment_report.h"
#include "cluster/speed/interference.h"
#include "cluster/report/results.h"
#include "cluster/workload/experiment.h"
#include "core/error.h"
#include "core/output_dir.h"
#include "core/parallel_for.h"
#include "core/progress.h"
#include "core/results.h"
#include "core/table.h"
#include "core/text_safety.h"

namespace dmlkit::app {

namespace cl = dmlkit::cluster;

void validate_cluster_experiment(const ExperimentCliOptions& o) {
  cl::Experiment e = cl::load_experiment(o.experiment, o.experiments_dir);
  if (e.engine == "oasis") return;
  if (!o.policies.empty()) e.policies = o.policies;
  KnobValues user_params;
  cl::add_policy_params(user_params, o.policy_params);
  cl::check_policy_params(e.policies, user_params);
  (void)cl::ClusterSpec::parse(e.cluster);
  if (!o.interference.empty()) e.interference = o.interference;
  if (!o.interference_file.empty()) e.interference_file = o.interference_file;
  (void)cl::make_interference_model(e.interference, o.data_dir, e.interference_file);
}

int run_cluster_experiment(const ExperimentCliOptions& o, Context& ctx) {
  cl::Experiment e = cl::load_experiment(o.experiment, o.experiments_dir);
  if (e.engine == "oasis") return run_oasis_experiment_cli(e.path, o, ctx);
  const std::string out_path = o.out.empty() ? "out/cluster-compare-" + e.name : o.out;
  check_output_target(out_path);  // the default folder too, before the runs
  if (!o.policies.empty()) e.policies = o.policies;
  if (!o.seeds.empty()) e.seeds = o.seeds;
  if (!o.interference.empty()) e.interference = o.interference;
  if (!o.interference_file.empty()) e.interference_file = o.interference_file;
  append_missing(e.policies, register_python_policies(o.policy_files));
  // The user's knobs must belong to a policy that runs (as in `cluster simulate`); the preset's own
  // knobs may name a policy --policies dropped (make_policy still rejects a knob no policy has).
  KnobValues user_params;
  cl::add_policy_params(user_params, o.policy_params);
  cl::check_policy_params(e.policies, user_params);
  for (const auto& [k, v] : user_params) e.policy_params[k] = v;
  const cl::ClusterSpec cluster = cl::ClusterSpec::parse(e.cluster);
  const int threads = resolve_threads(o.threads);
  // Serial: "policy seed N" of the run starting; parallel: runs started so far (display only).
  ProgressBar bar(e.name, static_cast<double>(e.policies.size() * e.seeds.size()));
  size_t done = 0;
  const auto runs = cl::run_experiment(
      e, o.data_dir,
      [&](const std::string& policy, uint64_t seed) {
        bar.update(static_cast<double>(done++), threads > 1 ? "" : policy + " seed " + std::to_string(seed));
      },
      threads);
  bar.update(static_cast<double>(done));
  bar.finish();
  const Results res = cl::experiment_results(e, cluster, runs);
  OutputDir out(out_path);
  res.write(out);
  for (const auto& r : runs) cl::write_run_detail_files(out, r.result, r.seed);
  cl::experiment_report(e, cluster, res).write(out);
  const std::string path = commit_output(out);
  if (o.format == "json") {
    ctx.out << res.json_text();
  } else if (o.format == "csv") {
    ctx.out << cl::seed_summary_table(res, e.round_s).to_csv();
  } else {
    std::string seeds;
    for (auto s : e.seeds) seeds += (seeds.empty() ? "" : ",") + std::to_string(s);
    ctx.out << "experiment " << terminal_safe(e.name) << ": " << e.workload.num_jobs << " PS jobs on "
            << cluster.num_servers() << " servers, speed model " << e.speed_model
            << (e.interference != "none" ? ", interference " + e.interference : std::string()) << ", seeds " << seeds
            << "\n\n"
            << cl::seed_summary_table(res, e.round_s).render();
  }
  print_output_location(ctx, o.format, path);
  return 0;
}

void add_cluster_experiments_command(CLI::App& cluster, Context& ctx) {
  auto& dir = ctx.make<std::string>();
  dir = cl::default_experiments_dir();
  auto* cmd = cluster.add_subcommand("experiments", "List the experiment presets (run one with compare --experiment)");
  cmd->add_option("--dir", dir, "Folder of experiment files")->capture_default_str();
  auto& verbose = ctx.make<bool>();
  cmd->add_flag("-v,--verbose", verbose, "Also the preset's file, engine, cluster and simulator settings");
  auto& format = ctx.make<std::string>();
  add_list_format_option(*cmd, format);
  cmd->callback([&] {
    ctx.run = [&] {
      if (format == "json") {
        nlohmann::ordered_json list = nlohmann::ordered_json::array();
        for (const auto& e : cl::list_experiments(dir)) {
          nlohmann::ordered_json j{{"name", e.name},     {"description", e.description}, {"file", e.path},
                                   {"engine", e.engine}, {"policies", e.policies},       {"seeds", e.seeds}};
          if (e.engine == "sim") {
            j["cluster"] = e.cluster;
            j["speed_model"] = e.speed_model;
            j["round_s"] = e.round_s;
            j["restart_delay_s"] = e.restart_delay_s;
            j["measure_noise"] = e.measure_noise;
            if (e.interference != "none") j["interference"] = e.interference;
          }
          j["policy_params"] = e.policy_params;
          list.push_back(std::move(j));
        }
        ctx.out << list.dump(2) << "\n";
        return 0;
      }
      for (const auto& e : cl::list_experiments(dir)) {
        std::string pol, seeds;
        for (const auto& p : e.policies) pol += (pol.empty() ? "" : ",") + p;
        for (auto s : e.seeds) {
          if (!seeds.empty()) seeds += ',';
          seeds += std::to_string(s);
        }
        // Names and descriptions come from preset files: shown terminal-safe (core/text_safety.h).
        ctx.out << terminal_safe(e.name) << "\t" << terminal_safe(e.description) << "\t[policies " << terminal_safe(pol)
                << "; seeds " << seeds << "]\n";
        if (verbose) {
          ctx.out << "\tfile " << e.path << "\n\tengine " << e.engine << "\n";
          if (e.engine == "sim")
            ctx.out << "\tcluster " << e.cluster << "\n\tspeed model " << e.speed_model << ", round " << e.round_s
                    << " s, restart delay " << e.restart_delay_s << " s, measurement noise " << e.measure_noise
                    << (e.interference != "none" ? ", interference " + e.interference : std::string()) << "\n";
          for (const auto& [k, v] : e.policy_params) ctx.out << "\tpolicy param " << k << "=" << v << "\n";
        }
      }
      return 0;
    };
  });
}

}  // namespace dmlkit::app
