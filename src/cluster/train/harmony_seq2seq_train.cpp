// Training harmony-seq2seq: seq2seq reward model, then DRL on it; see harmony_seq2seq_train.h.
#include "cluster/train/harmony_seq2seq_train.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>
#include <numeric>

#include "cluster/policies/harmony_seq2seq/seq2seq_policy.h"
#include "cluster/sim/metrics.h"
#include "cluster/train/harmony_seq2seq_env.h"
#include "core/error.h"
#include "core/parallel_for.h"
#include "learn/actor_critic.h"
#include "learn/fifo_replay.h"
#include "learn/mlp_trainer.h"

namespace dmlkit::cluster {

namespace {

constexpr uint64_t kTrainSeedBase = 1000000;  // training traces (as harmony's)
constexpr uint64_t kValSeedBase = 2000000;    // validation traces

struct StopTraining {};

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : " ") + x;
  return s;
}

// Runs a placer and records, at every decision, the running jobs' placements and measured speeds.
class S2sSpeedRecorder final : public Policy {
 public:
  S2sSpeedRecorder(std::unique_ptr<Policy> inner, std::vector<S2sSpeedSample>& out)
      : inner_(std::move(inner)), out_(out) {}
  void schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) override {
    S2sSpeedSample s;
    for (const JobView& v : jobs) {
      if (!v.running()) continue;
      const PsJobMonitor* m = ps_monitor(v);
      if (m == nullptr) continue;
      s.jobs.push_back(s2s_placed_job(*v.job->ps, v.placement));
      s.speeds.push_back(m->observed_speed());
    }
    if (!s.jobs.empty()) out_.push_back(std::move(s));
    inner_->schedule(view, jobs, out);
  }
  const char* ps_assignment() const override { return inner_->ps_assignment(); }
  bool handles_ps_jobs() const override { return inner_->handles_ps_jobs(); }
  bool charges_restarts() const override { return inner_->charges_restarts(); }

 private:
  std::unique_ptr<Policy> inner_;
  std::vector<S2sSpeedSample>& out_;
};

// Equal logits everywhere: the masked distribution is uniform over the servers with room.
Seq2SeqModel uniform_model(int max_jobs, int max_servers) {
  Seq2SeqModel m;
  m.policy.shape = s2s_policy_shape(4, 1, max_jobs, max_servers);
  m.policy.parameters.assign(m.policy.shape.parameter_count(), 0.0f);
  return m;
}

}  // namespace

learn::RegressionData s2s_reward_rows(const learn::AttnShape& shape, int servers,
                                      const std::vector<S2sSpeedSample>& samples, const std::vector<float>& scale) {
  learn::RegressionData d;
  d.inputs = shape.inputs();
  d.outputs = shape.outputs();
  std::vector<float> tokens, row(static_cast<size_t>(d.inputs)), y(static_cast<size_t>(d.outputs)),
      w(static_cast<size_t>(d.outputs));
  for (const S2sSpeedSample& s : samples) {
    // More jobs than the row holds: the first max_jobs (the reward model sees all jobs' co-location
    // features either way; only the encoder's context is cut) [A].
    const size_t n = std::min(s.jobs.size(), static_cast<size_t>(shape.max_jobs));
    if (n == 0) continue;
    s2s_reward_tokens(s.jobs, servers, tokens);
    learn::attn_encode(shape, static_cast<int>(n), 0, 0, tokens.data(), nullptr, nullptr, row.data());
    std::fill(y.begin(), y.end(), 0.0f);
    std::fill(w.begin(), w.end(), 0.0f);
    for (size_t j = 0; j < n; ++j) {
      y[j] = static_cast<float>(s.speeds[j] / scale[static_cast<size_t>(s2s_scale_index(s.jobs[j]))]);
      w[j] = 1.0f;
    }
    d.add(row.data(), y.data(), w.data());
  }
  return d;
}

