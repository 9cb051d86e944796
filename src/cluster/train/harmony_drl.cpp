// What the two Harmony trainers share; see harmony_drl.h.
#include "cluster/train/harmony_drl.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <numeric>

#include "cluster/sim/metrics.h"
#include "cluster/train/ps_interval_env.h"
#include "cluster/workload/ps_workload.h"
#include "core/error.h"
#include "core/parallel_for.h"
#include "core/provenance.h"
#include "learn/actor_critic.h"
#include "learn/fifo_replay.h"

namespace dmlkit::cluster {

void check_harmony_drl_config(const HarmonyDrlConfig& c, const std::string& who) {
  auto fail = [&](const std::string& m) { throw Error(who + " training: " + m); };
  if (c.batch < 1 || c.memory < c.batch) fail("--batch must be positive and --memory >= --batch");
  if (c.rm_traces < 1 || c.train_traces < 1 || c.val_traces < 1)
    fail("--rm-traces, --train-traces and --val-traces must be positive");
  if (!(c.rm_holdout >= 0 && c.rm_holdout < 1)) fail("--rm-holdout must be in [0, 1)");
  if (!(c.epsilon_start >= 0 && c.epsilon_start <= 1 && c.epsilon_end >= 0 && c.epsilon_end <= 1))
    fail("epsilon must be in [0, 1]");
  if (!(c.gamma >= 0 && c.gamma < 1)) fail("--gamma must be in [0, 1)");
  if (c.rm_policies.empty() && c.rm_random <= 0) fail("no placer to collect reward-model samples with");
  for (const auto& p : c.rm_policies) (void)policy_registry().get(p);  // Error with "did you mean"
  if (c.imitate != "none" && c.imitate != "auto") (void)policy_registry().get(c.imitate);
  if (c.imitate == "auto" && c.rm_policies.empty()) fail("--imitate auto needs --rm-policies");
  if (c.critic_warmup < 0) fail("--critic-warmup must be >= 0");
  (void)parse_interval_reward(c.reward, who);
  (void)parse_reward_scale(c.reward_scale, who);
  if (c.il_steps < 0 || c.il_traces < 0 || !(c.il_lr > 0)) fail("--il-steps and --il-traces must be >= 0 and --il-lr > 0");
  for (uint64_t s : c.experiment.seeds)
    if (s >= kHarmonyTrainSeedBase)
      fail("evaluation seed " + std::to_string(s) + " overlaps the training traces' seeds (>= 1000000)");
}

void set_interval_reward(const HarmonyDrlConfig& c, const std::string& who, IntervalEnvConfig& env) {
  env.reward = parse_interval_reward(c.reward, who);
  const RewardScale scale = parse_reward_scale(c.reward_scale, who);
  env.reward_per_job = scale != RewardScale::none;
  env.reward_factor = scale == RewardScale::jobs_gamma ? 1.0 - c.gamma : 1.0;
}

learn::RegressionConfig reward_fit_config(const HarmonyDrlConfig& c) {
  learn::RegressionConfig rc;
  rc.epochs = c.rm_epochs;
  rc.batch = 64;
  rc.lr = c.rm_lr;
  rc.holdout = c.rm_holdout;
  rc.seed = c.seed;
  return rc;
}

void put_fit_meta(const learn::RegressionFit& fit, size_t samples, std::map<std::string, std::string>& meta) {
  meta["rm_samples"] = std::to_string(samples);
  meta["rm_holdout_rows"] = std::to_string(fit.holdout_rows.size());
  meta["rm_holdout_mse"] = std::to_string(fit.holdout.mse);
  meta["rm_holdout_mae"] = std::to_string(fit.holdout.mae);
  meta["rm_train_mean_rel_err"] = std::to_string(fit.train.mean_rel_err);
  meta["rm_holdout_mean_rel_err"] = std::to_string(fit.holdout.mean_rel_err);
}

void get_fit_meta(const std::map<std::string, std::string>& meta, learn::RegressionFit& fit, size_t& samples) {
  auto num = [&](const std::string& k) { return meta.count(k) ? std::stod(meta.at(k)) : 0.0; };
  samples = static_cast<size_t>(num("rm_samples"));
  fit.holdout_rows.resize(static_cast<size_t>(num("rm_holdout_rows")));
  fit.holdout.mse = num("rm_holdout_mse");
  fit.holdout.mae = num("rm_holdout_mae");
  fit.holdout.mean_rel_err = num("rm_holdout_mean_rel_err");
  fit.train.mean_rel_err = num("rm_train_mean_rel_err");
}

void put_run_meta(const HarmonyDrlConfig& c, std::map<std::string, std::string>& meta) {
  meta["experiment"] = c.experiment.name;
  meta["interference"] = c.experiment.interference;
  meta["seed"] = std::to_string(c.seed);
  meta["command"] = shell_command_line(c.command);
  meta["critic"] = c.critic ? "on" : "off";
  meta["exploration"] = c.exploration ? "on" : "off";
  meta["replay"] = c.replay ? "on" : "off";
  meta["reward"] = c.reward;
  if (c.reward_scale != "none") meta["reward_scale"] = c.reward_scale;
  if (c.center_advantages) meta["center_advantages"] = "on";
}

HarmonyTraces harmony_traces(const Experiment& e, const std::string& data_dir, int train_traces, int val_traces) {
  HarmonyTraces t;
  for (int k = 0; k < train_traces; ++k) t.train.push_back(ps_workload(e.workload, kHarmonyTrainSeedBase + k, data_dir));
  for (int k = 0; k < val_traces; ++k) {
    t.val_seeds.push_back(kHarmonyValSeedBase + k);
    t.val.push_back(ps_workload(e.workload, kHarmonyValSeedBase + k, data_dir));
  }
  return t;
}

void SpeedRecorderBase::schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) {
  begin();
  for (const JobView& v : jobs) {
    if (!v.running()) continue;
    const PsJobMonitor* m = ps_monitor(v);
    if (m == nullptr) continue;
    record(*v.job->ps, v.placement, m->observed_speed());
  }
  end();
  inner_->schedule(view, jobs, out);
}

