// `dmlkit cluster experiments` (list the presets in experiments/) and
// `dmlkit cluster compare --experiment NAME` (run one over its seeds): results.json with one record
// per (policy, seed) and a per-policy summary (mean, standard deviation, min, max), CSV tables and
// report.html, the same layout as `cluster compare` on a workload (docs/results-schema.md). Runs
// go in parallel (--threads). See docs/optimus.md.
#include "dmlkit/run_output.h"
#include "dmlkit/cluster/cluster_experiment.h"
#include "dmlkit/python_plugin.h"

#include <memory>
#include <ostream>

#include "cluster/workload/experiment.h"
#include "core/output_dir.h"
#include "core/parallel_for.h"
#include "core/progress.h"
#include "core/text_safety.h"

namespace dmlkit::app {

namespace cl = dmlkit::cluster;

void validate_cluster_experiment(const ExperimentCliOptions& o) { cl::check(o.spec); }

int run_cluster_experiment(const ExperimentCliOptions& o, Context& ctx) {
  const std::string out_path = o.out.empty() ? "out/cluster-compare-" + cl::experiment_name(o.spec) : o.out;
  check_output_target(out_path);  // the default folder too, before the runs
  cl::ExperimentSpec spec = o.spec;
  if (!o.policy_files.empty()) spec.extra_policies = register_python_policies(o.policy_files);
  // Serial: "policy seed N" of the run starting; parallel: runs started so far (display only).
  const bool serial = resolve_threads(spec.threads) <= 1;
  std::unique_ptr<ProgressBar> bar;
  size_t started = 0;
  cl::RunProgress progress;
  progress.on_begin = [&](const std::string& label, size_t runs, size_t) {
    bar = std::make_unique<ProgressBar>(label, static_cast<double>(runs));
  };
  progress.on_start = [&](size_t i, const std::string& what) {
    started = i + 1;
    bar->update(static_cast<double>(i), serial ? what : "");
  };
  const cl::ExperimentOutput run = cl::run(spec, progress);
  if (bar) {
    bar->update(static_cast<double>(started));
    bar->finish();
  }
  OutputDir out(out_path);
  run.write(out);
  const std::string path = commit_output(out);
  ctx.out << run.summary(o.format);
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