double s2s_validation_jct(const Experiment& e, const std::string& data_dir, const Seq2SeqModel& model,
                          const std::vector<Workload>& workloads, const std::vector<uint64_t>& seeds, int threads) {
  const ClusterSpec cluster = ClusterSpec::parse(e.cluster);
  const SimConfig config = experiment_sim_config(e, data_dir);
  std::vector<double> jct(workloads.size());
  parallel_for(workloads.size(), std::max(1, threads), [&](size_t i) {
    Seq2SeqPolicy policy(model, true, seeds[i]);
    jct[i] = compute_metrics(simulate(cluster, workloads[i], "harmony-seq2seq", policy, config)).avg_jct_s;
  });
  return std::accumulate(jct.begin(), jct.end(), 0.0) / static_cast<double>(std::max<size_t>(1, jct.size()));
}

void check_s2s_train_config(const S2sTrainConfig& c) {
  auto fail = [](const std::string& m) { throw Error("harmony-seq2seq training: " + m); };
  if (c.embed < 1 || c.heads < 1 || c.embed % c.heads != 0 || c.rm_embed < 1 || c.rm_heads < 1 ||
      c.rm_embed % c.rm_heads != 0)
    fail("--embed/--rm-embed must be positive multiples of --heads/--rm-heads");
  if (c.max_jobs < 2) fail("--max-jobs must be at least 2");
  if (c.batch < 1 || c.memory < c.batch) fail("--batch must be positive and --memory >= --batch");
  if (c.rm_traces < 1 || c.train_traces < 1 || c.val_traces < 1)
    fail("--rm-traces, --train-traces and --val-traces must be positive");
  if (!(c.rm_holdout >= 0 && c.rm_holdout < 1)) fail("--rm-holdout must be in [0, 1)");
  if (!(c.epsilon_start >= 0 && c.epsilon_start <= 1 && c.epsilon_end >= 0 && c.epsilon_end <= 1))
    fail("epsilon must be in [0, 1]");
  if (!(c.gamma >= 0 && c.gamma < 1)) fail("--gamma must be in [0, 1)");
  if (c.rl_steps < 0 || c.val_every < 1 || c.checkpoint_every < 1) fail("--rl-steps >= 0, --val-every and --checkpoint-every >= 1");
  if (!(c.lr > 0) || !(c.rm_lr > 0) || !(c.entropy_weight >= 0)) fail("learning rates must be positive, the entropy weight >= 0");
  if (c.rm_policies.empty() && c.rm_random <= 0) fail("no placer to collect reward-model samples with");
  for (const auto& p : c.rm_policies) (void)policy_registry().get(p);
  for (uint64_t s : c.experiment.seeds)
    if (s >= kTrainSeedBase)
      fail("evaluation seed " + std::to_string(s) + " overlaps the training traces' seeds (>= 1000000)");
}

