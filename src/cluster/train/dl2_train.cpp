// Training DL2: supervised warm-up, then actor-critic RL; see dl2_train.h.
#include "cluster/train/dl2_train.h"

#include <algorithm>
#include <atomic>
#include <barrier>
#include <exception>
#include <cmath>
#include <filesystem>
#include <limits>
#include <mutex>
#include <numeric>
#include <thread>

#include "cluster/policies/dl2/dl2_policy.h"
#include "cluster/sim/metrics.h"
#include "cluster/train/dl2_teacher.h"
#include "core/csv.h"
#include "core/output_dir.h"
#include "core/provenance.h"
#include "core/table.h"
#include "core/error.h"
#include "core/parallel_for.h"
#include "learn/actor_critic.h"
#include "learn/fifo_replay.h"
#include "learn/mlp_trainer.h"
#include "learn/model_file.h"
#include "learn/prioritized_replay.h"

namespace dmlkit::cluster {

namespace {

constexpr uint64_t kTrainSeedBase = 1000000;  // training traces: seeds 1000000 + k


struct StopEpisode {};  // thrown out of a simulation when training has what it needs

learn::ModelFile model_file(const Dl2TrainConfig& c, const learn::StoredNet& policy, const learn::StoredNet* value,
                            const std::string& stage, long step) {
  learn::ModelFile f;
  f.kind = "dl2";
  f.meta["experiment"] = c.experiment.name;
  f.meta["teacher"] = c.teacher;
  for (const auto& [key, value] : c.teacher_params) f.meta["teacher." + key] = value;
  f.meta["net"] = c.net;
  f.meta["window"] = std::to_string(c.window);
  f.meta["seed"] = std::to_string(c.seed);
  f.meta["actors"] = std::to_string(c.actors);
  f.meta["stage"] = stage;
  f.meta["step"] = std::to_string(step);
  f.meta["command"] = shell_command_line(c.command);
  f.nets["policy"] = policy;
  if (value != nullptr) f.nets["value"] = *value;
  return f;
}

learn::StoredNet with_parameters(learn::StoredNet net, std::vector<float> parameters) {
  net.parameters = std::move(parameters);
  return net;
}

bool same_shape(const learn::StoredNet& a, const learn::StoredNet& b) {
  return a.arch == b.arch && a.shape == b.shape && (a.arch != "column" || a.column == b.column);
}

std::unique_ptr<learn::MlpTrainerEngine> make_trainer(const learn::StoredNet& net, double lr) {
  if (net.arch == "column") return learn::make_column_trainer(net.column, net.parameters, lr);
  return learn::make_mlp_trainer(net.shape, net.parameters, lr);
}

double avg_jct(const SimResult& r) { return compute_metrics(r).avg_jct_s; }

// ---------------------------------------------------------------- supervised warm-up
class SlTrainer {
 public:
  SlTrainer(const Dl2TrainConfig& c, learn::MlpTrainerEngine& net, std::vector<Dl2TrainPoint>& curve,
            const std::function<void(long)>& on_step)
      : c_(c),
        net_(net),
        curve_(curve),
        on_step_(on_step),
        rng_(Rng(c.seed).split(0x51a)),
        memory_(static_cast<size_t>(c.memory), kDl2Rows * c.window, 0) {
    batch_x_.resize(static_cast<size_t>(c.batch) * kDl2Rows * c.window);
    batch_y_.resize(c.batch);
  }
  void store(const Dl2SlSample& s) { memory_.add(s.state.data(), nullptr, s.label, 0.0f); }
  void after_slot() {
    if (!memory_.full()) return;
    const size_t d = static_cast<size_t>(kDl2Rows) * c_.window;
    memory_.sample(static_cast<size_t>(c_.batch), rng_, index_);
    for (int b = 0; b < c_.batch; ++b) {
      std::copy_n(memory_.state(index_[b]), d, batch_x_.begin() + static_cast<long>(b * d));
      batch_y_[b] = memory_.action(index_[b]);
    }
    const learn::LossStats s = net_.add_cross_entropy_gradient(batch_x_.data(), c_.batch, batch_y_.data());
    net_.step(1);
    ++steps_;
    curve_.push_back({"sl", steps_, s.loss, static_cast<double>(s.correct) / c_.batch, -1});
    if (on_step_) on_step_(steps_);
    if (steps_ >= c_.sl_steps) throw StopEpisode{};
  }
  long steps() const { return steps_; }

