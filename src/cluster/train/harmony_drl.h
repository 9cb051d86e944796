// What the two Harmony trainers (INFOCOM: harmony_train.h; journal seq2seq: harmony_seq2seq_train.h)
// share, so that each keeps only its networks, state encoding and reward-model rows:
//  - the knobs of the common recipe (HarmonyDrlConfig) and the common result fields;
//  - the traces (training seeds 1000000 + k, validation 2000000 + k, reward-model 1500000 + k);
//  - step 1's sample collection: the baseline placers (and random placements) in the simulator,
//    recording every decision's running jobs and measured speeds (collect_speed_samples);
//  - the baselines' validation JCT and the mean JCT of a policy over validation traces;
//  - step 2's DRL loop (run_harmony_drl): epsilon schedule, FIFO replay or latest steps, targets
//    (interval reward or discounted return), actor-critic update, checkpoints, validation, best/last.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cluster/policy.h"
#include "cluster/sim/simulator.h"
#include "cluster/workload/experiment.h"
#include "learn/model_file.h"
#include "learn/regression.h"
#include "learn/torch_plugin.h"

namespace dmlkit::cluster {

inline constexpr uint64_t kHarmonyTrainSeedBase = 1000000;  // training traces
inline constexpr uint64_t kHarmonyValSeedBase = 2000000;    // validation traces

// The knobs both designs have (each design's config derives from it and sets its own defaults).
struct HarmonyDrlConfig {
  Experiment experiment;
  std::string data_dir;
  uint64_t seed = 1;
  // Continue from the output folder's checkpoint.json (and its reward model): no samples, reward-model
  // fit or imitation; the DRL goes on from the checkpoint's step (check_resume_meta, restore_optimizer_states).
  bool resume = false;
  bool critic = true;
  bool exploration = true;
  bool replay = true;
  // Reward model.
  int rm_traces = 8;       // training traces per collecting placer
  double rm_random = 0.5;  // random-placement runs per trace (share of the baselines' count)
  int rm_epochs = 40;
  double rm_holdout = 0.2;
  double rm_lr = 1e-3;
  std::vector<std::string> rm_policies = {"lb", "tetris-align", "lif-line", "bin-packing", "standalone"};
  // DRL.
  long rl_steps = 3000;
  int batch = 64;
  int memory = 512;  // FIFO replay capacity (steps)
  double lr = 3e-4;
  double entropy_weight = 2.0;
  double gamma = 0.0;
  bool standardize = true;  // [A] advantages divided by the batch's standard deviation
  double epsilon_start = 0.5, epsilon_end = 0.05;
  long epsilon_steps = 1000;
  int train_traces = 40;
  int val_traces = 5;
  long val_every = 250;
  long checkpoint_every = 250;
  int threads = 2;
  std::vector<std::string> command;
  // [A] Ours (harmony_imitation.h): warm-start the actor by imitating a baseline before DRL.
  std::string imitate = "none";  // none | auto (the baseline best on the validation traces) | a policy name
  long il_steps = 2000;          // supervised updates (batches of `batch` steps)
  double il_lr = 1e-3;
  int il_traces = 0;  // teacher traces (training seeds; 0: --train-traces)
  // [A] Ours: the actor may make a new job wait for the next interval (harmony: HarmonyShape::defer,
  // N' actions; harmony-seq2seq: the pointer's wait target, learn::AttnShape::wait_target).
  bool defer = false;
  // [A] Ours: the first critic_warmup DRL updates train the critic only (actor learning rate 0), so
  // a fresh critic does not undo an imitated actor.
  long critic_warmup = 0;
  // The training environment's reward per interval (ps_interval_env.h, IntervalReward): "progress"
  // (DL2's normalised progress, the paper's) or [A] "jct" (minus the jobs' time in the system in
  // the interval, waiting jobs included: the return is minus the sum of JCTs / round_s).
  std::string reward = "progress";
  // [A] Ours, off by default: the rewards' scale (ps_interval_env.h, RewardScale): "none", "jobs"
  // (divided by the trace's number of jobs) or "jobs-gamma" (also multiplied by 1 - gamma), so that
  // the returns the critic fits are O(1).
  std::string reward_scale = "none";
  // [A] Ours, off by default: each batch's advantages have their mean subtracted (before the
  // division by their standard deviation), learn::normalize_advantages.
  bool center_advantages = false;
};

// Throws Error("<who> training: ...") on the common knobs that cannot train.
void check_harmony_drl_config(const HarmonyDrlConfig& c, const std::string& who);

struct IntervalEnvConfig;
// The training environment's reward (--reward, --reward-scale with --gamma) into `env`.
void set_interval_reward(const HarmonyDrlConfig& c, const std::string& who, IntervalEnvConfig& env);

struct HarmonyDrlPoint {
  long step = 0;
  double policy_loss = 0, value_loss = 0, entropy = 0, epsilon = 0;
  double val_avg_jct_s = -1;
  // The mean average JCT the reward model predicts for the training episodes finished since the
  // previous validation (the DRL's own view), beside val_avg_jct_s (the ground truth); -1: none.
  double model_avg_jct_s = -1;
};

struct HarmonyDrlResult {
  size_t rm_samples = 0;  // decisions recorded
  learn::RegressionFit rm_fit;
  std::map<std::string, double> baseline_val_jct_s;
  double init_val_jct_s = 0, best_val_jct_s = 0, last_val_jct_s = 0;
  long best_step = 0, intervals = 0, episodes = 0;
  double explored_fraction = 0;
  std::vector<HarmonyDrlPoint> curve;
  std::string best_model, last_model;
  double rm_seconds = 0, rl_seconds = 0;  // wall time (not in results.json's deterministic part)
  std::string imitate_policy;  // the imitation teacher ("" without imitation)
  size_t il_samples = 0;
  double il_accuracy = 0;  // share of the last 10 batches' arg-max = teacher's action
  double il_chance = 0;    // ... of a uniform draw among the allowed actions (harmony_imitation.h)
  double il_val_jct_s = -1;
  long start_step = 0;  // the DRL's first update (the checkpoint's step on --resume)
};

// The reward model's fit: rm_epochs, rm_lr, rm_holdout, batches of 64 rows, the run's seed.
learn::RegressionConfig reward_fit_config(const HarmonyDrlConfig& c);

// The reward model's fit as rm_* meta entries, and back (a reused or resumed reward model).
void put_fit_meta(const learn::RegressionFit& fit, size_t samples, std::map<std::string, std::string>& meta);
void get_fit_meta(const std::map<std::string, std::string>& meta, learn::RegressionFit& fit, size_t& samples);

// The run's meta: experiment, interference, seed, command, critic, exploration, replay.
void put_run_meta(const HarmonyDrlConfig& c, std::map<std::string, std::string>& meta);

struct HarmonyTraces {
  std::vector<Workload> train, val;
  std::vector<uint64_t> val_seeds;
};
HarmonyTraces harmony_traces(const Experiment& e, const std::string& data_dir, int train_traces, int val_traces);

// ---- step 1: samples of the baseline placers (and random placements)
template <class Job>
struct SpeedSampleOf {
  std::vector<Job> jobs;
  std::vector<double> speeds;  // samples/s, measured
};

struct SampleRun {
  std::string policy;  // a registry name, or "random"
  int trace;
};

// Records, at every decision of the wrapped placer, each running PS job's `Job` (from its spec and
// placement) and measured speed.
class SpeedRecorderBase : public Policy {
 public:
  explicit SpeedRecorderBase(std::unique_ptr<Policy> inner) : inner_(std::move(inner)) {}
  void schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) override;
  const char* ps_assignment() const override { return inner_->ps_assignment(); }
  bool handles_ps_jobs() const override { return inner_->handles_ps_jobs(); }
  bool charges_restarts() const override { return inner_->charges_restarts(); }