std::vector<SampleRun> sample_runs(const HarmonyDrlConfig& c) {
  std::vector<SampleRun> runs;
  for (const auto& p : c.rm_policies)
    for (int k = 0; k < c.rm_traces; ++k) runs.push_back({p, k});
  const int random_runs =
      static_cast<int>(std::lround(c.rm_random * static_cast<double>(c.rm_policies.size() * c.rm_traces)));
  for (int k = 0; k < std::max(random_runs, c.rm_policies.empty() ? 1 : 0); ++k) runs.push_back({"random", k});
  return runs;
}

void run_sample_collection(const HarmonyDrlConfig& c, const std::vector<SampleRun>& runs,
                           const std::function<void(size_t r, uint64_t seed, const Workload& trace)>& run) {
  int n_traces = c.rm_traces;
  for (const SampleRun& r : runs) n_traces = std::max(n_traces, r.trace + 1);
  std::vector<Workload> traces;
  for (int k = 0; k < n_traces; ++k)
    traces.push_back(ps_workload(c.experiment.workload, kHarmonyTrainSeedBase + 500000 + k, c.data_dir));
  parallel_for(runs.size(), std::max(1, c.threads),
               [&](size_t r) { run(r, c.seed * 7919 + r, traces[static_cast<size_t>(runs[r].trace)]); });
}

