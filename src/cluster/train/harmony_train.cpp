// Training Harmony: reward model, then DRL on it; see harmony_train.h.
#include "cluster/train/harmony_train.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <numeric>

#include "cluster/policies/harmony/harmony_policy.h"
#include "cluster/sim/metrics.h"
#include "cluster/train/harmony_env.h"
#include "cluster/train/harmony_imitation.h"
#include "core/error.h"
#include "core/parallel_for.h"
#include "learn/actor_critic.h"
#include "learn/fifo_replay.h"
#include "learn/mlp_trainer.h"

namespace dmlkit::cluster {

namespace {

constexpr uint64_t kTrainSeedBase = 1000000;  // training traces
constexpr uint64_t kValSeedBase = 2000000;    // validation traces

struct StopTraining {};

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : " ") + x;
  return s;
}

struct SpeedSample {
  std::vector<HarmonyPlacedJob> jobs;
  std::vector<double> speeds;  // samples/s, measured
};

// Runs a placer and records, at every decision, the running jobs' placement and measured speed.
class SpeedRecorder final : public Policy {
 public:
  SpeedRecorder(std::unique_ptr<Policy> inner, std::vector<SpeedSample>& out) : inner_(std::move(inner)), out_(out) {}
  void schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) override {
    SpeedSample s;
    for (const JobView& v : jobs) {
      if (!v.running()) continue;
      const PsJobMonitor* m = ps_monitor(v);
      if (m == nullptr) continue;
      s.jobs.push_back(harmony_placed_job(*v.job->ps, v.placement));
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
  std::vector<SpeedSample>& out_;
};

std::vector<int> hidden(int neurons, int layers) { return std::vector<int>(static_cast<size_t>(layers), neurons); }

bool identical_servers(const ClusterSpec& c) {
  for (const Server& s : c.servers) {
    const Server& f = c.servers.front();
    if (s.gpus != f.gpus || s.cpus != f.cpus || s.mem_gb != f.mem_gb || s.net_gbps != f.net_gbps) return false;
  }
  return true;
}

HarmonyModel zero_model(const HarmonyShape& shape) {
  HarmonyModel m;
  m.shape = shape;
  m.policy.shape = harmony_policy_shape(shape, {1});
  m.policy.parameters.assign(m.policy.shape.parameter_count(), 0.0f);
  return m;
}

}  // namespace

double harmony_validation_jct(const Experiment& e, const std::string& data_dir, const HarmonyModel& model,
                              const std::vector<Workload>& workloads, const std::vector<uint64_t>& seeds, int threads) {
  const ClusterSpec cluster = ClusterSpec::parse(e.cluster);
  const SimConfig config = experiment_sim_config(e, data_dir);
  std::vector<double> jct(workloads.size());
  parallel_for(workloads.size(), std::max(1, threads), [&](size_t i) {
    HarmonyPolicyConfig pc;
    HarmonyPolicy policy(model, &cluster, pc, seeds[i]);
    jct[i] = compute_metrics(simulate(cluster, workloads[i], "harmony", policy, config)).avg_jct_s;
  });
  return std::accumulate(jct.begin(), jct.end(), 0.0) / static_cast<double>(std::max<size_t>(1, jct.size()));
}

