// Training harmony-seq2seq: seq2seq reward model, then DRL on it; see harmony_seq2seq_train.h.
#include "cluster/train/harmony_seq2seq_train.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>
#include <numeric>

#include "cluster/policies/harmony_seq2seq/seq2seq_policy.h"
#include "cluster/sim/metrics.h"
#include "cluster/train/harmony_seq2seq_env.h"
#include "cluster/train/harmony_seq2seq_imitation.h"
#include "core/error.h"
#include "core/parallel_for.h"
#include "learn/mlp_trainer.h"

namespace dmlkit::cluster {

namespace {

// Equal logits everywhere: the masked distribution is uniform over the servers with room.
Seq2SeqModel uniform_model(int max_jobs, int max_servers) {
  Seq2SeqModel m;
  m.policy.shape = s2s_policy_shape(4, 1, max_jobs, max_servers);
  m.policy.parameters.assign(m.policy.shape.parameter_count(), 0.0f);
  return m;
}

// [A] --rollout simulator: the training placer as a policy of the real simulator.
class TrainingPlacerPolicy final : public LearnedPlacementPolicy {
 public:
  explicit TrainingPlacerPolicy(Seq2SeqPlacer& placer) : placer_(placer) {}

 protected:
  void decide(const PlacementState&, std::span<const RunningPsJob> running, std::span<const PsJobSpec* const> fresh,
              std::vector<Placement>& out) override {
    placer_.decide(running, fresh, out);
  }

 private:
  Seq2SeqPlacer& placer_;
};

// Tags the steps of each decision with its interval (now / round_s), then lets `inner` decide;
// otherwise `inner` as it is (every Policy hook forwarded).
class IntervalTagger final : public Policy {
 public:
  IntervalTagger(Policy& inner, long& interval, double round_s)
      : inner_(inner), interval_(interval), round_s_(round_s) {}
  void schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) override {
    interval_ = std::lround(view.now_s / round_s_);
    inner_.schedule(view, jobs, out);
  }
  double next_wakeup_s(const ClusterView& view, std::span<const JobView> jobs) const override {
    return inner_.next_wakeup_s(view, jobs);
  }
  const char* ps_assignment() const override { return inner_.ps_assignment(); }
  bool handles_ps_jobs() const override { return inner_.handles_ps_jobs(); }
  bool charges_restarts() const override { return inner_.charges_restarts(); }

 private:
  Policy& inner_;
  long& interval_;
  double round_s_;
};

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
  return mean_validation_jct(e, data_dir, workloads, threads, "harmony-seq2seq", [&](size_t i, const ClusterSpec&) {
    return std::make_unique<Seq2SeqPolicy>(model, true, seeds[i]);
  });
}

void check_s2s_train_config(const S2sTrainConfig& c) {
  auto fail = [](const std::string& m) { throw Error("harmony-seq2seq training: " + m); };
  if (c.embed < 1 || c.heads < 1 || c.embed % c.heads != 0 || c.rm_embed < 1 || c.rm_heads < 1 ||
      c.rm_embed % c.rm_heads != 0)
    fail("--embed/--rm-embed must be positive multiples of --heads/--rm-heads");
  if (c.max_jobs < 2) fail("--max-jobs must be at least 2");
  if (c.rl_steps < 0 || c.val_every < 1 || c.checkpoint_every < 1)
    fail("--rl-steps >= 0, --val-every and --checkpoint-every >= 1");
  if (!(c.lr > 0) || !(c.rm_lr > 0) || !(c.entropy_weight >= 0))
    fail("learning rates must be positive, the entropy weight >= 0");
  (void)parse_job_exploration(c.job_exploration, "harmony-seq2seq");
  if (c.rollout != "reward-model" && c.rollout != "simulator")
    fail("--rollout must be reward-model or simulator, not '" + c.rollout + "'");
  if (c.rollout == "simulator" && (c.reward != "jct" || !(c.gamma > 0)))
    fail("--rollout simulator needs --reward jct and --gamma > 0");
  check_harmony_drl_config(c, "harmony-seq2seq");
}