S2sTrainResult train_harmony_seq2seq(
    const S2sTrainConfig& c, const std::string& dir,
    const std::function<void(const std::string&, long, long, const std::string&)>& progress) {
  check_s2s_train_config(c);
  auto path = [&](const std::string& name) { return (std::filesystem::path(dir) / name).string(); };
  if (c.resume && (!std::filesystem::is_regular_file(path("checkpoint.json")) ||
                   !std::filesystem::is_regular_file(path("reward.json"))))
    throw Error(path("checkpoint.json"), 0, "", "--resume: no checkpoint.json and reward.json in the output folder");
  std::filesystem::create_directories(dir);
  auto report = [&](const std::string& phase, long step, long total, const std::string& detail) {
    if (progress) progress(phase, step, total, detail);
  };
  S2sTrainResult res;
  const Experiment& e = c.experiment;
  const ClusterSpec cluster = ClusterSpec::parse(e.cluster);
  const SimConfig sim = experiment_sim_config(e, c.data_dir);
  const int M = cluster.num_servers();
  std::vector<Workload> train, val;
  std::vector<uint64_t> val_seeds;
  for (int k = 0; k < c.train_traces; ++k) train.push_back(ps_workload(e.workload, kTrainSeedBase + k, c.data_dir));
  for (int k = 0; k < c.val_traces; ++k) {
    val_seeds.push_back(kValSeedBase + k);
    val.push_back(ps_workload(e.workload, kValSeedBase + k, c.data_dir));
  }
  const auto t0 = std::chrono::steady_clock::now();

  Seq2SeqModel model;
  learn::ModelFile checkpoint;
  if (c.resume) {
    checkpoint = learn::load_model_file(path("checkpoint.json"));
    model = load_s2s_model(path("checkpoint.json"));
    for (const char* k : {"experiment", "interference", "seed"})
      if (model.meta[k] != (std::string(k) == "experiment" ? e.name : std::string(k) == "interference" ? e.interference : std::to_string(c.seed)))
        throw Error(path("checkpoint.json"), 0, std::string("meta.") + k, "--resume: the checkpoint was made with another " + std::string(k));
    res.start_step = std::stol(model.meta.count("step") ? model.meta["step"] : "0");
    auto num = [&](const std::string& k) { return model.meta.count(k) ? std::stod(model.meta.at(k)) : 0.0; };
    res.rm_samples = static_cast<size_t>(num("rm_samples"));
    res.rm_fit.holdout_rows.resize(static_cast<size_t>(num("rm_holdout_rows")));
    res.rm_fit.holdout.mse = num("rm_holdout_mse");
    res.rm_fit.holdout.mae = num("rm_holdout_mae");
    res.rm_fit.holdout.mean_rel_err = num("rm_holdout_mean_rel_err");
    res.rm_fit.train.mean_rel_err = num("rm_train_mean_rel_err");
  } else {
    // ---- 1. reward-model samples from the baselines (and random placements) in the simulator
    struct Run {
      std::string policy;
      int trace;
    };
    std::vector<Run> runs;
    for (const auto& p : c.rm_policies)
      for (int k = 0; k < c.rm_traces; ++k) runs.push_back({p, k});
    const int random_runs =
        static_cast<int>(std::lround(c.rm_random * static_cast<double>(c.rm_policies.size() * c.rm_traces)));
    for (int k = 0; k < std::max(random_runs, c.rm_policies.empty() ? 1 : 0); ++k) runs.push_back({"random", k});
    std::vector<std::vector<S2sSpeedSample>> per_run(runs.size());
    std::vector<Workload> rm_traces;
    const int n_rm_traces = std::max(c.rm_traces, random_runs);
    for (int k = 0; k < n_rm_traces; ++k)
      rm_traces.push_back(ps_workload(e.workload, kTrainSeedBase + 500000 + k, c.data_dir));
    report("samples", 0, static_cast<long>(runs.size()), "");
    std::atomic<long> done{0};
    parallel_for(runs.size(), std::max(1, c.threads), [&](size_t r) {
      PolicyOptions o;
      o.seed = c.seed * 7919 + r;
      std::unique_ptr<Policy> inner;
      if (runs[r].policy == "random")
        inner = std::make_unique<Seq2SeqPolicy>(uniform_model(c.max_jobs, M), false, o.seed);
      else
        inner = make_policy(runs[r].policy, o);
      S2sSpeedRecorder rec(std::move(inner), per_run[r]);
      simulate(cluster, rm_traces[static_cast<size_t>(runs[r].trace)], runs[r].policy, rec, sim);
      ++done;
    });
    report("samples", static_cast<long>(runs.size()), static_cast<long>(runs.size()), "");
    std::vector<S2sSpeedSample> samples;
    for (auto& pr : per_run)
      for (auto& s : pr) samples.push_back(std::move(s));
    std::vector<float> scale(2 * kS2sTypes, 0.0f);
    size_t most_jobs = 1;
    for (const auto& s : samples) {
      most_jobs = std::max(most_jobs, s.jobs.size());
      for (size_t j = 0; j < s.jobs.size(); ++j) {
        float& v = scale[static_cast<size_t>(s2s_scale_index(s.jobs[j]))];
        v = std::max(v, static_cast<float>(s.speeds[j]));
      }
    }
    for (float& v : scale)
      if (!(v > 0)) v = 1.0f;
    res.rm_samples = samples.size();
    model.speed_scale = scale;
    model.reward.shape = s2s_reward_shape(c.rm_embed, c.rm_heads, static_cast<int>(std::min<size_t>(most_jobs, 64)));
    const learn::RegressionData data = s2s_reward_rows(model.reward.shape, M, samples, scale);
    if (data.rows() < 2) throw Error("harmony-seq2seq training: the placers produced no reward-model sample");
    Rng init = Rng(c.seed).split(0x2e3);
    learn::RegressionConfig rc;
    rc.epochs = c.rm_epochs;
    rc.batch = 64;
    rc.lr = c.rm_lr;
    rc.holdout = c.rm_holdout;
    rc.seed = c.seed;
    report("reward model", 0, c.rm_epochs, "");
    auto engine = learn::make_attn_trainer(model.reward.shape, learn::attn_initial_parameters(model.reward.shape, init), c.rm_lr);
    const learn::AttnShape rshape = model.reward.shape;
    res.rm_fit = learn::fit_regression_engine(
        *engine,
        [rshape](const std::vector<float>& p) -> learn::RowPredictor {
          auto net = std::make_shared<learn::AttnForward>(rshape, p);
          return [net](const float* row) -> const std::vector<float>& { return net->run_row(row); };
        },
        data, rc, [&](int ep, double mse) { report("reward model", ep, c.rm_epochs, "hold-out MSE " + std::to_string(mse)); });
    model.reward.parameters = res.rm_fit.parameters;
    model.meta["rm_samples"] = std::to_string(res.rm_samples);
    model.meta["rm_holdout_rows"] = std::to_string(res.rm_fit.holdout_rows.size());
    model.meta["rm_holdout_mse"] = std::to_string(res.rm_fit.holdout.mse);
    model.meta["rm_holdout_mae"] = std::to_string(res.rm_fit.holdout.mae);
    model.meta["rm_train_mean_rel_err"] = std::to_string(res.rm_fit.train.mean_rel_err);
    model.meta["rm_holdout_mean_rel_err"] = std::to_string(res.rm_fit.holdout.mean_rel_err);
    model.meta["experiment"] = e.name;
    model.meta["interference"] = e.interference;
    model.meta["seed"] = std::to_string(c.seed);
    // The reward model alone (resume starts from it).
    Seq2SeqModel rm_only = model;
    rm_only.policy.shape = s2s_policy_shape(c.embed, c.heads, c.max_jobs, M);
    rm_only.policy.parameters.assign(rm_only.policy.shape.parameter_count(), 0.0f);
    learn::ModelFile f = s2s_model_file(rm_only);
    f.kind = "harmony-seq2seq";
    learn::save_model_file(path("reward.json"), f);
  }
  model.meta["experiment"] = e.name;
  model.meta["interference"] = e.interference;
  model.meta["seed"] = std::to_string(c.seed);
  model.meta["command"] = join(c.command);
  model.meta["critic"] = c.critic ? "on" : "off";
  model.meta["exploration"] = c.exploration ? "on" : "off";
  model.meta["replay"] = c.replay ? "on" : "off";
  const auto t1 = std::chrono::steady_clock::now();
  res.rm_seconds = std::chrono::duration<double>(t1 - t0).count();

  // ---- baselines on the validation traces (the targets)
  for (const auto& p : c.rm_policies) {
    std::vector<double> jct(val.size());
    parallel_for(val.size(), std::max(1, c.threads), [&](size_t i) {
      PolicyOptions o;
      o.seed = val_seeds[i];
      auto pol = make_policy(p, o);
      jct[i] = compute_metrics(simulate(cluster, val[i], p, *pol, sim)).avg_jct_s;
    });
    res.baseline_val_jct_s[p] = std::accumulate(jct.begin(), jct.end(), 0.0) / static_cast<double>(jct.size());
  }

  // ---- 2. DRL on the reward model
  const learn::AttnShape pshape = s2s_policy_shape(c.embed, c.heads, c.max_jobs, M);
  const learn::AttnShape vshape = s2s_value_shape(c.embed, c.heads, c.max_jobs, M);
  if (!c.resume) {
    Rng init = Rng(c.seed).split(0x1a17);
    model.policy.shape = pshape;
    model.policy.parameters = learn::attn_initial_parameters(pshape, init);
    if (c.critic) {
      model.value.shape = vshape;
      model.value.parameters = learn::attn_initial_parameters(vshape, init);
    }
  } else {
    model.policy.shape = pshape;
    if (c.critic && model.value.empty())
      throw Error(path("checkpoint.json"), 0, "extra.value", "--resume: the checkpoint has no critic");
    model.value.shape = vshape;
  }
  auto pnet = learn::make_attn_trainer(pshape, model.policy.parameters, c.lr);
  std::unique_ptr<learn::MlpTrainerEngine> vnet;
  std::unique_ptr<learn::AttnForward> vforward;
  if (c.critic) {
    vnet = learn::make_attn_trainer(vshape, model.value.parameters, c.lr);
    vforward = std::make_unique<learn::AttnForward>(vshape, model.value.parameters);
  }
  if (c.resume) {
    auto adam = [&](const char* name, learn::MlpTrainerEngine& t) {
      auto it = checkpoint.extra.find(name);
      if (it == checkpoint.extra.end()) throw Error(path("checkpoint.json"), 0, std::string("extra.") + name, "missing");
      t.set_optimizer_state(it->second);
    };
    adam("policy_adam", *pnet);
    if (vnet) adam("value_adam", *vnet);
  }
  long step = res.start_step;
  auto save = [&](const std::string& name, const std::string& stage) {
    model.policy.parameters = pnet->parameters();
    if (vnet) model.value.parameters = vnet->parameters();
    model.meta["stage"] = stage;
    model.meta["step"] = std::to_string(step);
    learn::ModelFile f = s2s_model_file(model);
    if (name == "checkpoint.json") {
      f.extra["policy_adam"] = pnet->optimizer_state();
      if (vnet) f.extra["value_adam"] = vnet->optimizer_state();
    }
    learn::save_model_file(path(name), f);
  };
  if (!c.resume) {
    res.init_val_jct_s = s2s_validation_jct(e, c.data_dir, model, val, val_seeds, c.threads);
    res.best_val_jct_s = res.init_val_jct_s;
    res.last_val_jct_s = res.init_val_jct_s;
    save("best.json", "init");
  } else {
    const Seq2SeqModel best = load_s2s_model(std::filesystem::is_regular_file(path("best.json")) ? path("best.json")
                                                                                                  : path("checkpoint.json"));
    res.best_val_jct_s = s2s_validation_jct(e, c.data_dir, best, val, val_seeds, c.threads);
    res.init_val_jct_s = s2s_validation_jct(e, c.data_dir, model, val, val_seeds, c.threads);
    res.last_val_jct_s = res.init_val_jct_s;
    res.best_step = std::stol(best.meta.count("step") ? best.meta.at("step") : "0");
  }
  res.best_model = path("best.json");
  res.last_model = path("best.json");
  report("rl", step, c.rl_steps, "val JCT " + std::to_string(res.init_val_jct_s));

  S2sSpeedPredictor predictor(model.reward, model.speed_scale, M);
  const S2sSpeedFn speed = [&](std::span<const S2sPlacedJob> jobs, std::vector<double>& out) {
    predictor.predict(jobs, out);
  };
  S2sEnvConfig env;
  env.round_s = e.round_s;
  const int d = pshape.inputs(), A = pshape.outputs();
  struct Sink final : S2sStepSink {
    learn::AttnShape shape;
    std::vector<float> states, row;
    std::vector<unsigned char> masks;
    std::vector<int> actions;
    std::vector<long> interval;
    long current = 0;
    void on_step(int jobs, int servers, int query, const float* jx, const float* sx, const float* qx,
                 const unsigned char* mask, int action) override {
      if (jobs > shape.max_jobs) return;  // more new jobs than a row holds: the step is not learned from [A]
      row.resize(static_cast<size_t>(shape.inputs()));
      learn::attn_encode(shape, jobs, servers, query, jx, sx, qx, row.data());
      states.insert(states.end(), row.begin(), row.end());
      const size_t at = masks.size();
      masks.resize(at + static_cast<size_t>(shape.max_servers), 0);
      std::copy_n(mask, servers, masks.begin() + static_cast<long>(at));
      actions.push_back(action);
      interval.push_back(current);
    }
    void clear() {
      states.clear();
      masks.clear();
      actions.clear();
      interval.clear();
    }
  } sink;
  sink.shape = pshape;
  learn::FifoReplay replay(static_cast<size_t>(c.memory), d, A);
  Seq2SeqPlacer placer(cluster, model.policy, c.seed * 1000003 + 17 + static_cast<uint64_t>(step));
  placer.set_select_max(false);
  placer.set_sink(&sink);
  placer.set_max_tokens(c.max_jobs);
  placer.set_parameters(pnet->parameters());
  Rng rng = Rng(c.seed).split(0x5a3 + static_cast<uint64_t>(step));
  learn::ActorCriticBatch batch;
  std::vector<size_t> slots, latest;
  std::vector<double> episode_rewards;
  auto epsilon = [&]() {
    if (!c.exploration) return 0.0;
    const double f =
        c.epsilon_steps > 0 ? std::min(1.0, static_cast<double>(step) / static_cast<double>(c.epsilon_steps)) : 1.0;
    return c.epsilon_start + (c.epsilon_end - c.epsilon_start) * f;
  };
  std::function<double(const float*)> baseline;
  if (vforward) baseline = [&](const float* s) { return static_cast<double>(vforward->run_row(s)[0]); };
  auto update = [&](const std::vector<size_t>& rows) {
    batch.reset(d, A);
    for (size_t k : rows) batch.add(replay.state(k), replay.mask(k), replay.action(k), replay.target(k));
    const learn::ActorCriticStats st = learn::add_actor_critic_gradients(batch, *pnet, vnet.get(), baseline,
                                                                         c.entropy_weight, nullptr, c.standardize);
    pnet->step(1);
    if (vnet) {
      vnet->step(1);
      *vforward = learn::AttnForward(vshape, vnet->parameters());
    }
    ++step;
    placer.set_parameters(pnet->parameters());
    placer.set_epsilon(epsilon());
    res.curve.push_back({step, st.policy_loss, st.value_loss, st.entropy, epsilon(), -1});
    report("rl", step, c.rl_steps, "");
    if (step % c.checkpoint_every == 0 || step == c.rl_steps) save("checkpoint.json", "rl");
    if (step % c.val_every == 0 || step == c.rl_steps) {
      save("last.json", "rl");
      const double j = s2s_validation_jct(e, c.data_dir, model, val, val_seeds, c.threads);
      res.curve.back().val_avg_jct_s = j;
      res.last_val_jct_s = j;
      res.last_model = path("last.json");
      if (j < res.best_val_jct_s) {
        res.best_val_jct_s = j;
        res.best_step = step;
        save("best.json", "rl-best");
      }
      report("rl", step, c.rl_steps, "val JCT " + std::to_string(j));
    }
    if (step >= c.rl_steps) throw StopTraining{};
  };
  auto push = [&](size_t k, double target) {
    latest.push_back(replay.add(sink.states.data() + k * d, sink.masks.data() + k * A, sink.actions[k],
                                static_cast<float>(target)));
  };
  placer.set_epsilon(epsilon());
  if (step < c.rl_steps) {
    try {
      for (long ep = 0;; ++ep) {
        ++res.episodes;
        episode_rewards.clear();
        sink.clear();
        sink.current = 0;
        run_s2s_env(cluster, train[static_cast<size_t>(ep + step) % train.size()], placer, speed, model.speed_scale, env,
                    [&](double reward) {
                      ++res.intervals;
                      episode_rewards.push_back(reward);
                      ++sink.current;
                      latest.clear();
                      if (c.gamma <= 0) {
                        for (size_t k = 0; k < sink.actions.size(); ++k) push(k, reward);
                        sink.clear();
                      }
                      if (c.replay && replay.size() >= static_cast<size_t>(c.batch)) {
                        replay.sample(static_cast<size_t>(c.batch), rng, slots);
                        update(slots);
                      } else if (!c.replay && !latest.empty()) {
                        update(latest);
                      }
                    });
        if (c.gamma > 0) {
          const std::vector<double> ret = learn::discounted_returns(episode_rewards, c.gamma);
          latest.clear();
          for (size_t k = 0; k < sink.actions.size(); ++k)
            push(k, sink.interval[k] < static_cast<long>(ret.size()) ? ret[static_cast<size_t>(sink.interval[k])] : 0.0);
          sink.clear();
          if (!c.replay && !latest.empty()) update(latest);
        }
        if (ep > 100000) throw Error("harmony-seq2seq training: no update after 100000 episodes (no job could be placed?)");
      }
    } catch (const StopTraining&) {
    }
  }
  res.explored_fraction = placer.stats().steps > 0
                              ? static_cast<double>(placer.stats().explored) / static_cast<double>(placer.stats().steps)
                              : 0.0;
  res.rl_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  return res;
}

}  // namespace dmlkit::cluster