 protected:
  virtual void begin() = 0;
  virtual void record(const PsJobSpec& spec, const Placement& placement, double speed) = 0;
  virtual void end() = 0;

 private:
  std::unique_ptr<Policy> inner_;
};

template <class Job, Job (*kPlaced)(const PsJobSpec&, const Placement&)>
class SpeedRecorder final : public SpeedRecorderBase {
 public:
  SpeedRecorder(std::unique_ptr<Policy> inner, std::vector<SpeedSampleOf<Job>>& out)
      : SpeedRecorderBase(std::move(inner)), out_(out) {}

 private:
  void begin() override { s_ = {}; }
  void record(const PsJobSpec& spec, const Placement& placement, double speed) override {
    s_.jobs.push_back(kPlaced(spec, placement));
    s_.speeds.push_back(speed);
  }
  void end() override {
    if (!s_.jobs.empty()) out_.push_back(std::move(s_));
  }
  std::vector<SpeedSampleOf<Job>>& out_;
  SpeedSampleOf<Job> s_;
};

// The runs of step 1 (rm_traces per placer, then round(rm_random x that) random ones; one random run
// without placers) and their traces (seeds 1500000 + k). run(r, seed, trace) simulates run r with
// its recorder on `trace`, on up to `threads` threads; seed = c.seed * 7919 + r.
std::vector<SampleRun> sample_runs(const HarmonyDrlConfig& c);
void run_sample_collection(const HarmonyDrlConfig& c, const std::vector<SampleRun>& runs,
                           const std::function<void(size_t r, uint64_t seed, const Workload& trace)>& run);