double mean_validation_jct(const Experiment& e, const std::string& data_dir, const std::vector<Workload>& workloads,
                           int threads, const std::string& name,
                           const std::function<std::unique_ptr<Policy>(size_t i, const ClusterSpec& cluster)>& make) {
  const ClusterSpec cluster = ClusterSpec::parse(e.cluster);
  const SimConfig config = experiment_sim_config(e, data_dir);
  std::vector<double> jct(workloads.size());
  parallel_for(workloads.size(), std::max(1, threads), [&](size_t i) {
    const std::unique_ptr<Policy> policy = make(i, cluster);
    const SimResult r = simulate(cluster, workloads[i], name, *policy, config);
    const auto m = compute_metrics(r);
    // A policy that leaves jobs unfinished (e.g. one that keeps making them wait) is never better
    // than one that finishes them: the mean over the finished jobs alone would flatter it.
    jct[i] = m.finished < r.jobs.size() ? std::numeric_limits<double>::infinity() : m.avg_jct_s;
  });
  return std::accumulate(jct.begin(), jct.end(), 0.0) / static_cast<double>(std::max<size_t>(1, jct.size()));
}

std::map<std::string, double> baseline_validation_jct(const HarmonyDrlConfig& c, const ClusterSpec& cluster,
                                                      const SimConfig& sim, const HarmonyTraces& t) {
  std::map<std::string, double> out;
  for (const auto& p : c.rm_policies) {
    std::vector<double> jct(t.val.size());
    parallel_for(t.val.size(), std::max(1, c.threads), [&](size_t i) {
      PolicyOptions o;
      o.seed = t.val_seeds[i];
      auto pol = make_policy(p, o);
      jct[i] = compute_metrics(simulate(cluster, t.val[i], p, *pol, sim)).avg_jct_s;
    });
    out[p] = std::accumulate(jct.begin(), jct.end(), 0.0) / static_cast<double>(jct.size());
  }
  return out;
}

void add_optimizer_states(learn::ModelFile& f, const learn::MlpTrainerEngine& pnet, const learn::MlpTrainerEngine* vnet) {
  f.extra["policy_adam"] = pnet.optimizer_state();
  if (vnet) f.extra["value_adam"] = vnet->optimizer_state();
}

void restore_optimizer_states(const learn::ModelFile& f, const std::string& file, learn::MlpTrainerEngine& pnet,
                              learn::MlpTrainerEngine* vnet) {
  auto adam = [&](const char* name, learn::MlpTrainerEngine& t) {
    auto it = f.extra.find(name);
    if (it == f.extra.end()) throw Error(file, 0, std::string("extra.") + name, "missing");
    t.set_optimizer_state(it->second);
  };
  adam("policy_adam", pnet);
  if (vnet) adam("value_adam", *vnet);
}

long check_resume_meta(const std::map<std::string, std::string>& meta, const HarmonyDrlConfig& c, const std::string& file) {
  const std::map<std::string, std::string> want = {
      {"experiment", c.experiment.name}, {"interference", c.experiment.interference}, {"seed", std::to_string(c.seed)}};
  for (const auto& [k, v] : want) {
    auto it = meta.find(k);
    if (it == meta.end() || it->second != v)
      throw Error(file, 0, "meta." + k, "--resume: the checkpoint was made with another " + k);
  }
  auto it = meta.find("step");
  return it == meta.end() ? 0 : std::stol(it->second);
}

namespace {
struct StopTraining {};
}  // namespace