namespace {

// [A] --rollout simulator: one training episode in the real simulator; the jct rewards of its
// intervals from the jobs' arrivals and finishes (on_interval after the run). Returns the average
// JCT, or -1 with jobs unfinished.
double simulator_episode(const ClusterSpec& cluster, const Workload& trace, const SimConfig& sim, Seq2SeqPlacer& placer,
                         long& interval, const IntervalEnvConfig& env, const std::function<void(double)>& on_interval) {
  TrainingPlacerPolicy inner(placer);
  IntervalTagger tagger(inner, interval, env.round_s);
  const SimResult r = simulate(cluster, trace, "harmony-seq2seq", tagger, sim);
  // The intervals up to the last finish (or the last decision, with jobs left unfinished).
  long intervals = r.rounds.empty() ? 0 : std::lround(r.rounds.back().time_s / env.round_s) + 1;
  bool unfinished = false;
  for (const JobRecord& j : r.jobs) {
    if (j.finished())
      intervals = std::max(intervals, static_cast<long>(std::ceil(j.finish_s / env.round_s - 1e-9)));
    else
      unfinished = true;
  }
  for (long k = 0; k < intervals; ++k) {
    const double reward = jct_interval_reward(
        r.jobs, static_cast<double>(k) * env.round_s, env.round_s, [](const JobRecord& j) { return j.arrival_s; },
        [](const JobRecord& j) { return j.finish_s; });
    on_interval(scale_interval_reward(reward, r.jobs.size(), env));
  }
  return unfinished ? -1.0 : compute_metrics(r).avg_jct_s;
}

using S2sReport = std::function<void(const std::string&, long, long, const std::string&)>;

std::string s2s_path(const std::string& dir, const std::string& name) {
  return (std::filesystem::path(dir) / name).string();
}

// Step 1: the seq2seq reward model's samples from the baselines (and random placements) in the
// simulator, the attention network fitted on them; saved alone as reward.json (resume starts from it).
void fit_s2s_reward_model(const S2sTrainConfig& c, const std::string& dir, const ClusterSpec& cluster,
                          const SimConfig& sim, Seq2SeqModel& model, S2sTrainResult& res, const S2sReport& report) {
  const int M = cluster.num_servers();
  const std::vector<SampleRun> runs = sample_runs(c);
  report("samples", 0, static_cast<long>(runs.size()), "");
  auto per_run = collect_speed_samples<S2sPlacedJob, s2s_placed_job>(c, runs, cluster, sim, [&](uint64_t seed) {
    return std::make_unique<Seq2SeqPolicy>(uniform_model(c.max_jobs, M), false, seed);
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
  const learn::RegressionConfig rc = reward_fit_config(c);
  report("reward model", 0, c.rm_epochs, "");
  auto engine =
      learn::make_attn_trainer(model.reward.shape, learn::attn_initial_parameters(model.reward.shape, init), c.rm_lr);
  const learn::AttnShape rshape = model.reward.shape;
  res.rm_fit = learn::fit_regression_engine(
      *engine,
      [rshape](const std::vector<float>& p) -> learn::RowPredictor {
        auto net = std::make_shared<learn::AttnForward>(rshape, p);
        return [net](const float* row) -> const std::vector<float>& { return net->run_row(row); };
      },
      data, rc,
      [&](int ep, double mse) { report("reward model", ep, c.rm_epochs, "hold-out MSE " + std::to_string(mse)); });
  model.reward.parameters = res.rm_fit.parameters;
  put_fit_meta(res.rm_fit, res.rm_samples, model.meta);
  model.meta["experiment"] = c.experiment.name;
  model.meta["interference"] = c.experiment.interference;
  model.meta["seed"] = std::to_string(c.seed);
  Seq2SeqModel rm_only = model;
  rm_only.policy.shape = s2s_policy_shape(c.embed, c.heads, c.max_jobs, M);
  rm_only.policy.parameters.assign(rm_only.policy.shape.parameter_count(), 0.0f);
  learn::ModelFile f = s2s_model_file(rm_only);
  f.kind = "harmony-seq2seq";
  learn::save_model_file(s2s_path(dir, "reward.json"), f);
}

// The actor and critic: fresh, or the checkpoint's (which must have this run's --defer and a critic
// when one is trained).
void init_s2s_networks(const S2sTrainConfig& c, const std::string& dir, const learn::AttnShape& pshape,
                       const learn::AttnShape& vshape, Seq2SeqModel& model) {
  if (!c.resume) {
    Rng init = Rng(c.seed).split(0x1a17);
    model.policy.shape = pshape;
    model.policy.parameters = learn::attn_initial_parameters(pshape, init);
    if (c.critic) {
      model.value.shape = vshape;
      model.value.parameters = learn::attn_initial_parameters(vshape, init);
    }
    return;
  }
  const std::string file = s2s_path(dir, "checkpoint.json");
  if (model.policy.shape.wait_target != c.defer)
    throw Error(file, 0, "meta.defer", "--resume: the checkpoint was made with another --defer");
  model.policy.shape = pshape;
  if (c.critic && model.value.empty()) throw Error(file, 0, "extra.value", "--resume: the checkpoint has no critic");
  model.value.shape = vshape;
}

// What the DRL step works with (as harmony_train.cpp's HarmonyDrlState).
struct S2sDrlState {
  const S2sTrainConfig& c;
  const std::string& dir;
  const ClusterSpec& cluster;
  const SimConfig& sim;
  const HarmonyTraces& traces;
  const learn::AttnShape pshape, vshape;
  Seq2SeqModel& model;
  std::unique_ptr<learn::MlpTrainerEngine> pnet, vnet;
  std::unique_ptr<learn::AttnForward> vforward;
  long step = 0;

  double validate() const {
    return s2s_validation_jct(c.experiment, c.data_dir, model, traces.val, traces.val_seeds, c.threads);
  }
  void save(const std::string& name, const std::string& stage, long at) {
    save_drl_networks(model, s2s_model_file, *pnet, vnet.get(), dir, name, stage, at);
  }
};

// [A] The imitation warm start (harmony_imitation.h, harmony_seq2seq_imitation.h), then a
// checkpoint of the imitated networks (--resume can start several DRL runs from it).
void s2s_imitation_step(S2sDrlState& st, S2sTrainResult& res, const S2sReport& report) {
  const learn::AttnShape pshape = st.pshape;
  ImitationHooks il;
  il.replay = [&] { return std::make_unique<S2sBoardReplay>(pshape, st.cluster); };
  il.forward = [pshape](const std::vector<float>& p) -> learn::RowPredictor {
    auto f = std::make_shared<learn::AttnForward>(pshape, p);
    return [f](const float* row) -> const std::vector<float>& { return f->run_row(row); };
  };
  il.take_and_validate = [&](const std::vector<float>& p, const std::string& teacher) {
    st.model.policy.parameters = p;
    st.model.meta["imitate"] = teacher;
    return st.validate();
  };
  il.save = [&](const std::string& file) { st.save(file, "imitation", st.step); };
  imitation_warm_start(st.c, st.cluster, st.sim, st.traces, *st.pnet, pshape.inputs(), pshape.outputs(), il, res,
                       report);
  st.save("checkpoint.json", "imitation", st.step);
}

// The DRL's steps as actor rows: each pointer decision encoded (learn::attn_encode) with its mask.
struct S2sSink final : S2sStepSink, HarmonyDrlSteps {
  learn::AttnShape shape;
  std::vector<float> row;
  void on_step(int jobs, int servers, int query, const float* jx, const float* sx, const float* qx,
               const unsigned char* mask, int action) override {
    if (jobs > shape.max_jobs) return;  // more new jobs than a row holds: the step is not learned from [A]
    row.resize(static_cast<size_t>(shape.inputs()));
    learn::attn_encode(shape, jobs, servers, query, jx, sx, qx, row.data());
    states.insert(states.end(), row.begin(), row.end());
    const size_t at = masks.size();
    masks.resize(at + static_cast<size_t>(shape.outputs()), 0);
    std::copy_n(mask, servers, masks.begin() + static_cast<long>(at));
    // The wait target: the placer's index `servers`, the row's column wait_column().
    if (shape.wait_target) masks[at + static_cast<size_t>(shape.wait_column())] = mask[servers];
    actions.push_back(shape.wait_target && action == servers ? shape.wait_column() : action);
    interval.push_back(current);
  }
};

// Step 2: DRL on the reward model (harmony_seq2seq_env.h) or, with --rollout simulator, in the
// simulator, through the shared loop (harmony_drl.h).
void s2s_drl_step(S2sDrlState& st, S2sTrainResult& res, const S2sReport& report) {
  const S2sTrainConfig& c = st.c;
  const Seq2SeqModel& model = st.model;
  S2sSpeedPredictor predictor(model.reward, model.speed_scale, st.cluster.num_servers());
  const S2sSpeedFn speed = [&](std::span<const S2sPlacedJob> jobs, std::vector<double>& out) {
    predictor.predict(jobs, out);
  };
  S2sEnvConfig env;
  env.round_s = c.experiment.round_s;
  set_interval_reward(c, "harmony-seq2seq", env);
  const int d = st.pshape.inputs(), A = st.pshape.outputs();
  S2sSink sink;
  sink.shape = st.pshape;
  Seq2SeqPlacer placer(st.cluster, model.policy, c.seed * 1000003 + 17 + static_cast<uint64_t>(st.step));
  placer.set_select_max(false);
  placer.set_sink(&sink);
  placer.set_max_tokens(c.max_jobs);
  placer.set_job_exploration(parse_job_exploration(c.job_exploration, "harmony-seq2seq"));
  placer.set_parameters(st.pnet->parameters());
  HarmonyDrlHooks hooks;
  // The episode order continues from the current step (a resumed run does not replay the start).
  hooks.episode = [&](long ep, long at, const std::function<void(double)>& on_interval) {
    const Workload& trace = st.traces.train[static_cast<size_t>(ep + at) % st.traces.train.size()];
    if (c.rollout == "simulator")
      return simulator_episode(st.cluster, trace, st.sim, placer, sink.current, env, on_interval);
    const S2sEpisode done = run_s2s_env(st.cluster, trace, placer, speed, model.speed_scale, env, on_interval);
    return done.unfinished == 0 ? done.avg_jct_s : -1.0;
  };
  bind_placer(hooks, placer);
  hooks.set_critic = [&](const std::vector<float>& p) { *st.vforward = learn::AttnForward(st.vshape, p); };
  if (st.vforward) hooks.baseline = [&](const float* s) { return static_cast<double>(st.vforward->run_row(s)[0]); };
  hooks.save = [&](const std::string& name, const std::string& stage, long at) { st.save(name, stage, at); };
  hooks.validate = [&] { return st.validate(); };
  const HarmonyDrlRun run{"harmony-seq2seq", st.dir, d, A, c.critic_warmup, static_cast<uint64_t>(st.step)};
  run_harmony_drl(c, run, sink, *st.pnet, st.vnet.get(), hooks, st.step, res, report);
  res.explored_fraction = explored_fraction(placer);
}

}  // namespace

S2sTrainResult train_harmony_seq2seq(const S2sTrainConfig& c, const std::string& dir, const S2sReport& progress) {
  check_s2s_train_config(c);
  const std::string checkpoint_file = s2s_path(dir, "checkpoint.json");
  if (c.resume && (!std::filesystem::is_regular_file(checkpoint_file) ||
                   !std::filesystem::is_regular_file(s2s_path(dir, "reward.json"))))
    throw Error(checkpoint_file, 0, "", "--resume: no checkpoint.json and reward.json in the output folder");
  std::filesystem::create_directories(dir);
  const S2sReport report = [&](const std::string& phase, long step, long total, const std::string& detail) {
    if (progress) progress(phase, step, total, detail);
  };
  S2sTrainResult res;
  const ClusterSpec cluster = ClusterSpec::parse(c.experiment.cluster);
  const SimConfig sim = experiment_sim_config(c.experiment, c.data_dir);
  const int M = cluster.num_servers();
  const HarmonyTraces traces = harmony_traces(c.experiment, c.data_dir, c.train_traces, c.val_traces);
  const auto t0 = std::chrono::steady_clock::now();

  // ---- 1. the reward model: the checkpoint's, or fitted here
  Seq2SeqModel model;
  learn::ModelFile checkpoint;
  if (c.resume) {
    checkpoint = learn::load_model_file(checkpoint_file);
    model = load_s2s_model(checkpoint_file);
    res.start_step = check_resume_meta(model.meta, c, checkpoint_file);
    get_fit_meta(model.meta, res.rm_fit, res.rm_samples);
  } else {
    fit_s2s_reward_model(c, dir, cluster, sim, model, res, report);
  }
  put_run_meta(c, model.meta);
  if (c.job_exploration != "off") model.meta["job_exploration"] = c.job_exploration;
  if (c.rollout != "reward-model") model.meta["rollout"] = c.rollout;
  const auto t1 = std::chrono::steady_clock::now();
  res.rm_seconds = std::chrono::duration<double>(t1 - t0).count();

  // ---- baselines on the validation traces (the targets)
  res.baseline_val_jct_s = baseline_validation_jct(c, cluster, sim, traces);

  // ---- 2. DRL
  const learn::AttnShape pshape = s2s_policy_shape(c.embed, c.heads, c.max_jobs, M, c.defer);
  const learn::AttnShape vshape = s2s_value_shape(c.embed, c.heads, c.max_jobs, M);
  init_s2s_networks(c, dir, pshape, vshape, model);
  S2sDrlState st{c,       dir,     cluster,
                 sim,     traces,  pshape,
                 vshape,  model,   learn::make_attn_trainer(pshape, model.policy.parameters, c.lr),
                 nullptr, nullptr, res.start_step};
  if (c.critic) {
    st.vnet = learn::make_attn_trainer(vshape, model.value.parameters, c.lr);
    st.vforward = std::make_unique<learn::AttnForward>(vshape, model.value.parameters);
  }
  if (c.resume) restore_optimizer_states(checkpoint, checkpoint_file, *st.pnet, st.vnet.get());
  start_drl_record(
      c.resume, dir, model,
      [&](const Seq2SeqModel& m) {
        return s2s_validation_jct(c.experiment, c.data_dir, m, traces.val, traces.val_seeds, c.threads);
      },
      load_s2s_model, [&](const std::string& stage) { st.save("best.json", stage, st.step); }, res);
  report("rl", st.step, c.rl_steps, "val JCT " + std::to_string(res.init_val_jct_s));
  if (c.imitate != "none" && !c.resume) s2s_imitation_step(st, res, report);
  s2s_drl_step(st, res, report);
  res.rl_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  return res;
}

}  // namespace dmlkit::cluster