// Runs the runs with SpeedRecorder<Job, kPlaced>: the placer of the registry, or random(seed).
// Returns each run's samples.
template <class Job, Job (*kPlaced)(const PsJobSpec&, const Placement&)>
std::vector<std::vector<SpeedSampleOf<Job>>> collect_speed_samples(
    const HarmonyDrlConfig& c, const std::vector<SampleRun>& runs, const ClusterSpec& cluster, const SimConfig& sim,
    const std::function<std::unique_ptr<Policy>(uint64_t seed)>& random) {
  std::vector<std::vector<SpeedSampleOf<Job>>> per_run(runs.size());
  run_sample_collection(c, runs, [&](size_t r, uint64_t seed, const Workload& trace) {
    std::unique_ptr<Policy> inner;
    if (runs[r].policy == "random") {
      inner = random(seed);
    } else {
      PolicyOptions o;
      o.seed = seed;
      inner = make_policy(runs[r].policy, o);
    }
    SpeedRecorder<Job, kPlaced> rec(std::move(inner), per_run[r]);
    simulate(cluster, trace, runs[r].policy, rec, sim);
  });
  return per_run;
}

// ---- validation
// Mean average JCT over the workloads, workload i simulated with make(i, cluster) (one run each on
// up to `threads`).
double mean_validation_jct(const Experiment& e, const std::string& data_dir, const std::vector<Workload>& workloads,
                           int threads, const std::string& name,
                           const std::function<std::unique_ptr<Policy>(size_t i, const ClusterSpec& cluster)>& make);
// Each placer's mean JCT on the validation traces (seeded with their seeds).
std::map<std::string, double> baseline_validation_jct(const HarmonyDrlConfig& c, const ClusterSpec& cluster,
                                                      const SimConfig& sim, const HarmonyTraces& t);

// ---- step 2: the DRL loop
// The steps an environment's sink recorded since the last interval (flat rows of the replay).
struct HarmonyDrlSteps {
  std::vector<float> states;
  std::vector<unsigned char> masks;
  std::vector<int> actions;
  std::vector<long> interval;  // the episode's interval of each pending step (gamma > 0)
  long current = 0;
  void clear() {
    states.clear();
    masks.clear();
    actions.clear();
    interval.clear();
  }
};

struct HarmonyDrlHooks {
  // Runs training episode `ep` (`step`: updates so far) in the design's environment, calling
  // on_interval(reward) after each interval; returns its average JCT at the predicted speeds, or
  // -1 (unfinished jobs).
  std::function<double(long ep, long step, const std::function<void(double)>& on_interval)> episode;
  std::function<void(const std::vector<float>& actor)> set_actor;   // the placer's parameters
  std::function<void(double epsilon)> set_epsilon;                  // the placer's exploration
  std::function<void(const std::vector<float>& critic)> set_critic;  // the critic's forward network
  std::function<double(const float* state)> baseline;               // V(s); empty without critic
  // Writes the networks (with Adam's state for checkpoint.json) as file `name` at `stage`/`step`.
  std::function<void(const std::string& name, const std::string& stage, long step)> save;
  std::function<double()> validate;  // the current actor's validation JCT (saved as last.json before)
};

// set_actor and set_epsilon of a placer (HarmonyPlacer, Seq2SeqPlacer).
template <class Placer>
void bind_placer(HarmonyDrlHooks& h, Placer& placer) {
  h.set_actor = [&placer](const std::vector<float>& p) { placer.set_parameters(p); };
  h.set_epsilon = [&placer](double eps) { placer.set_epsilon(eps); };
}

// The share of a placer's steps that explored (its stats(): steps, explored).
template <class Placer>
double explored_fraction(const Placer& placer) {
  return placer.stats().steps > 0
             ? static_cast<double>(placer.stats().explored) / static_cast<double>(placer.stats().steps)
             : 0.0;
}