void run_harmony_drl(const HarmonyDrlConfig& c, const HarmonyDrlRun& run, HarmonyDrlSteps& steps,
                     learn::MlpTrainerEngine& pnet, learn::MlpTrainerEngine* vnet, const HarmonyDrlHooks& h,
                     long& step, HarmonyDrlResult& res,
                     const std::function<void(const std::string&, long, long, const std::string&)>& report) {
  const int d = run.state_size, A = run.actions;
  auto path = [&](const std::string& name) { return (std::filesystem::path(run.dir) / name).string(); };
  learn::FifoReplay replay(static_cast<size_t>(c.memory), d, A);
  Rng rng = Rng(c.seed).split(0x5a3 + run.rng_offset);
  double model_jct_sum = 0;
  long model_jct_n = 0;
  learn::ActorCriticBatch batch;
  std::vector<size_t> slots, latest;
  std::vector<double> episode_rewards;
  auto epsilon = [&]() {
    if (!c.exploration) return 0.0;
    const double f =
        c.epsilon_steps > 0 ? std::min(1.0, static_cast<double>(step) / static_cast<double>(c.epsilon_steps)) : 1.0;
    return c.epsilon_start + (c.epsilon_end - c.epsilon_start) * f;
  };
  auto update = [&](const std::vector<size_t>& rows) {
    batch.reset(d, A);
    for (size_t k : rows) batch.add(replay.state(k), replay.mask(k), replay.action(k), replay.target(k));
    pnet.set_learning_rate(step < run.critic_warmup ? 0.0 : c.lr);
    const learn::ActorCriticStats st =
        learn::add_actor_critic_gradients(batch, pnet, vnet, h.baseline, c.entropy_weight, nullptr, c.standardize,
                                          c.center_advantages);
    pnet.step(1);
    if (vnet) {
      vnet->step(1);
      h.set_critic(vnet->parameters());
    }
    ++step;
    h.set_actor(pnet.parameters());
    h.set_epsilon(epsilon());
    res.curve.push_back({step, st.policy_loss, st.value_loss, st.entropy, epsilon(), -1});
    report("rl", step, c.rl_steps, "");
    if (step % c.checkpoint_every == 0 || step == c.rl_steps) h.save("checkpoint.json", "rl", step);
    if (step % c.val_every == 0 || step == c.rl_steps) {
      h.save("last.json", "rl", step);
      const double j = h.validate();
      res.curve.back().val_avg_jct_s = j;
      if (model_jct_n > 0) res.curve.back().model_avg_jct_s = model_jct_sum / static_cast<double>(model_jct_n);
      model_jct_sum = 0;
      model_jct_n = 0;
      res.last_val_jct_s = j;
      res.last_model = path("last.json");
      if (j < res.best_val_jct_s) {
        res.best_val_jct_s = j;
        res.best_step = step;
        h.save("best.json", "rl-best", step);
      }
      report("rl", step, c.rl_steps, "val JCT " + std::to_string(j));
    }
    if (step >= c.rl_steps) throw StopTraining{};
  };
  auto push = [&](size_t k, double target) {
    latest.push_back(replay.add(steps.states.data() + k * d, steps.masks.data() + k * A, steps.actions[k],
                                static_cast<float>(target)));
  };
  const auto on_interval = [&](double reward) {
    ++res.intervals;
    episode_rewards.push_back(reward);
    ++steps.current;
    latest.clear();
    if (c.gamma <= 0) {
      for (size_t k = 0; k < steps.actions.size(); ++k) push(k, reward);
      steps.clear();
    }
    if (c.replay && replay.size() >= static_cast<size_t>(c.batch)) {
      replay.sample(static_cast<size_t>(c.batch), rng, slots);
      update(slots);
    } else if (!c.replay && !latest.empty()) {
      update(latest);
    }
  };
  h.set_epsilon(epsilon());
  if (step >= c.rl_steps) return;
  try {
    for (long ep = 0;; ++ep) {
      ++res.episodes;
      episode_rewards.clear();
      steps.clear();
      steps.current = 0;
      const double model_jct = h.episode(ep, step, on_interval);
      if (model_jct >= 0) {
        model_jct_sum += model_jct;
        ++model_jct_n;
      }
      if (c.gamma > 0) {
        const std::vector<double> ret = learn::discounted_returns(episode_rewards, c.gamma);
        latest.clear();
        for (size_t k = 0; k < steps.actions.size(); ++k)
          push(k, steps.interval[k] < static_cast<long>(ret.size()) ? ret[static_cast<size_t>(steps.interval[k])] : 0.0);
        steps.clear();
        if (!c.replay && !latest.empty()) update(latest);
      }
      if (ep > 100000) throw Error(run.who + " training: no update after 100000 episodes (no job could be placed?)");
    }
  } catch (const StopTraining&) {
  }
}

}  // namespace dmlkit::cluster