void check_harmony_train_config(const HarmonyTrainConfig& c) {
  if (c.jobs < 1 || c.new_jobs < 1 || c.new_jobs > c.jobs) throw Error("harmony training: need 1 <= --new-jobs <= --jobs");
  if (c.neurons < 1 || c.layers < 1 || c.rm_neurons < 1 || c.rm_layers < 1)
    throw Error("harmony training: --neurons, --layers, --rm-neurons and --rm-layers must be positive");
  if (c.batch < 1 || c.memory < c.batch) throw Error("harmony training: --batch must be positive and --memory >= --batch");
  if (c.rm_traces < 1 || c.train_traces < 1 || c.val_traces < 1)
    throw Error("harmony training: --rm-traces, --train-traces and --val-traces must be positive");
  if (!(c.rm_holdout >= 0 && c.rm_holdout < 1)) throw Error("harmony training: --rm-holdout must be in [0, 1)");
  if (!(c.epsilon_start >= 0 && c.epsilon_start <= 1 && c.epsilon_end >= 0 && c.epsilon_end <= 1))
    throw Error("harmony training: epsilon must be in [0, 1]");
  if (!(c.gamma >= 0 && c.gamma < 1)) throw Error("harmony training: --gamma must be in [0, 1)");
  if (c.rm_policies.empty() && c.rm_random <= 0)
    throw Error("harmony training: no placer to collect reward-model samples with");
  for (const auto& p : c.rm_policies) (void)policy_registry().get(p);  // Error with "did you mean"
  if (c.imitate != "none" && c.imitate != "auto") (void)policy_registry().get(c.imitate);
  if (c.imitate == "auto" && c.rm_policies.empty()) throw Error("harmony training: --imitate auto needs --rm-policies");
  if (c.il_steps < 0 || c.il_traces < 0 || c.critic_warmup < 0 || !(c.il_lr > 0))
    throw Error("harmony training: --il-steps, --il-traces, --critic-warmup must be >= 0 and --il-lr > 0");
  for (uint64_t s : c.experiment.seeds)
    if (s >= kTrainSeedBase)
      throw Error("harmony training: evaluation seed " + std::to_string(s) +
                  " overlaps the training traces' seeds (>= 1000000)");
}