struct HarmonyDrlRun {
  std::string who;          // "harmony", "harmony-seq2seq" (error messages)
  std::string dir;          // output folder
  int state_size = 0;       // replay row width
  int actions = 0;          // replay mask width
  long critic_warmup = 0;   // HarmonyDrlConfig::critic_warmup
  uint64_t rng_offset = 0;  // added to the replay sampler's stream (the resumed step)
};

// Trains `pnet` (and `vnet`, may be null) from update `step` (in: the start; out: the end) up to
// c.rl_steps updates, on the steps the design's sink writes into `steps` during hooks.episode.
// Appends to res.curve; counts res.intervals and res.episodes; updates res.last_* and res.best_*
// (JCT, step) against res.best_val_jct_s. Throws Error when no update happens in 100000 episodes.
void run_harmony_drl(const HarmonyDrlConfig& c, const HarmonyDrlRun& run, HarmonyDrlSteps& steps,
                     learn::MlpTrainerEngine& pnet, learn::MlpTrainerEngine* vnet, const HarmonyDrlHooks& hooks,
                     long& step, HarmonyDrlResult& res,
                     const std::function<void(const std::string&, long, long, const std::string&)>& report);

// A model file's networks from the trainers (Adam's states for a checkpoint). Model: HarmonyModel
// or Seq2SeqModel (policy, value, meta).
template <class Model>
void take_drl_networks(Model& model, const learn::MlpTrainerEngine& pnet, const learn::MlpTrainerEngine* vnet,
                       const std::string& stage, long step) {
  model.policy.parameters = pnet.parameters();
  if (vnet) model.value.parameters = vnet->parameters();
  model.meta["stage"] = stage;
  model.meta["step"] = std::to_string(step);
}
void add_optimizer_states(learn::ModelFile& f, const learn::MlpTrainerEngine& pnet, const learn::MlpTrainerEngine* vnet);
// The trainers' networks into `model` (take_drl_networks) and written to dir/name as to_file(model)
// makes it; checkpoint.json also gets Adam's state.
template <class Model, class ToFile>
void save_drl_networks(Model& model, const ToFile& to_file, const learn::MlpTrainerEngine& pnet,
                       const learn::MlpTrainerEngine* vnet, const std::string& dir, const std::string& name,
                       const std::string& stage, long step) {
  take_drl_networks(model, pnet, vnet, stage, step);
  learn::ModelFile f = to_file(model);
  if (name == "checkpoint.json") add_optimizer_states(f, pnet, vnet);
  learn::save_model_file((std::filesystem::path(dir) / name).string(), f);
}
// The DRL's record before its first update, at dir/best.json. A fresh run: the networks' validation
// JCT is init, best and last, and save_best("init") writes them there. --resume: init and last are
// the resumed networks'; the best so far stays best.json's (validated again, with its step) unless
// there is none: then the resumed networks are the best and save_best(their stage) writes them.
// validate(model) -> JCT; load(file) -> Model.
template <class Model, class Validate, class Load, class SaveBest>
void start_drl_record(bool resume, const std::string& dir, const Model& model, const Validate& validate,
                      const Load& load, const SaveBest& save_best, HarmonyDrlResult& res) {
  const std::string best_file = (std::filesystem::path(dir) / "best.json").string();
  res.init_val_jct_s = validate(model);
  res.last_val_jct_s = res.init_val_jct_s;
  res.best_val_jct_s = res.init_val_jct_s;
  res.best_model = res.last_model = best_file;
  if (resume && std::filesystem::is_regular_file(best_file)) {
    const Model best = load(best_file);
    res.best_val_jct_s = validate(best);
    res.best_step = best.meta.count("step") ? std::stol(best.meta.at("step")) : 0;
    return;
  }
  if (resume) res.best_step = res.start_step;
  save_best(resume ? model.meta.at("stage") : std::string("init"));
}
// --resume: Adam's state back from a checkpoint written with add_optimizer_states (Error naming `file`
// and the missing field).
void restore_optimizer_states(const learn::ModelFile& f, const std::string& file, learn::MlpTrainerEngine& pnet,
                              learn::MlpTrainerEngine* vnet);
// --resume: Error naming `file` unless the checkpoint's meta has this run's experiment, interference
// and seed; returns the checkpoint's step.
long check_resume_meta(const std::map<std::string, std::string>& meta, const HarmonyDrlConfig& c, const std::string& file);

}  // namespace dmlkit::cluster
