// A run of an experiment preset over its seeds (cluster/run.h, ExperimentSpec): the round-based
// simulator's presets through run_experiment (cluster/workload/experiment.h), OASiS-model presets
// through run_oasis_experiment (cluster/oasis/oasis_experiment.h).
#include <algorithm>
#include <sstream>

#include "cluster/oasis/method.h"
#include "cluster/oasis/oasis_experiment.h"
#include "cluster/policy.h"
#include "cluster/report/experiment_report.h"
#include "cluster/report/results.h"
#include "cluster/run.h"
#include "cluster/speed/interference.h"
#include "cluster/workload/experiment.h"
#include "core/data_dir.h"
#include "core/error.h"
#include "core/parallel_for.h"
#include "core/text_safety.h"

namespace dmlkit::cluster {

namespace {

namespace oa = dmlkit::cluster::oasis;

std::string dir_of(const ExperimentSpec& s) {
  return s.experiments_dir.empty() ? default_experiments_dir() : s.experiments_dir;
}
std::string data_dir_of(const ExperimentSpec& s) { return s.data_dir.empty() ? default_data_dir() : s.data_dir; }

void add_missing(std::vector<std::string>& list, const std::vector<std::string>& names) {
  for (const auto& n : names)
    if (std::find(list.begin(), list.end(), n) == list.end()) list.push_back(n);
}

std::string seed_list(const std::vector<uint64_t>& seeds) {
  std::string out;
  for (auto s : seeds) out += (out.empty() ? "" : ",") + std::to_string(s);
  return out;
}

// The preset with the spec's overrides; the user's knobs checked against the policies that run
// (the preset's own knobs may name a policy --policies dropped; make_policy still rejects a knob
// no policy has).
Experiment sim_experiment(const ExperimentSpec& s, Experiment e) {
  if (!s.policies.empty()) e.policies = s.policies;
  if (!s.seeds.empty()) e.seeds = s.seeds;
  if (!s.interference.empty()) e.interference = s.interference;
  if (!s.interference_file.empty()) e.interference_file = s.interference_file;
  add_missing(e.policies, s.extra_policies);
  KnobValues user;
  add_policy_params(user, s.policy_params);
  check_policy_params(e.policies, user);
  for (const auto& [k, v] : user) e.policy_params[k] = v;
  return e;
}

oa::OasisExperiment oasis_experiment(const ExperimentSpec& s, const std::string& path) {
  oa::OasisExperiment e = oa::load_oasis_experiment(path);
  if (!s.policies.empty()) {
    for (const auto& m : s.policies) oa::oasis_method_registry().get(m);
    e.methods = s.policies;
  }
  if (!s.seeds.empty()) e.seeds = s.seeds;
  KnobValues user;
  add_knob_values(user, s.policy_params, "--policy-param");
  oa::oasis_method_registry().check_knobs(e.methods, user);
  for (const auto& [k, v] : user) e.params[k] = v;
  return e;
}

ExperimentOutput run_sim(const ExperimentSpec& s, const Experiment& preset, const RunProgress& progress) {
  const Experiment e = sim_experiment(s, preset);
  const ClusterSpec cluster = ClusterSpec::parse(e.cluster);
  if (progress.on_begin) progress.on_begin(e.name, e.policies.size() * e.seeds.size(), 0);
  size_t started = 0;
  std::function<void(const std::string&, uint64_t)> on_run;
  if (progress.on_start)
    on_run = [&](const std::string& policy, uint64_t seed) {
      progress.on_start(started++, policy + " seed " + std::to_string(seed));
    };
  const auto runs = run_experiment(e, data_dir_of(s), on_run, resolve_threads(s.threads));
  ExperimentOutput out;
  out.name = e.name;
  out.results = experiment_results(e, cluster, runs);
  for (const auto& r : runs) {
    const std::string stem = run_file_stem(r.policy, r.seed);
    std::ostringstream jobs, rounds;
    write_jobs_csv(jobs, r.result);
    write_rounds_csv(rounds, r.result);
    out.files.push_back({"jobs-" + stem + ".csv", jobs.str()});
    out.files.push_back({"rounds-" + stem + ".csv", rounds.str()});
  }
  const Results& res = out.results;
  out.make_report = [e, cluster, res] { return experiment_report(e, cluster, res); };
  out.header = "experiment " + terminal_safe(e.name) + ": " + std::to_string(e.workload.num_jobs) + " PS jobs on " +
               std::to_string(cluster.num_servers()) + " servers, speed model " + e.speed_model +
               (e.interference != "none" ? ", interference " + e.interference : std::string()) + ", seeds " +
               seed_list(e.seeds) + "\n\n";
  out.table = seed_summary_table(res, e.round_s);
  return out;
}

std::string oasis_header(const oa::OasisExperiment& e, const std::vector<oa::OasisRunRecord>& runs) {
  std::string h =
      "experiment " + terminal_safe(e.name) + " (engine oasis): " +
      (e.shared_pool ? std::to_string(e.worker_servers + e.ps_servers) + " servers (shared pool)"
                     : std::to_string(e.worker_servers) + " worker + " + std::to_string(e.ps_servers) + " PS servers") +
      ", " + std::to_string(e.horizon_slots) + " slots, seeds " + seed_list(e.seeds) + "\n";
  for (const auto& r : runs)
    if (!r.log.empty()) {
      for (const auto& l : r.log) h += "  " + l + "\n";
      h += "  theoretical competitive ratio 2*alpha = " + fixed(r.theoretical_ratio, 2) + "\n";
      break;
    }
  return h + "\n";
}

ExperimentOutput run_oasis(const ExperimentSpec& s, const std::string& path, const RunProgress& progress) {
  const oa::OasisExperiment e = oasis_experiment(s, path);
  if (progress.on_begin) progress.on_begin(e.name, oa::sweep_points(e).size() * e.seeds.size(), 0);
  size_t started = 0;
  const auto runs = oa::run_oasis_experiment(e, data_dir_of(s), resolve_threads(s.threads), [&] {
    if (progress.on_start) progress.on_start(started++, "");
  });
  ExperimentOutput out;
  out.name = e.name;
  out.results = oa::oasis_results(e, runs);
  const Results& res = out.results;
  out.make_report = [e, res] { return oa::oasis_report(e, res); };
  out.header = oasis_header(e, runs);
  out.table = oa::oasis_summary_table(res);
  return out;
}

}  // namespace

std::string experiment_name(const ExperimentSpec& spec) { return load_experiment(spec.experiment, dir_of(spec)).name; }

void check(const ExperimentSpec& spec) {
  const Experiment preset = load_experiment(spec.experiment, dir_of(spec));
  if (preset.engine == "oasis") {
    (void)oasis_experiment(spec, preset.path);
    return;
  }
  const Experiment e = sim_experiment(spec, preset);
  (void)ClusterSpec::parse(e.cluster);
  (void)make_interference_model(e.interference, data_dir_of(spec), e.interference_file);
}

ExperimentOutput run(const ExperimentSpec& spec, const RunProgress& progress) {
  const Experiment preset = load_experiment(spec.experiment, dir_of(spec));
  if (preset.engine == "oasis") return run_oasis(spec, preset.path, progress);
  return run_sim(spec, preset, progress);
}

std::string ExperimentOutput::summary(const std::string& format) const {
  if (format == "json") return results.json_text();
  if (format == "csv") return table.to_csv();
  return header + table.render();
}

void ExperimentOutput::write(OutputDir& out) const {
  results.write(out);
  for (const auto& f : files) out.write(f.name, f.content);
  report().write(out);
}

}  // namespace dmlkit::cluster