 private:
  const Dl2TrainConfig& c_;
  learn::MlpTrainerEngine& net_;
  std::vector<Dl2TrainPoint>& curve_;
  std::function<void(long)> on_step_;
  Rng rng_;
  learn::FifoReplay memory_;  // the SL memory: states and teacher labels
  std::vector<float> batch_x_;
  std::vector<int> batch_y_;
  std::vector<size_t> index_;
  long steps_ = 0;
};

// ---------------------------------------------------------------- reinforcement learning
// One actor: a simulator thread whose dl2 policy calls back at every slot.
struct Actor final : Dl2Actor {
  int id = 0;
  int d = 0, actions = 0;
  Dl2Policy* policy = nullptr;
  learn::PrioritizedReplay replay;
  Rng rng;
  double gamma = 0;
  bool use_replay = true;
  // Stored samples (ring of replay.capacity()).
  std::vector<float> states;
  std::vector<unsigned char> masks;
  std::vector<int> acts;
  std::vector<float> rewards;
  // Target "td": the next step's state within the slot, and whether there is one.
  bool td = false;
  std::vector<float> next_states;
  std::vector<unsigned char> has_next;
  // This slot's steps (reward not known yet), and with gamma > 0 the episode's so far.
  std::vector<float> pend_states;
  std::vector<unsigned char> pend_masks;
  std::vector<int> pend_acts;
  std::vector<long> pend_slot;  // which slot of the episode each pending step belongs to
  std::vector<int> pend_job;    // the job each pending step acted on (-1: VOID)
  bool job_reward = false;      // the acting-job ablation (rl_env.py get_job_reward)
  std::vector<double> slot_rewards;
  long slot_index = 0;
  // The batch handed to the learner at this barrier.
  bool has_batch = false;
  learn::PrioritizedReplay::Batch batch;
  std::vector<size_t> latest;  // no-replay ablation: the slots of the latest slot's steps
  int batch_size = 0;
  std::function<void(Actor&)> sync;  // the barrier; set by the trainer
  bool ending = false;               // set around Dl2Policy::finish() (the episode's last report)
  long slots = 0;

  Actor(int id_, int d_, int a_, const learn::PrioritizedReplayConfig& rc, uint64_t seed)
      : id(id_), d(d_), actions(a_), replay(rc), rng(Rng(seed).split(0xac7 + id_)) {
    const size_t cap = rc.capacity;
    states.resize(cap * d);
    masks.resize(cap * actions);
    acts.resize(cap);
    rewards.resize(cap);
    has_next.assign(cap, 0);
  }

  // `next` >= 0: the pending step whose state follows this one within the slot (target "td").
  void push(size_t k, double reward, long next = -1) {
    const size_t slot = replay.add(replay.reward_priority(reward));
    std::copy_n(pend_states.begin() + static_cast<long>(k * d), d, states.begin() + static_cast<long>(slot * d));
    has_next[slot] = next >= 0;
    if (next >= 0) {
      if (next_states.empty()) next_states.resize(has_next.size() * d);
      std::copy_n(pend_states.begin() + next * d, d, next_states.begin() + static_cast<long>(slot * d));
    }
    std::copy_n(pend_masks.begin() + static_cast<long>(k * actions), actions,
                masks.begin() + static_cast<long>(slot * actions));
    acts[slot] = pend_acts[k];
    rewards[slot] = static_cast<float>(reward);
    latest.push_back(slot);
  }

  void clear_pending() {
    pend_states.clear();
    pend_masks.clear();
    pend_acts.clear();
    pend_slot.clear();
    pend_job.clear();
  }

  // Moves pending steps into the replay: with gamma = 0 at every slot end, else at episode end.
  void flush(bool episode_end) {
    latest.clear();
    if (gamma <= 0) {
      const double r = slot_rewards.empty() ? 0.0 : slot_rewards.back();
      const size_t n = pend_acts.size();
      for (size_t k = 0; k < n; ++k) {
        if (td && k + 1 < n)
          push(k, 0.0, static_cast<long>(k + 1));
        else
          push(k, job_reward ? acting_job_reward(k, r) : r);
      }
      clear_pending();
      slot_rewards.clear();
      return;
    }
    if (!episode_end) return;
    const std::vector<double> ret = learn::discounted_returns(slot_rewards, gamma);
    for (size_t k = 0; k < pend_acts.size(); ++k)
      push(k, pend_slot[k] < static_cast<long>(slot_rewards.size()) ? ret[pend_slot[k]] : 0.0);
    clear_pending();
    slot_rewards.clear();
  }

