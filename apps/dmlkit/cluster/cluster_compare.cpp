// `dmlkit cluster compare`: several policies on the same workload, one table, one report; or, with
// --experiment NAME, an experiment preset of experiments/ over its seeds (cluster_experiment.cpp).
#include "cluster/workload/experiment.h"
#include "dmlkit/folder_help.h"
#include "dmlkit/cluster/cluster_experiment.h"
#include "dmlkit/cluster/cluster_run.h"
#include "dmlkit/option_checks.h"
#include "core/error.h"
#include "dmlkit/python_plugin.h"

namespace dmlkit::app {
namespace {

// What --experiment takes from the command line; every other option of `cluster compare` is set
// by the preset.
const std::vector<std::string> kExperimentOverrides = {
    "experiment", "experiments-dir", "policies", "seeds",   "seed",         "policy-param",     "policy-file",
    "out",        "format",          "data-dir", "threads", "interference", "interference-file"};

}  // namespace

void add_cluster_compare_command(CLI::App& cluster, Context& ctx) {
  auto& o = ctx.make<ClusterCliOptions>();
  auto& policies = ctx.make<std::vector<std::string>>();
  auto& exp = ctx.make<ExperimentCliOptions>();
  policies = {"fifo", "srtf", "drf", "tetris", "tiresias"};
  exp.spec.experiments_dir = cluster::default_experiments_dir();
  auto* cmd = cluster.add_subcommand("compare", "Compare scheduling policies on the same workload");
  cmd->add_option("--policies", policies, "Comma-separated policy names")->delimiter(',')->capture_default_str();
  add_cluster_run_options(*cmd, o);
  cmd->add_option("--experiment", exp.spec.experiment,
                  "Run an experiment preset (name from `dmlkit cluster experiments`, or a file) over its seeds; "
                  "--policies, --seeds, --seed, --policy-param, --out, --format, --data-dir and --threads apply; "
                  "any other option is an error");
  cmd->add_option("--seeds", exp.spec.seeds, "With --experiment: comma-separated seeds replacing the preset's")
      ->delimiter(',');
  cmd->add_option("--experiments-dir", exp.spec.experiments_dir,
                  std::string("Folder of experiment presets (") + kExperimentsDirDefault + ")");
  cmd->add_option("--threads", o.spec.threads,
                  "Runs in parallel (policies, or policies x seeds with --experiment); 0 = all hardware threads, "
                  "1 = serial; results do not depend on it")
      ->check(at_least(0))
      ->capture_default_str();
  cmd->callback([&, cmd] {
    if (!exp.spec.experiment.empty()) {
      // The preset fixes the workload, cluster and simulator settings: an option it would ignore
      // is an error, not a silent no-op (issue 20).
      reject_options_given(*cmd, kExperimentOverrides,
                           "has no effect with --experiment (the preset sets it: edit a copy of the preset, or "
                           "drop --experiment)");
      if (cmd->count("--policies") > 0) exp.spec.policies = policies;
      if (cmd->count("--seed") > 0 && exp.spec.seeds.empty()) exp.spec.seeds = {o.spec.seed};
      exp.spec.policy_params = o.spec.policy_params;
      exp.out = o.out;
      exp.format = o.format;
      exp.spec.data_dir = o.spec.data_dir;
      exp.spec.threads = o.spec.threads;
      exp.policy_files = o.policy_files;
      if (cmd->count("--interference") > 0) exp.spec.interference = o.spec.interference;
      exp.spec.interference_file = o.spec.interference_file;
      ctx.run = [&] { return run_cluster_experiment(exp, ctx); };
      ctx.validate = [&] { validate_cluster_experiment(exp); };
      return;
    }
    if (!exp.spec.seeds.empty())
      throw Error(
          "--seeds: needs --experiment (a preset averages over seeds); one workload runs one --seed, and a sweep "
          "over seeds is `dmlkit sweep`");
    o.spec.policies = policies;
    o.spec.command = "cluster compare";
    if (o.out.empty()) o.out = "out/cluster-compare";
    ctx.run = [&] {
      append_missing(o.spec.policies, register_python_policies(o.policy_files));  // Python policies run too
      return run_cluster_policies(o, ctx);
    };
    ctx.validate = [&] {
      append_missing(o.spec.policies, register_python_policies(o.policy_files));
      validate_cluster_run(o);
    };
  });
}

}  // namespace dmlkit::app
