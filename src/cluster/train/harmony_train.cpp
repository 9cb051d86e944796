// Training Harmony: reward model, then DRL on it; see harmony_train.h.
#include "cluster/train/harmony_train.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>
#include <numeric>

#include "cluster/policies/harmony/harmony_policy.h"
#include "cluster/sim/metrics.h"
#include "cluster/train/harmony_env.h"
#include "cluster/train/harmony_imitation.h"
#include "core/error.h"
#include "core/parallel_for.h"
#include "learn/actor_critic.h"
#include "learn/mlp_trainer.h"

namespace dmlkit::cluster {

namespace {

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
  return mean_validation_jct(e, data_dir, workloads, threads, "harmony", [&](size_t i, const ClusterSpec& cluster) {
    return std::make_unique<HarmonyPolicy>(model, &cluster, HarmonyPolicyConfig{}, seeds[i]);
  });
}

void check_harmony_train_config(const HarmonyTrainConfig& c) {
  if (c.jobs < 1 || c.new_jobs < 1 || c.new_jobs > c.jobs)
    throw Error("harmony training: need 1 <= --new-jobs <= --jobs");
  if (c.neurons < 1 || c.layers < 1 || c.rm_neurons < 1 || c.rm_layers < 1)
    throw Error("harmony training: --neurons, --layers, --rm-neurons and --rm-layers must be positive");
  check_harmony_drl_config(c, "harmony");
}

namespace {

using HarmonyReport = std::function<void(const std::string&, long, long, const std::string&)>;

std::string path_in(const std::string& dir, const std::string& name) {
  return (std::filesystem::path(dir) / name).string();
}

// The reward model's fit and errors from the meta of the file it comes from.
void take_rm_meta(const std::map<std::string, std::string>& meta, HarmonyModel& model, HarmonyTrainResult& res) {
  get_fit_meta(meta, res.rm_fit, res.rm_samples);
  res.rm_rows = meta.count("rm_rows") ? static_cast<size_t>(std::stod(meta.at("rm_rows"))) : 0;
  for (const auto& [k, v] : meta) {
    if (k.rfind("rm_", 0) == 0) model.meta[k] = v;
    if (k.rfind("rm_err_", 0) == 0) res.rm_err_by_policy[k.substr(7)] = std::stod(v);
  }
}

// --resume: the checkpoint holds the networks (actor, critic, reward model) and Adam's state.
void resume_harmony_model(const HarmonyTrainConfig& c, const std::string& dir, const HarmonyShape& shape,
                          learn::ModelFile& checkpoint, HarmonyModel& model, HarmonyTrainResult& res) {
  const std::string file = path_in(dir, "checkpoint.json");
  checkpoint = learn::load_model_file(file);
  model = load_harmony_model(file);
  res.start_step = check_resume_meta(model.meta, c, file);
  const HarmonyShape& got = model.shape;
  if (got.servers != shape.servers || got.jobs != shape.jobs || got.new_jobs != shape.new_jobs ||
      got.defer != shape.defer || got.type_counts != shape.type_counts)
    throw Error(file, 0, "meta",
                "--resume: the checkpoint was made with another --jobs, --new-jobs, --defer or --type-counts");
  if (!model.has_reward()) throw Error(file, 0, "nets.reward", "--resume: the checkpoint has no reward model");
  take_rm_meta(model.meta, model, res);
}

// --reward-model FILE: an earlier run's reward model (its errors come from its meta).
void reuse_reward_model(const HarmonyTrainConfig& c, const HarmonyShape& shape, HarmonyModel& model,
                        HarmonyTrainResult& res) {
  const learn::ModelFile f = learn::load_model_file(c.reward_model);
  auto it = f.nets.find("reward");
  if (f.kind != "harmony-reward" || it == f.nets.end() || f.extra.count("speed_scale") == 0)
    throw Error(c.reward_model, 0, "kind", "not a Harmony reward model (reward.json of cluster train harmony)");
  if (it->second.shape.inputs != harmony_reward_input_size(shape) || it->second.shape.outputs != shape.jobs)
    throw Error(c.reward_model, 0, "nets.reward", "made for another number of servers or job slots");
  model.reward = it->second;
  model.speed_scale = f.extra.at("speed_scale");
  take_rm_meta(f.meta, model, res);
  model.meta["reward_model_from"] = c.reward_model;
}

using HarmonySamples = std::vector<std::vector<SpeedSampleOf<HarmonyPlacedJob>>>;

// Each job type's largest observed speed (1 for a type never seen).
std::vector<float> harmony_speed_scale(const HarmonySamples& per_run) {
  std::vector<float> scale(kHarmonyTypes, 0.0f);
  for (const auto& pr : per_run)
    for (const auto& s : pr)
      for (size_t j = 0; j < s.jobs.size(); ++j)
        scale[s.jobs[j].type] = std::max(scale[s.jobs[j].type], static_cast<float>(s.speeds[j]));
  for (float& v : scale)
    if (!(v > 0)) v = 1.0f;  // a type never seen
  return scale;
}

// The reward model's rows: each sample, and rm_augment copies with its job slots (and, on a cluster
// of identical servers, its servers) randomly permuted; speeds divided by their type's scale.
learn::RegressionData harmony_reward_data(const HarmonyTrainConfig& c, const HarmonyShape& shape,
                                          const ClusterSpec& cluster, const HarmonySamples& per_run,
                                          const std::vector<float>& scale, size_t& samples) {
  learn::RegressionData data;
  data.inputs = harmony_reward_input_size(shape);
  data.outputs = shape.jobs;
  Rng aug = Rng(c.seed).split(0xa06);
  const bool permute_servers = identical_servers(cluster);
  std::vector<float> x(data.inputs), y(shape.jobs), w(shape.jobs);
  std::vector<HarmonyPlacedJob> jobs;
  std::vector<int> order, servers(shape.servers);
  for (const auto& pr : per_run)
    for (const auto& s : pr) {
      ++samples;
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
  return data;
}

// Diagnosis: the fitted model's mean relative error on each placer's own samples (unaugmented; most
// of them were fitted, so this is in-sample): where is the model wrong?
void reward_error_by_policy(const HarmonyShape& shape, const std::vector<SampleRun>& runs,
                            const HarmonySamples& per_run, HarmonyModel& model, HarmonyTrainResult& res) {
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

// Step 1: reward-model samples from the baselines (and random placements) in the simulator, the
// MLP fitted on them, its errors.
void fit_harmony_reward_model(const HarmonyTrainConfig& c, const HarmonyShape& shape, const ClusterSpec& cluster,
                              const SimConfig& sim, HarmonyModel& model, HarmonyTrainResult& res,
                              const HarmonyReport& report) {
  const std::vector<SampleRun> runs = sample_runs(c);
  report("samples", 0, static_cast<long>(runs.size()), "");
  const auto per_run =
      collect_speed_samples<HarmonyPlacedJob, harmony_placed_job>(c, runs, cluster, sim, [&](uint64_t seed) {
        HarmonyPolicyConfig pc;
        pc.select_max = false;  // uniform over the allowed actions: the zero network's logits are equal
        return std::make_unique<HarmonyPolicy>(zero_model(shape), &cluster, pc, seed);
      });
  const std::vector<float> scale = harmony_speed_scale(per_run);
  const learn::RegressionData data = harmony_reward_data(c, shape, cluster, per_run, scale, res.rm_samples);
  res.rm_rows = data.rows();
  if (data.rows() < 2) throw Error("harmony training: the placers produced no reward-model sample");
  model.speed_scale = scale;
  model.reward.shape = harmony_reward_shape(shape, hidden(c.rm_neurons, c.rm_layers));
  Rng init = Rng(c.seed).split(0x2e3);
  const learn::RegressionConfig rc = reward_fit_config(c);
  report("reward model", 0, c.rm_epochs, "");
  res.rm_fit = fit_regression(
      model.reward.shape, learn::mlp_initial_parameters(model.reward.shape, init), data, rc,
      [&](int ep, double mse) { report("reward model", ep, c.rm_epochs, "hold-out MSE " + std::to_string(mse)); });
  model.reward.parameters = res.rm_fit.parameters;
  reward_error_by_policy(shape, runs, per_run, model, res);
  put_fit_meta(res.rm_fit, res.rm_samples, model.meta);
  model.meta["rm_rows"] = std::to_string(res.rm_rows);
}

// The actor and critic: fresh, or the checkpoint's (which must have this run's shape).
void init_harmony_networks(const HarmonyTrainConfig& c, const std::string& dir, HarmonyModel& model) {
  if (!c.resume) {
    Rng init = Rng(c.seed).split(0x1a17);
    model.policy.shape = harmony_policy_shape(model.shape, hidden(c.neurons, c.layers));
    model.policy.parameters = learn::mlp_initial_parameters(model.policy.shape, init);
    if (c.critic) {
      model.value.shape = harmony_value_shape(model.shape, hidden(c.neurons, c.layers));
      model.value.parameters = learn::mlp_initial_parameters(model.value.shape, init);
    }
    return;
  }
  const std::string file = path_in(dir, "checkpoint.json");
  if (model.policy.shape.hidden != hidden(c.neurons, c.layers))
    throw Error(file, 0, "nets.policy", "--resume: the checkpoint was made with another --neurons or --layers");
  if (c.critic && !model.has_value()) throw Error(file, 0, "nets.value", "--resume: the checkpoint has no critic");
  if (!c.critic) model.value = {};
}

// What the DRL step works with: the preset's simulations and traces, the model being trained, its
// trainers and the critic's forward pass.
struct HarmonyDrlState {
  const HarmonyTrainConfig& c;
  const std::string& dir;
  const ClusterSpec& cluster;
  const SimConfig& sim;
  const HarmonyTraces& traces;
  const HarmonyShape& shape;  // this run's (a resumed model's was checked to be the same)
  HarmonyModel& model;
  std::unique_ptr<learn::MlpTrainerEngine> pnet, vnet;
  std::unique_ptr<learn::MlpForward> vforward;
  long step = 0;

  double validate() const {
    return harmony_validation_jct(c.experiment, c.data_dir, model, traces.val, traces.val_seeds, c.threads);
  }
  void save(const std::string& name, const std::string& stage, long at) {
    save_drl_networks(model, harmony_model_file, *pnet, vnet.get(), dir, name, stage, at);
  }
};

// [A] The imitation warm start (harmony_imitation.h), then a checkpoint of the imitated networks
// (--resume can start several DRL runs from it).
void harmony_imitation_step(HarmonyDrlState& st, HarmonyTrainResult& res, const HarmonyReport& report) {
  const HarmonyShape& shape = st.shape;
  const learn::MlpShape ashape = st.model.policy.shape;
  ImitationHooks il;
  il.replay = [&] { return std::make_unique<HarmonyBoardReplay>(shape, st.cluster); };
  il.forward = [ashape](const std::vector<float>& p) -> learn::RowPredictor {
    auto f = std::make_shared<learn::MlpForward>(ashape, p);
    return [f](const float* row) -> const std::vector<float>& { return f->run(row); };
  };
  il.take_and_validate = [&](const std::vector<float>& p, const std::string& teacher) {
    st.model.policy.parameters = p;
    st.model.meta["imitate"] = teacher;
    st.model.meta["stage"] = "imitation";
    return st.validate();
  };
  il.save = [&](const std::string& file) {
    learn::save_model_file(path_in(st.dir, file), harmony_model_file(st.model));
  };
  imitation_warm_start(st.c, st.cluster, st.sim, st.traces, *st.pnet, shape.state_size(), shape.actions(), il, res,
                       report);
  st.save("checkpoint.json", "imitation", st.step);
}

// Step 2: DRL on the reward model (harmony_env.h) through the shared loop (harmony_drl.h).
void harmony_drl_step(HarmonyDrlState& st, HarmonyTrainResult& res, const HarmonyReport& report) {
  const HarmonyTrainConfig& c = st.c;
  const HarmonyModel& model = st.model;
  const HarmonyShape& shape = st.shape;
  HarmonySpeedPredictor predictor(shape, model.reward, model.speed_scale);
  const HarmonySpeedFn speed = [&](std::span<const HarmonyPlacedJob> jobs, std::vector<double>& out) {
    predictor.predict(jobs, out);
  };
  HarmonyEnvConfig env;
  env.round_s = c.experiment.round_s;
  set_interval_reward(c, "harmony", env);
  const int d = shape.state_size(), A = shape.actions();
  struct Sink final : HarmonyStepSink, HarmonyDrlSteps {
    int d = 0, a = 0;
    void on_step(const float* s, const unsigned char* m, int act) override {
      states.insert(states.end(), s, s + d);
      masks.insert(masks.end(), m, m + a);
      actions.push_back(act);
      interval.push_back(current);
    }
  } sink;
  sink.d = d;
  sink.a = A;
  HarmonyPlacer placer(shape, st.cluster, model.policy, c.seed * 1000003 + 17 + static_cast<uint64_t>(st.step));
  placer.set_select_max(false);
  placer.set_sink(&sink);
  HarmonyDrlHooks hooks;
  // A resumed run continues the episode order from its first step (an uninterrupted run: from 0).
  hooks.episode = [&](long ep, long, const std::function<void(double)>& on_interval) {
    const Workload& trace = st.traces.train[static_cast<size_t>(ep + res.start_step) % st.traces.train.size()];
    const HarmonyEpisode done = run_harmony_env(st.cluster, trace, placer, speed, model.speed_scale, env, on_interval);
    return done.unfinished == 0 ? done.avg_jct_s : -1.0;
  };
  bind_placer(hooks, placer);
  hooks.set_critic = [&](const std::vector<float>& p) { *st.vforward = learn::MlpForward(model.value.shape, p); };
  if (st.vforward) hooks.baseline = [&](const float* s) { return static_cast<double>(st.vforward->run(s)[0]); };
  hooks.save = [&](const std::string& name, const std::string& stage, long at) { st.save(name, stage, at); };
  hooks.validate = [&] { return st.validate(); };
  const HarmonyDrlRun run{"harmony", st.dir, d, A, c.critic_warmup, static_cast<uint64_t>(st.step)};
  run_harmony_drl(c, run, sink, *st.pnet, st.vnet.get(), hooks, st.step, res, report);
  res.explored_fraction = explored_fraction(placer);
}

// reward.json: the reward model alone (--reward-model of a later run).
void save_reward_model(const std::string& dir, const HarmonyModel& model) {
  learn::ModelFile f;
  f.kind = "harmony-reward";
  f.meta = model.meta;
  f.nets["reward"] = model.reward;
  f.extra["speed_scale"] = model.speed_scale;
  learn::save_model_file(path_in(dir, "reward.json"), f);
}

}  // namespace

HarmonyTrainResult train_harmony(const HarmonyTrainConfig& c, const std::string& dir, const HarmonyReport& progress) {
  check_harmony_train_config(c);
  if (c.resume && !std::filesystem::is_regular_file(path_in(dir, "checkpoint.json")))
    throw Error(path_in(dir, "checkpoint.json"), 0, "", "--resume: no checkpoint.json in the output folder");
  std::filesystem::create_directories(dir);
  const HarmonyReport report = [&](const std::string& phase, long step, long total, const std::string& detail) {
    if (progress) progress(phase, step, total, detail);
  };
  HarmonyTrainResult res;
  const ClusterSpec cluster = ClusterSpec::parse(c.experiment.cluster);
  const SimConfig sim = experiment_sim_config(c.experiment, c.data_dir);
  HarmonyShape shape;
  shape.servers = cluster.num_servers();
  shape.jobs = c.jobs;
  shape.new_jobs = c.new_jobs;
  shape.defer = c.defer;
  shape.type_counts = c.type_counts;
  const HarmonyTraces traces = harmony_traces(c.experiment, c.data_dir, c.train_traces, c.val_traces);
  const auto t0 = std::chrono::steady_clock::now();

  // ---- 1. the reward model: the checkpoint's, an earlier run's, or fitted here
  HarmonyModel model;
  model.shape = shape;
  learn::ModelFile checkpoint;
  if (c.resume)
    resume_harmony_model(c, dir, shape, checkpoint, model, res);
  else if (!c.reward_model.empty())
    reuse_reward_model(c, shape, model, res);
  else
    fit_harmony_reward_model(c, shape, cluster, sim, model, res, report);
  put_run_meta(c, model.meta);
  model.meta["neurons"] = std::to_string(c.neurons);
  model.meta["layers"] = std::to_string(c.layers);
  const auto t1 = std::chrono::steady_clock::now();
  res.rm_seconds = std::chrono::duration<double>(t1 - t0).count();

  // ---- baselines on the validation traces (the targets)
  res.baseline_val_jct_s = baseline_validation_jct(c, cluster, sim, traces);

  // ---- 2. DRL on the reward model
  init_harmony_networks(c, dir, model);
  HarmonyDrlState st{
      c,       dir,     cluster,       sim,
      traces,  shape,   model,         learn::make_mlp_trainer(model.policy.shape, model.policy.parameters, c.lr),
      nullptr, nullptr, res.start_step};
  if (c.critic) {
    st.vnet = learn::make_mlp_trainer(model.value.shape, model.value.parameters, c.lr);
    st.vforward = std::make_unique<learn::MlpForward>(model.value.shape, model.value.parameters);
  }
  if (c.resume) restore_optimizer_states(checkpoint, path_in(dir, "checkpoint.json"), *st.pnet, st.vnet.get());
  start_drl_record(
      c.resume, dir, model,
      [&](const HarmonyModel& m) {
        return harmony_validation_jct(c.experiment, c.data_dir, m, traces.val, traces.val_seeds, c.threads);
      },
      load_harmony_model, [&](const std::string& stage) { st.save("best.json", stage, st.step); }, res);
  report("rl", st.step, c.rl_steps, "val JCT " + std::to_string(res.init_val_jct_s));
  if (c.imitate != "none" && !c.resume) harmony_imitation_step(st, res, report);
  harmony_drl_step(st, res, report);
  res.best_model = path_in(dir, "best.json");
  save_reward_model(dir, model);
  res.rl_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  return res;
}

}  // namespace dmlkit::cluster