  // A step's reward in the acting-job ablation: its job's normalised progress in the slot; VOID:
  // the slot's reward divided by the number of jobs that ran.
  double acting_job_reward(size_t k, double slot_reward) const {
    const auto& prog = policy->last_progress();
    if (pend_job[k] < 0) return prog.empty() ? 0.0 : slot_reward / static_cast<double>(prog.size());
    for (const auto& [id, p] : prog)
      if (id == pend_job[k]) return p;
    return 0.0;
  }

  void on_slot(double reward, bool had_slot) override {
    if (had_slot) {
      slot_rewards.push_back(reward);
      ++slots;
    }
    flush(ending);
    ++slot_index;
    has_batch = false;
    if (use_replay && replay.full()) {
      replay.sample(static_cast<size_t>(batch_size), rng, batch);
      has_batch = true;
    } else if (!use_replay && !latest.empty()) {
      batch.slots = latest;
      batch.weights.assign(latest.size(), 1.0);
      has_batch = true;
    }
    sync(*this);
  }

  void end_episode() {
    // The policy's finish() reported the last slot through on_slot; drop what gamma kept.
    slot_rewards.clear();
    clear_pending();
    slot_index = 0;
  }

  void on_sample(const float* state, const unsigned char* mask, int action, int job_id) override {
    pend_job.push_back(job_id);
    pend_states.insert(pend_states.end(), state, state + d);
    pend_masks.insert(pend_masks.end(), mask, mask + actions);
    pend_acts.push_back(action);
    pend_slot.push_back(static_cast<long>(slot_rewards.size()));
  }
};

}  // namespace

std::string dl2_curve_csv(const std::vector<Dl2TrainPoint>& curve) {
  TextTable t({"phase", "step", "loss", "sl_accuracy", "val_avg_jct_s"});
  for (const auto& p : curve)
    t.add_row({p.phase, std::to_string(p.step), fixed(p.loss, 3), p.accuracy >= 0 ? fixed(p.accuracy, 3) : "",
               p.val_avg_jct_s >= 0 ? fixed(p.val_avg_jct_s, 3) : ""});
  return t.to_csv();
}

std::vector<Dl2TrainPoint> read_dl2_curve_csv(const std::string& path) {
  const CsvTable t = CsvTable::read(path);
  const int phase = t.column("phase"), step = t.column("step"), loss = t.column("loss"),
            accuracy = t.column("sl_accuracy"), val = t.column("val_avg_jct_s");
  std::vector<Dl2TrainPoint> curve;
  for (size_t r = 0; r < t.rows(); ++r) {
    Dl2TrainPoint p;
    p.phase = std::string(t.str(r, phase));
    if (p.phase != "sl" && p.phase != "rl") t.fail(r, phase, "expected sl or rl");
    p.step = t.integer(r, step);
    p.loss = t.num(r, loss);
    if (!t.str(r, accuracy).empty()) p.accuracy = t.num(r, accuracy);
    if (!t.str(r, val).empty()) p.val_avg_jct_s = t.num(r, val);
    curve.push_back(std::move(p));
  }
  return curve;
}

double dl2_validation_jct(const Experiment& e, const std::string& data_dir, const std::string& model_path,
                          const std::vector<Workload>& workloads, int threads) {
  const ClusterSpec cluster = ClusterSpec::parse(e.cluster);
  const SimConfig config = experiment_sim_config(e, data_dir);
  std::vector<double> jct(workloads.size());
  PolicyOptions o;
  o.params["dl2.model"] = model_path;
  parallel_for(workloads.size(), std::max(1, threads), [&](size_t i) {
    PolicyOptions oi = o;
    oi.seed = e.seeds[i];
    auto policy = make_policy("dl2", oi);
    jct[i] = avg_jct(simulate(cluster, workloads[i], "dl2", *policy, config));
  });
  return std::accumulate(jct.begin(), jct.end(), 0.0) / static_cast<double>(std::max<size_t>(1, jct.size()));
}

void check_dl2_train_config(const Dl2TrainConfig& c) {
  if (c.window < 1 || c.batch < 1 || c.memory < c.batch || c.actors < 1 || c.train_traces < 1)
    throw Error("dl2 training: window, batch, actors and traces must be positive and memory >= batch");
  if (c.batch % c.actors != 0) throw Error("dl2 training: --batch must be a multiple of --actors");
  if (c.reward != "slot" && c.reward != "job" && c.reward != "speedup")
    throw Error("dl2 training: --reward must be slot, job or speedup");
  if (c.reward == "job" && c.gamma > 0) throw Error("dl2 training: --reward job takes no --gamma (as in the code)");
  if (c.target != "slot" && c.target != "td") throw Error("dl2 training: --target must be slot or td");
  if (c.target == "td" && (c.gamma > 0 || c.reward == "job"))
    throw Error("dl2 training: --target td bootstraps within a slot and takes neither --gamma nor --reward job");
  if (!(c.entropy_weight >= 0) || !(c.rl_lr > 0) || !(c.sl_lr > 0))
    throw Error("dl2 training: --entropy-weight must be >= 0 and the learning rates > 0");
  if (c.critic_warmup < 0) throw Error("dl2 training: --critic-warmup must be >= 0");
  // The teacher: any registered policy that reports its allocation steps (Dl2Teacher: the DL2
  // simulator's heuristics and fixed-dl2), with its knobs.
  if (policy_registry().find(c.teacher) == nullptr)
    throw Error("--teacher: unknown policy '" + c.teacher + "' (known: " + policy_registry().known() + ")");
  check_policy_params({c.teacher}, c.teacher_params, "--teacher-param");
  PolicyOptions teacher_options;
  teacher_options.params = c.teacher_params;
  if (dynamic_cast<const Dl2Teacher*>(make_policy(c.teacher, teacher_options).get()) == nullptr)
    throw Error("--teacher: " + c.teacher +
                " cannot teach DL2 (a teacher reports its allocation steps, as the DL2 simulator's heuristics and "
                "fixed-dl2 do)");
  if (c.column_hidden.empty() || *std::min_element(c.column_hidden.begin(), c.column_hidden.end()) < 1)
    throw Error("dl2 training: --column-hidden needs one or more positive widths");
  if (c.net != "shared" && c.column_hidden != kDl2ColumnHidden)
    throw Error("dl2 training: --column-hidden applies to --net shared only");
  if (!c.init_model.empty()) {
    const Dl2Model m = load_dl2_model(c.init_model);  // a one-line error naming the file if bad
    const bool column = m.policy.arch == "column";
    if (column != (c.net == "shared"))
      throw Error("--init-model: " + m.path + " has a" + (column ? " column-shared (--net shared)" : "n MLP") +
                  " policy network; this run trains --net " + c.net);
    if (column) {
      learn::ColumnNetShape want = dl2_column_shape(c.window, c.column_hidden), got = m.policy.column;
      got.window = c.window;
      if (!(want == got)) throw Error("--init-model: " + m.path + " has another column network shape");
    } else if (!(m.policy.shape == dl2_net_shape(c.net, c.window, false))) {
      throw Error("--init-model: " + m.path + " has another network shape (window " + std::to_string(m.window) +
                  "); an MLP model only continues at its own window and --net");
    }
  }
  for (uint64_t s : c.experiment.seeds)
    if (s >= kTrainSeedBase)
      throw Error("dl2 training: evaluation seed " + std::to_string(s) +
                  " overlaps the training traces' seeds (>= 1000000)");
}

Dl2TrainResult train_dl2(const Dl2TrainConfig& c, const std::string& dir,
                         const std::function<void(const std::string&, long, long, const std::string&)>& progress) {
  check_dl2_train_config(c);
  std::filesystem::create_directories(dir);
  Dl2TrainResult res;
  const ClusterSpec cluster = ClusterSpec::parse(c.experiment.cluster);
  const SimConfig sim = experiment_sim_config(c.experiment, c.data_dir);
  // Training runs on the preset's speed model unless train_speed_model names another (OfflineRL:
  // trained on Optimus's analytic model, validated on the measured table).
  Experiment train_exp = c.experiment;
  if (!c.train_speed_model.empty()) {
    train_exp.speed_model = c.train_speed_model;
    train_exp.speed_table.clear();
  }
  const SimConfig train_sim = experiment_sim_config(train_exp, c.data_dir);
  std::vector<Workload> train, val;
  for (int k = 0; k < c.train_traces; ++k)
    train.push_back(ps_workload(c.experiment.workload, kTrainSeedBase + k, c.data_dir));
  for (uint64_t s : c.experiment.seeds) val.push_back(ps_workload(c.experiment.workload, s, c.data_dir));
  Dl2Shape shape;
  shape.window = c.window;
  auto path = [&](const std::string& name) { return (std::filesystem::path(dir) / name).string(); };
  auto report = [&](const std::string& phase, long step, long total, const std::string& detail) {
    if (progress) progress(phase, step, total, detail);
  };

  // Teacher's validation JCT (the SL target).
  {
    std::vector<double> jct(val.size());
    parallel_for(val.size(), c.val_threads, [&](size_t i) {
      PolicyOptions o;
      o.seed = c.experiment.seeds[i];
      o.params = c.teacher_params;
      auto t = make_policy(c.teacher, o);
      jct[i] = avg_jct(simulate(cluster, val[i], c.teacher, *t, sim));
    });
    res.teacher_val_avg_jct_s = std::accumulate(jct.begin(), jct.end(), 0.0) / static_cast<double>(jct.size());
  }

  // ---- SL (or resume)
  Rng init = Rng(c.seed).split(0x1a17);
  learn::StoredNet policy = dl2_initial_net(c.net, c.window, false, init, c.column_hidden);
  learn::StoredNet value = dl2_initial_net(c.net, c.window, true, init);
  const learn::StoredNet pshape = with_parameters(policy, {}), vshape = with_parameters(value, {});
  long rl_start = 0;
  std::vector<float> popt, vopt;
  const bool resuming = c.resume && std::filesystem::is_regular_file(path("checkpoint.json"));
  if (resuming) {
    const learn::ModelFile ck = learn::load_model_file(path("checkpoint.json"));
    if (ck.nets.count("policy") == 0 || !same_shape(ck.nets.at("policy"), pshape) || ck.nets.count("value") == 0 ||
        !same_shape(ck.nets.at("value"), vshape))
      throw Error(path("checkpoint.json"), 0, "nets", "checkpoint of another network shape");
    policy = ck.nets.at("policy");
    value = ck.nets.at("value");
    rl_start = std::stol(ck.meta.at("step"));
    // The curve up to the checkpoint (written with it; a checkpoint of an older dmlkit has none).
    if (std::filesystem::is_regular_file(path("training.csv"))) {
      res.curve = read_dl2_curve_csv(path("training.csv"));
      std::erase_if(res.curve, [&](const Dl2TrainPoint& p) { return p.phase == "rl" && p.step > rl_start; });
    }
    if (ck.extra.count("policy_adam")) popt = ck.extra.at("policy_adam");
    if (ck.extra.count("value_adam")) vopt = ck.extra.at("value_adam");
    res.sl_model = path("sl.json");
  } else if (!c.init_model.empty()) {
    // RL starts from a trained model instead of the warm-up (check_dl2_train_config checked it).
    const Dl2Model m = load_dl2_model(c.init_model);
    policy.parameters = m.policy.parameters;
    if (m.value.arch == vshape.arch && m.value.shape == vshape.shape && !m.value.parameters.empty())
      value.parameters = m.value.parameters;
    learn::ModelFile f = model_file(c, policy, nullptr, "init-model", 0);
    f.meta["init_model"] = m.path;
    learn::save_model_file(path("sl.json"), f);
    res.sl_model = path("sl.json");
  } else if (c.sl_steps > 0) {
    auto net = make_trainer(policy, c.sl_lr);
    SlTrainer sl(c, *net, res.curve, [&](long s) { report("sl", s, c.sl_steps, ""); });
    for (size_t ep = 0; sl.steps() < c.sl_steps; ++ep) {
      PolicyOptions o;
      o.seed = kTrainSeedBase + ep;
      o.params = c.teacher_params;
      Dl2Recorder rec(
          make_policy(c.teacher, o), shape, c.seed + ep, /*shuffle=*/true, [&](const Dl2SlSample& s) { sl.store(s); },
          [&]() { sl.after_slot(); });
      try {
        simulate(cluster, train[ep % train.size()], c.teacher, rec, train_sim);
      } catch (const StopEpisode&) {
      }
      if (ep > 1000) throw Error("dl2 training: the teacher produced too few steps to fill the SL memory");
    }
    policy.parameters = net->parameters();
    learn::save_model_file(path("sl.json"), model_file(c, policy, nullptr, "sl", c.sl_steps));
    res.sl_model = path("sl.json");
  } else {
    learn::save_model_file(path("sl.json"), model_file(c, policy, nullptr, "init", 0));
    res.sl_model = path("sl.json");
  }
  res.sl_val_avg_jct_s = dl2_validation_jct(c.experiment, c.data_dir, res.sl_model, val, c.val_threads);
  if (!resuming && !res.curve.empty()) res.curve.back().val_avg_jct_s = res.sl_val_avg_jct_s;
  report("sl", c.sl_steps, c.sl_steps, "val JCT " + std::to_string(res.sl_val_avg_jct_s));
  res.best_val_avg_jct_s = res.sl_val_avg_jct_s;
  res.best_model = res.sl_model;
  res.last_model = res.sl_model;
  res.last_val_avg_jct_s = res.sl_val_avg_jct_s;
  if (resuming && std::filesystem::is_regular_file(path("best.json"))) {  // the best before the interruption
    const double j = dl2_validation_jct(c.experiment, c.data_dir, path("best.json"), val, c.val_threads);
    if (j < res.best_val_avg_jct_s) {
      res.best_val_avg_jct_s = j;
      res.best_model = path("best.json");
      res.best_step = std::stol(learn::load_model_file(path("best.json")).meta.at("step"));
    }
  }
  if (c.rl_steps <= rl_start) return res;

  // ---- RL
  auto pnet = make_trainer(policy, c.rl_lr);
  auto vnet = make_trainer(value, c.rl_lr);
  if (!popt.empty()) pnet->set_optimizer_state(popt);
  if (!vopt.empty()) vnet->set_optimizer_state(vopt);
  learn::MlpForward vforward(vshape.shape, value.parameters);
  learn::PrioritizedReplayConfig rc;
  rc.capacity = static_cast<size_t>(c.memory);
  const int d = shape.state_size(), A = shape.actions();
  std::vector<std::unique_ptr<Actor>> actors;
  for (int a = 0; a < c.actors; ++a) {
    actors.push_back(std::make_unique<Actor>(a, d, A, rc, c.seed + 7919 * (rl_start + 1)));
    actors.back()->gamma = c.gamma;
    actors.back()->use_replay = c.replay;
    actors.back()->job_reward = c.reward == "job";
    actors.back()->td = c.target == "td";
    actors.back()->batch_size = c.batch / c.actors;
  }
  long step = rl_start;
  std::atomic<bool> stop{false};
  std::mutex error_mutex;
  std::exception_ptr first_error;
  std::vector<float> shared_params = policy.parameters;
  learn::ActorCriticBatch batch;
  std::vector<double> abs_err;
  Dl2PolicyConfig pc;
  pc.shape = shape;
  pc.explore = c.explore;
  pc.speedup_reward = c.reward == "speedup";
  // The actors sample from the exact probabilities (docs/dl2.md): the fast path is a run-time
  // option, and the bundled models were trained on the exact path.
  pc.incremental = false;
  long overrides = 0, decisions = 0;

  auto save_checkpoint = [&](const std::string& name, const std::string& stage) {
    const learn::StoredNet p = with_parameters(pshape, pnet->parameters());
    const learn::StoredNet v = with_parameters(vshape, vnet->parameters());
    learn::ModelFile f = model_file(c, p, &v, stage, step);
    if (name == "checkpoint.json") {
      f.extra["policy_adam"] = pnet->optimizer_state();
      f.extra["value_adam"] = vnet->optimizer_state();
    }
    learn::save_model_file(path(name), f);
  };

  bool policy_frozen = false;
  auto learner = [&]() noexcept {
    // Runs once per barrier phase, in one thread, while every actor waits.
    try {
      // The critic's warm-up: the policy's Adam runs at a learning rate of 0 (its moments move on).
      if ((step < c.critic_warmup) != policy_frozen) {
        policy_frozen = step < c.critic_warmup;
        pnet->set_learning_rate(policy_frozen ? 0.0 : c.rl_lr);
      }
      int contributors = 0;
      for (auto& ap : actors) {
        Actor& a = *ap;
        if (!a.has_batch) continue;
        const size_t n = a.batch.slots.size();
        batch.reset(d, A);
        for (size_t k = 0; k < n; ++k) {
          const size_t s = a.batch.slots[k];
          const float target = a.has_next[s] ? vforward.run(a.next_states.data() + s * d)[0] : a.rewards[s];
          batch.add(a.states.data() + s * d, a.masks.data() + s * A, a.acts[s], target, a.batch.weights[k]);
        }
        const learn::ActorCriticStats vs =
            learn::add_actor_critic_gradients(batch, *pnet, vnet.get(), &vforward, c.entropy_weight, &abs_err);
        if (c.replay) a.replay.update(a.batch.slots, abs_err);
        if (contributors == 0) res.curve.push_back({"rl", step + 1, vs.value_loss, -1, -1});
        ++contributors;
      }
      if (contributors == 0) return;
      pnet->step(contributors);
      vnet->step(contributors);
      ++step;
      shared_params = pnet->parameters();
      vforward = learn::MlpForward(vshape.shape, vnet->parameters());
      for (auto& ap : actors) ap->policy->set_parameters(shared_params);
      report("rl", step, c.rl_steps, "");
      if (step % c.val_every == 0 || step == c.rl_steps) {
        save_checkpoint("last.json", "rl");
        const double j = dl2_validation_jct(c.experiment, c.data_dir, path("last.json"), val, c.val_threads);
        res.curve.back().val_avg_jct_s = j;
        res.last_val_avg_jct_s = j;
        res.last_model = path("last.json");
        if (j < res.best_val_avg_jct_s) {
          res.best_val_avg_jct_s = j;
          res.best_step = step;
          save_checkpoint("best.json", "rl-best");
          res.best_model = path("best.json");
        }
        report("rl", step, c.rl_steps, "val JCT " + std::to_string(j));
      }
      if (step % c.checkpoint_every == 0 || step == c.rl_steps) {  // after the validation: its JCT is in the curve
        save_checkpoint("checkpoint.json", "rl");
        write_file_atomic(path("training.csv"), dl2_curve_csv(res.curve));
      }
      if (step >= c.rl_steps) stop = true;
    } catch (...) {
      stop = true;
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!first_error) first_error = std::current_exception();
    }
  };
  std::barrier sync_point(c.actors, learner);
  for (auto& ap : actors) {
    ap->sync = [&](Actor&) {
      sync_point.arrive_and_wait();
      if (stop) throw StopEpisode{};
    };
  }
  std::vector<std::thread> threads;
  std::mutex done_mutex;
  for (int a = 0; a < c.actors; ++a) {
    threads.emplace_back([&, a]() {
      Actor& act = *actors[a];
      for (long ep = 0;; ++ep) {
        const size_t trace = static_cast<size_t>(a + ep * c.actors) % train.size();
        Dl2Policy pol(pc, with_parameters(pshape, shared_params), c.seed * 1000003 + static_cast<uint64_t>(a * 7 + ep * 131));
        act.policy = &pol;
        pol.attach(&act);
        try {
          simulate(cluster, train[trace], "dl2", pol, train_sim);
          act.ending = true;
          pol.finish();
          act.ending = false;
        } catch (const StopEpisode&) {
          std::lock_guard<std::mutex> lock(done_mutex);
          overrides += pol.exploration().overrides;
          decisions += pol.exploration().decisions;
          act.policy = nullptr;
          return;
        } catch (...) {
          // A failing simulation must not leave the others waiting: record it and keep arriving.
          {
            std::lock_guard<std::mutex> lock(error_mutex);
            if (!first_error) first_error = std::current_exception();
          }
          stop = true;
        }
        {
          std::lock_guard<std::mutex> lock(done_mutex);
          overrides += pol.exploration().overrides;
          decisions += pol.exploration().decisions;
        }
        act.end_episode();
        act.policy = nullptr;
        if (stop) {
          sync_point.arrive_and_drop();
          return;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  if (first_error) std::rethrow_exception(first_error);
  for (auto& ap : actors) res.slots_simulated += ap->slots;
  res.override_fraction = decisions > 0 ? static_cast<double>(overrides) / static_cast<double>(decisions) : 0.0;
  return res;
}

}  // namespace dmlkit::cluster