HarmonyTrainResult train_harmony(const HarmonyTrainConfig& c, const std::string& dir,
                                 const std::function<void(const std::string&, long, long, const std::string&)>& progress) {
  check_harmony_train_config(c);
  std::filesystem::create_directories(dir);
  auto path = [&](const std::string& name) { return (std::filesystem::path(dir) / name).string(); };
  auto report = [&](const std::string& phase, long step, long total, const std::string& detail) {
    if (progress) progress(phase, step, total, detail);
  };
  HarmonyTrainResult res;
  const Experiment& e = c.experiment;
  const ClusterSpec cluster = ClusterSpec::parse(e.cluster);
  const SimConfig sim = experiment_sim_config(e, c.data_dir);
  HarmonyShape shape;
  shape.servers = cluster.num_servers();
  shape.jobs = c.jobs;
  shape.new_jobs = c.new_jobs;
  shape.defer = c.defer;
  shape.type_counts = c.type_counts;
  std::vector<Workload> train, val;
  std::vector<uint64_t> val_seeds;
  for (int k = 0; k < c.train_traces; ++k) train.push_back(ps_workload(e.workload, kTrainSeedBase + k, c.data_dir));
  for (int k = 0; k < c.val_traces; ++k) {
    val_seeds.push_back(kValSeedBase + k);
    val.push_back(ps_workload(e.workload, kValSeedBase + k, c.data_dir));
  }
  const auto t0 = std::chrono::steady_clock::now();

  HarmonyModel model;
  model.shape = shape;
  if (!c.reward_model.empty()) {
    // An earlier run's reward model (its errors come from its meta).
    const learn::ModelFile f = learn::load_model_file(c.reward_model);
    auto it = f.nets.find("reward");
    if (f.kind != "harmony-reward" || it == f.nets.end() || f.extra.count("speed_scale") == 0)
      throw Error(c.reward_model, 0, "kind", "not a Harmony reward model (reward.json of cluster train harmony)");
    if (it->second.shape.inputs != harmony_reward_input_size(shape) || it->second.shape.outputs != shape.jobs)
      throw Error(c.reward_model, 0, "nets.reward", "made for another number of servers or job slots");
    model.reward = it->second;
    model.speed_scale = f.extra.at("speed_scale");
    auto num = [&](const std::string& k) { return f.meta.count(k) ? std::stod(f.meta.at(k)) : 0.0; };
    res.rm_samples = static_cast<size_t>(num("rm_samples"));
    res.rm_rows = static_cast<size_t>(num("rm_rows"));
    res.rm_fit.holdout_rows.resize(static_cast<size_t>(num("rm_holdout_rows")));
    res.rm_fit.holdout.mse = num("rm_holdout_mse");
    res.rm_fit.holdout.mae = num("rm_holdout_mae");
    res.rm_fit.holdout.mean_rel_err = num("rm_holdout_mean_rel_err");
    res.rm_fit.train.mean_rel_err = num("rm_train_mean_rel_err");
    for (const auto& [k, v] : f.meta) {
      if (k.rfind("rm_", 0) == 0) model.meta[k] = v;
      if (k.rfind("rm_err_", 0) == 0) res.rm_err_by_policy[k.substr(7)] = std::stod(v);
    }
    model.meta["reward_model_from"] = c.reward_model;
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
    std::vector<std::vector<SpeedSample>> per_run(runs.size());
    std::vector<Workload> rm_traces;
    const int n_rm_traces = std::max(c.rm_traces, random_runs);
    for (int k = 0; k < n_rm_traces; ++k) rm_traces.push_back(ps_workload(e.workload, kTrainSeedBase + 500000 + k, c.data_dir));
    report("samples", 0, static_cast<long>(runs.size()), "");
    parallel_for(runs.size(), std::max(1, c.threads), [&](size_t r) {
      PolicyOptions o;
      o.seed = c.seed * 7919 + r;
      std::unique_ptr<Policy> inner;
      if (runs[r].policy == "random") {
        HarmonyPolicyConfig pc;
        pc.select_max = false;  // uniform over the allowed actions: the zero network's logits are equal
        inner = std::make_unique<HarmonyPolicy>(zero_model(shape), &cluster, pc, o.seed);
      } else {
        inner = make_policy(runs[r].policy, o);
      }
      SpeedRecorder rec(std::move(inner), per_run[r]);
      simulate(cluster, rm_traces[static_cast<size_t>(runs[r].trace)], runs[r].policy, rec, sim);
    });
    std::vector<float> scale(kHarmonyTypes, 0.0f);
    for (const auto& pr : per_run)
      for (const auto& s : pr)
        for (size_t j = 0; j < s.jobs.size(); ++j)
          scale[s.jobs[j].type] = std::max(scale[s.jobs[j].type], static_cast<float>(s.speeds[j]));
    for (float& v : scale)
      if (!(v > 0)) v = 1.0f;  // a type never seen
    learn::RegressionData data;
    data.inputs = harmony_reward_input_size(shape);
    data.outputs = shape.jobs;
    {
      Rng aug = Rng(c.seed).split(0xa06);
      const bool permute_servers = identical_servers(cluster);
      std::vector<float> x(data.inputs), y(shape.jobs), w(shape.jobs);
      std::vector<HarmonyPlacedJob> jobs;
      std::vector<int> order, servers(shape.servers);
      for (const auto& pr : per_run)
        for (const auto& s : pr) {
          ++res.rm_samples;
          for (int copy = 0; copy <= c.rm_augment; ++copy) {
            order.resize(s.jobs.size());
            std::iota(order.begin(), order.end(), 0);
            std::iota(servers.begin(), servers.end(), 0);
            if (copy > 0) {
              aug.shuffle(order.begin(), order.end());
              if (permute_servers) aug.shuffle(servers.begin(), servers.end());
            }
            const size_t n = std::min(order.size(), static_cast<size_t>(shape.jobs));
            jobs.clear();
            std::fill(y.begin(), y.end(), 0.0f);
            std::fill(w.begin(), w.end(), 0.0f);
            for (size_t k = 0; k < n; ++k) {
              HarmonyPlacedJob j = s.jobs[order[k]];
              for (auto& on : j.on) on.first = servers[on.first];
              y[k] = static_cast<float>(s.speeds[order[k]] / scale[j.type]);
              w[k] = 1.0f;
              jobs.push_back(std::move(j));
            }
            harmony_reward_input(shape, jobs, x.data());
            data.add(x.data(), y.data(), w.data());
          }
        }
    }
    res.rm_rows = data.rows();
    if (data.rows() < 2) throw Error("harmony training: the placers produced no reward-model sample");
    model.speed_scale = scale;
    model.reward.shape = harmony_reward_shape(shape, hidden(c.rm_neurons, c.rm_layers));
    {
      Rng init = Rng(c.seed).split(0x2e3);
      learn::RegressionConfig rc;
      rc.epochs = c.rm_epochs;
      rc.batch = 64;
      rc.lr = c.rm_lr;
      rc.holdout = c.rm_holdout;
      rc.seed = c.seed;
      report("reward model", 0, c.rm_epochs, "");
      res.rm_fit = fit_regression(model.reward.shape, learn::mlp_initial_parameters(model.reward.shape, init), data, rc,
                                  [&](int ep, double mse) { report("reward model", ep, c.rm_epochs, "hold-out MSE " + std::to_string(mse)); });
      model.reward.parameters = res.rm_fit.parameters;
    }
    {
      // Diagnosis: the fitted model's mean relative error on each placer's own samples (unaugmented;
      // most of them were fitted, so this is in-sample): where is the model wrong?
      HarmonySpeedPredictor pred(shape, model.reward, model.speed_scale);
      std::map<std::string, std::pair<double, long>> acc;
      std::vector<double> sp;
      for (size_t r = 0; r < runs.size(); ++r)
        for (const auto& smp : per_run[r]) {
          const size_t n = std::min(smp.jobs.size(), static_cast<size_t>(shape.jobs));
          pred.predict(std::span<const HarmonyPlacedJob>(smp.jobs.data(), n), sp);
          for (size_t k = 0; k < n; ++k)
            if (smp.speeds[k] > 0) {
              acc[runs[r].policy].first += std::abs(sp[k] - smp.speeds[k]) / smp.speeds[k];
              acc[runs[r].policy].second += 1;
            }
        }
      for (const auto& [p, v] : acc) {
        res.rm_err_by_policy[p] = v.second > 0 ? v.first / static_cast<double>(v.second) : 0.0;
        model.meta["rm_err_" + p] = std::to_string(res.rm_err_by_policy[p]);
      }
    }
    model.meta["rm_samples"] = std::to_string(res.rm_samples);
    model.meta["rm_rows"] = std::to_string(res.rm_rows);
    model.meta["rm_holdout_rows"] = std::to_string(res.rm_fit.holdout_rows.size());
    model.meta["rm_holdout_mse"] = std::to_string(res.rm_fit.holdout.mse);
    model.meta["rm_holdout_mae"] = std::to_string(res.rm_fit.holdout.mae);
    model.meta["rm_train_mean_rel_err"] = std::to_string(res.rm_fit.train.mean_rel_err);
    model.meta["rm_holdout_mean_rel_err"] = std::to_string(res.rm_fit.holdout.mean_rel_err);
  }
  model.meta["experiment"] = e.name;
  model.meta["interference"] = e.interference;
  model.meta["seed"] = std::to_string(c.seed);
  model.meta["command"] = join(c.command);
  model.meta["neurons"] = std::to_string(c.neurons);
  model.meta["layers"] = std::to_string(c.layers);
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
  Rng init = Rng(c.seed).split(0x1a17);
  model.policy.shape = harmony_policy_shape(shape, hidden(c.neurons, c.layers));
  model.policy.parameters = learn::mlp_initial_parameters(model.policy.shape, init);
  if (c.critic) {
    model.value.shape = harmony_value_shape(shape, hidden(c.neurons, c.layers));
    model.value.parameters = learn::mlp_initial_parameters(model.value.shape, init);
  }
  auto pnet = learn::make_mlp_trainer(model.policy.shape, model.policy.parameters, c.lr);
  std::unique_ptr<learn::MlpTrainerEngine> vnet;
  std::unique_ptr<learn::MlpForward> vforward;
  if (c.critic) {
    vnet = learn::make_mlp_trainer(model.value.shape, model.value.parameters, c.lr);
    vforward = std::make_unique<learn::MlpForward>(model.value.shape, model.value.parameters);
  }
  const int d = shape.state_size(), A = shape.actions();
  res.init_val_jct_s = harmony_validation_jct(e, c.data_dir, model, val, val_seeds, c.threads);
  res.best_val_jct_s = res.init_val_jct_s;
  res.last_val_jct_s = res.init_val_jct_s;
  model.meta["stage"] = "init";
  model.meta["step"] = "0";
  learn::save_model_file(path("best.json"), harmony_model_file(model));
  res.best_model = path("best.json");
  res.last_model = path("best.json");
  report("rl", 0, c.rl_steps, "val JCT " + std::to_string(res.init_val_jct_s));

  // ---- [A] imitation warm start (harmony_imitation.h)
  if (c.imitate != "none") {
    std::string teacher = c.imitate;
    if (teacher == "auto") {
      double best = 0;
      teacher.clear();
      for (const auto& [p, j] : res.baseline_val_jct_s)
        if (teacher.empty() || j < best) {
          teacher = p;
          best = j;
        }
    }
    res.imitate_policy = teacher;
    model.meta["imitate"] = teacher;
    const int n_traces = c.il_traces > 0 ? c.il_traces : c.train_traces;
    std::vector<Workload> il_traces;
    for (int k = 0; k < n_traces; ++k)
      il_traces.push_back(k < static_cast<int>(train.size()) ? train[static_cast<size_t>(k)]
                                                             : ps_workload(e.workload, kTrainSeedBase + k, c.data_dir));
    std::vector<HarmonyImitationData> per(il_traces.size());
    report("imitation samples", 0, static_cast<long>(il_traces.size()), teacher);
    parallel_for(il_traces.size(), std::max(1, c.threads), [&](size_t k) {
      PolicyOptions o;
      o.seed = c.seed * 7919 + 100003 + k;
      HarmonyImitationRecorder rec(make_policy(teacher, o), shape, cluster, per[k]);
      simulate(cluster, il_traces[k], teacher, rec, sim);
    });
    HarmonyImitationData il;
    il.state_size = d;
    il.actions = A;
    for (const auto& p : per) il.append(p);
    res.il_samples = il.rows();
    if (il.rows() == 0) throw Error("harmony training: the teacher '" + teacher + "' gave no imitation sample");
    pnet->set_learning_rate(c.il_lr);
    Rng il_rng = Rng(c.seed).split(0x1317);
    std::vector<float> bx, ones(static_cast<size_t>(c.batch), 1.0f);
    std::vector<unsigned char> bm;
    std::vector<int> by;
    long correct = 0, seen = 0;
    for (long s = 0; s < c.il_steps; ++s) {
      bx.clear();
      bm.clear();
      by.clear();
      for (int b = 0; b < c.batch; ++b) {
        const size_t r = static_cast<size_t>(il_rng.uniform_int(0, static_cast<int64_t>(il.rows()) - 1));
        bx.insert(bx.end(), il.states.begin() + static_cast<long>(r * d), il.states.begin() + static_cast<long>((r + 1) * d));
        bm.insert(bm.end(), il.masks.begin() + static_cast<long>(r * A), il.masks.begin() + static_cast<long>((r + 1) * A));
        by.push_back(il.labels[r]);
      }
      // Masked cross-entropy = the policy-gradient loss with advantage 1 and no entropy term.
      const learn::LossStats st = pnet->add_policy_gradient(bx.data(), c.batch, bm.data(), by.data(), ones.data(), 0.0);
      pnet->step(1);
      if (s >= c.il_steps - 10) {
        // Accuracy of the updated network on this batch (masked arg-max).
        learn::MlpForward f(model.policy.shape, pnet->parameters());
        std::vector<float> lg;
        std::vector<double> pr;
        for (int b = 0; b < c.batch; ++b) {
          const std::vector<float>& o = f.run(bx.data() + static_cast<size_t>(b) * d);
          lg.assign(o.begin(), o.end());
          std::vector<unsigned char> mk(bm.begin() + static_cast<long>(b) * A, bm.begin() + static_cast<long>(b + 1) * A);
          if (learn::masked_softmax(lg, mk, pr) &&
              static_cast<int>(std::max_element(pr.begin(), pr.end()) - pr.begin()) == by[static_cast<size_t>(b)])
            ++correct;
          ++seen;
        }
      }
      res.curve.push_back({-c.il_steps + s + 1, st.loss, 0, st.entropy, 0, -1});
      if ((s + 1) % 100 == 0) report("imitation", s + 1, c.il_steps, teacher);
    }
    res.il_accuracy = seen > 0 ? static_cast<double>(correct) / static_cast<double>(seen) : 0.0;
    pnet->set_learning_rate(c.lr);
    model.policy.parameters = pnet->parameters();
    res.il_val_jct_s = harmony_validation_jct(e, c.data_dir, model, val, val_seeds, c.threads);
    if (!res.curve.empty()) res.curve.back().val_avg_jct_s = res.il_val_jct_s;
    model.meta["stage"] = "imitation";
    learn::save_model_file(path("imitation.json"), harmony_model_file(model));
    if (res.il_val_jct_s < res.best_val_jct_s) {
      res.best_val_jct_s = res.il_val_jct_s;
      learn::save_model_file(path("best.json"), harmony_model_file(model));
    }
    res.last_val_jct_s = res.il_val_jct_s;
    report("imitation", c.il_steps, c.il_steps, "val JCT " + std::to_string(res.il_val_jct_s));
  }

  HarmonySpeedPredictor predictor(shape, model.reward, model.speed_scale);
  const HarmonySpeedFn speed = [&](std::span<const HarmonyPlacedJob> jobs, std::vector<double>& out) {
    predictor.predict(jobs, out);
  };
  HarmonyEnvConfig env;
  env.round_s = e.round_s;
  struct Sink final : HarmonyStepSink {
    int d = 0, a = 0;
    std::vector<float> states;
    std::vector<unsigned char> masks;
    std::vector<int> actions;
    std::vector<long> interval;  // the episode's interval of each pending step (gamma > 0)
    long current = 0;
    void on_step(const float* s, const unsigned char* m, int act) override {
      states.insert(states.end(), s, s + d);
      masks.insert(masks.end(), m, m + a);
      actions.push_back(act);
      interval.push_back(current);
    }
    void clear() {
      states.clear();
      masks.clear();
      actions.clear();
      interval.clear();
    }
  } sink;
  sink.d = d;
  sink.a = A;
  learn::FifoReplay replay(static_cast<size_t>(c.memory), d, A);
  HarmonyPlacer placer(shape, cluster, model.policy, c.seed * 1000003 + 17);
  placer.set_select_max(false);
  placer.set_sink(&sink);
  Rng rng = Rng(c.seed).split(0x5a3);
  long step = 0;
  double model_jct_sum = 0;
  long model_jct_n = 0;
  learn::ActorCriticBatch batch;
  std::vector<size_t> slots;
  std::vector<double> episode_rewards;
  std::vector<size_t> latest;
  auto epsilon = [&]() {
    if (!c.exploration) return 0.0;
    const double f = c.epsilon_steps > 0 ? std::min(1.0, static_cast<double>(step) / static_cast<double>(c.epsilon_steps)) : 1.0;
    return c.epsilon_start + (c.epsilon_end - c.epsilon_start) * f;
  };
  auto save = [&](const std::string& name, const std::string& stage) {
    model.policy.parameters = pnet->parameters();
    if (vnet) model.value.parameters = vnet->parameters();
    model.meta["stage"] = stage;
    model.meta["step"] = std::to_string(step);
    learn::ModelFile f = harmony_model_file(model);
    if (name == "checkpoint.json") {
      f.extra["policy_adam"] = pnet->optimizer_state();
      if (vnet) f.extra["value_adam"] = vnet->optimizer_state();
    }
    learn::save_model_file(path(name), f);
  };
  auto update = [&](const std::vector<size_t>& rows) {
    batch.reset(d, A);
    for (size_t k : rows) batch.add(replay.state(k), replay.mask(k), replay.action(k), replay.target(k));
    pnet->set_learning_rate(step < c.critic_warmup ? 0.0 : c.lr);
    const learn::ActorCriticStats st =
        learn::add_actor_critic_gradients(batch, *pnet, vnet.get(), vforward.get(), c.entropy_weight, nullptr,
                                          c.standardize);
    pnet->step(1);
    if (vnet) {
      vnet->step(1);
      *vforward = learn::MlpForward(model.value.shape, vnet->parameters());
    }
    ++step;
    placer.set_parameters(pnet->parameters());
    placer.set_epsilon(epsilon());
    res.curve.push_back({step, st.policy_loss, st.value_loss, st.entropy, epsilon(), -1});
    report("rl", step, c.rl_steps, "");
    if (step % c.checkpoint_every == 0 || step == c.rl_steps) save("checkpoint.json", "rl");
    if (step % c.val_every == 0 || step == c.rl_steps) {
      save("last.json", "rl");
      const double j = harmony_validation_jct(e, c.data_dir, model, val, val_seeds, c.threads);
      res.curve.back().val_avg_jct_s = j;
      if (model_jct_n > 0) res.curve.back().model_avg_jct_s = model_jct_sum / static_cast<double>(model_jct_n);
      model_jct_sum = 0;
      model_jct_n = 0;
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
  if (c.rl_steps > 0) {
    try {
      for (long ep = 0;; ++ep) {
        ++res.episodes;
        episode_rewards.clear();
        sink.clear();
        sink.current = 0;
        const HarmonyEpisode done_ep = run_harmony_env(cluster, train[static_cast<size_t>(ep) % train.size()], placer, speed, model.speed_scale, env,
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
        if (done_ep.unfinished == 0) {
          model_jct_sum += done_ep.avg_jct_s;
          ++model_jct_n;
        }
        if (c.gamma > 0) {
          const std::vector<double> ret = learn::discounted_returns(episode_rewards, c.gamma);
          latest.clear();
          for (size_t k = 0; k < sink.actions.size(); ++k)
            push(k, sink.interval[k] < static_cast<long>(ret.size()) ? ret[static_cast<size_t>(sink.interval[k])] : 0.0);
          sink.clear();
          if (!c.replay && !latest.empty()) update(latest);
        }
        if (ep > 100000) throw Error("harmony training: no update after 100000 episodes (no job could be placed?)");
      }
    } catch (const StopTraining&) {
    }
  }
  res.explored_fraction = placer.stats().steps > 0
                              ? static_cast<double>(placer.stats().explored) / static_cast<double>(placer.stats().steps)
                              : 0.0;
  res.best_model = path("best.json");
  learn::save_model_file(path("reward.json"), [&] {
    learn::ModelFile f;
    f.kind = "harmony-reward";
    f.meta = model.meta;
    f.nets["reward"] = model.reward;
    f.extra["speed_scale"] = model.speed_scale;
    return f;
  }());
  res.rl_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  return res;
}

}  // namespace dmlkit::cluster
