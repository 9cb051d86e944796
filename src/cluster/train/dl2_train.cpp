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

namespace {

// The simulations a DL2 training runs: the preset's cluster, the validation config and traces, the
// training config (train_speed_model) and traces, the network's shape.
struct Dl2World {
  ClusterSpec cluster;
  SimConfig sim, train_sim;
  std::vector<Workload> train, val;
  Dl2Shape shape;
};

Dl2World make_dl2_world(const Dl2TrainConfig& c) {
  Dl2World w;
  w.cluster = ClusterSpec::parse(c.experiment.cluster);
  w.sim = experiment_sim_config(c.experiment, c.data_dir);
  // Training runs on the preset's speed model unless train_speed_model names another (OfflineRL:
  // trained on Optimus's analytic model, validated on the measured table).
  Experiment train_exp = c.experiment;
  if (!c.train_speed_model.empty()) {
    train_exp.speed_model = c.train_speed_model;
    train_exp.speed_table.clear();
  }
  w.train_sim = experiment_sim_config(train_exp, c.data_dir);
  for (int k = 0; k < c.train_traces; ++k)
    w.train.push_back(ps_workload(c.experiment.workload, kTrainSeedBase + k, c.data_dir));
  for (uint64_t s : c.experiment.seeds) w.val.push_back(ps_workload(c.experiment.workload, s, c.data_dir));
  w.shape.window = c.window;
  return w;
}

using Dl2Report = std::function<void(const std::string&, long, long, const std::string&)>;

// The teacher's validation JCT (the SL target).
double teacher_validation_jct(const Dl2TrainConfig& c, const Dl2World& w) {
  std::vector<double> jct(w.val.size());
  parallel_for(w.val.size(), c.val_threads, [&](size_t i) {
    PolicyOptions o;
    o.seed = c.experiment.seeds[i];
    o.params = c.teacher_params;
    auto t = make_policy(c.teacher, o);
    jct[i] = avg_jct(simulate(w.cluster, w.val[i], c.teacher, *t, w.sim));
  });
  return std::accumulate(jct.begin(), jct.end(), 0.0) / static_cast<double>(jct.size());
}

// The networks RL starts from (and, on resume, Adam's state and the step).
struct Dl2Start {
  learn::StoredNet policy, value;
  learn::StoredNet pshape, vshape;  // the shapes without parameters
  long rl_start = 0;
  std::vector<float> popt, vopt;
  bool resuming = false;
};

void resume_from_checkpoint(const std::string& dir, Dl2Start& s, Dl2TrainResult& res) {
  const auto path = [&](const std::string& name) { return (std::filesystem::path(dir) / name).string(); };
  const learn::ModelFile ck = learn::load_model_file(path("checkpoint.json"));
  if (ck.nets.count("policy") == 0 || !same_shape(ck.nets.at("policy"), s.pshape) || ck.nets.count("value") == 0 ||
      !same_shape(ck.nets.at("value"), s.vshape))
    throw Error(path("checkpoint.json"), 0, "nets", "checkpoint of another network shape");
  s.policy = ck.nets.at("policy");
  s.value = ck.nets.at("value");
  s.rl_start = std::stol(ck.meta.at("step"));
  // The curve up to the checkpoint (written with it; a checkpoint of an older dmlkit has none).
  if (std::filesystem::is_regular_file(path("training.csv"))) {
    res.curve = read_dl2_curve_csv(path("training.csv"));
    std::erase_if(res.curve, [&](const Dl2TrainPoint& p) { return p.phase == "rl" && p.step > s.rl_start; });
  }
  if (ck.extra.count("policy_adam")) s.popt = ck.extra.at("policy_adam");
  if (ck.extra.count("value_adam")) s.vopt = ck.extra.at("value_adam");
}

// RL starts from a trained model instead of the warm-up (check_dl2_train_config checked it).
void start_from_init_model(const Dl2TrainConfig& c, const std::string& sl_path, Dl2Start& s) {
  const Dl2Model m = load_dl2_model(c.init_model);
  s.policy.parameters = m.policy.parameters;
  if (m.value.arch == s.vshape.arch && m.value.shape == s.vshape.shape && !m.value.parameters.empty())
    s.value.parameters = m.value.parameters;
  learn::ModelFile f = model_file(c, s.policy, nullptr, "init-model", 0);
  f.meta["init_model"] = m.path;
  learn::save_model_file(sl_path, f);
}

// The supervised warm-up: the teacher runs on the training traces until sl_steps updates are done.
void supervised_warm_up(const Dl2TrainConfig& c, const Dl2World& w, const std::string& sl_path, Dl2Start& s,
                        Dl2TrainResult& res, const Dl2Report& report) {
  auto net = make_trainer(s.policy, c.sl_lr);
  SlTrainer sl(c, *net, res.curve, [&](long step) { report("sl", step, c.sl_steps, ""); });
  for (size_t ep = 0; sl.steps() < c.sl_steps; ++ep) {
    PolicyOptions o;
    o.seed = kTrainSeedBase + ep;
    o.params = c.teacher_params;
    Dl2Recorder rec(
        make_policy(c.teacher, o), w.shape, c.seed + ep, /*shuffle=*/true,
        [&](const Dl2SlSample& sample) { sl.store(sample); }, [&]() { sl.after_slot(); });
    try {
      simulate(w.cluster, w.train[ep % w.train.size()], c.teacher, rec, w.train_sim);
    } catch (const StopEpisode&) {
    }
    if (ep > 1000) throw Error("dl2 training: the teacher produced too few steps to fill the SL memory");
  }
  s.policy.parameters = net->parameters();
  learn::save_model_file(sl_path, model_file(c, s.policy, nullptr, "sl", c.sl_steps));
}

// The networks RL starts from: a checkpoint (resume), an init model, the SL warm-up or the initial
// networks; writes sl.json (except on resume) and sets res.sl_model.
Dl2Start warm_start(const Dl2TrainConfig& c, const Dl2World& w, const std::string& dir, Dl2TrainResult& res,
                    const Dl2Report& report) {
  const std::string sl_path = (std::filesystem::path(dir) / "sl.json").string();
  Dl2Start s;
  Rng init = Rng(c.seed).split(0x1a17);
  s.policy = dl2_initial_net(c.net, c.window, false, init, c.column_hidden);
  s.value = dl2_initial_net(c.net, c.window, true, init);
  s.pshape = with_parameters(s.policy, {});
  s.vshape = with_parameters(s.value, {});
  s.resuming = c.resume && std::filesystem::is_regular_file(std::filesystem::path(dir) / "checkpoint.json");
  if (s.resuming)
    resume_from_checkpoint(dir, s, res);
  else if (!c.init_model.empty())
    start_from_init_model(c, sl_path, s);
  else if (c.sl_steps > 0)
    supervised_warm_up(c, w, sl_path, s, res, report);
  else
    learn::save_model_file(sl_path, model_file(c, s.policy, nullptr, "init", 0));
  res.sl_model = sl_path;
  return s;
}

// The warm start's validation JCT, which is also the best and last so far (on resume, the best
// before the interruption when it is better).
void validate_warm_start(const Dl2TrainConfig& c, const Dl2World& w, const std::string& dir, bool resuming,
                         Dl2TrainResult& res, const Dl2Report& report) {
  const auto path = [&](const std::string& name) { return (std::filesystem::path(dir) / name).string(); };
  res.sl_val_avg_jct_s = dl2_validation_jct(c.experiment, c.data_dir, res.sl_model, w.val, c.val_threads);
  if (!resuming && !res.curve.empty()) res.curve.back().val_avg_jct_s = res.sl_val_avg_jct_s;
  report("sl", c.sl_steps, c.sl_steps, "val JCT " + std::to_string(res.sl_val_avg_jct_s));
  res.best_val_avg_jct_s = res.sl_val_avg_jct_s;
  res.best_model = res.sl_model;
  res.last_model = res.sl_model;
  res.last_val_avg_jct_s = res.sl_val_avg_jct_s;
  if (resuming && std::filesystem::is_regular_file(path("best.json"))) {
    const double j = dl2_validation_jct(c.experiment, c.data_dir, path("best.json"), w.val, c.val_threads);
    if (j < res.best_val_avg_jct_s) {
      res.best_val_avg_jct_s = j;
      res.best_model = path("best.json");
      res.best_step = std::stol(learn::load_model_file(path("best.json")).meta.at("step"));
    }
  }
}

// ---------------------------------------------------------------- the RL phase
// `actors` simulator threads meet at a barrier after every slot; its completion (learn_step, one
// thread while the others wait) updates the networks from the actors' batches, validates and
// checkpoints.
class Dl2RlPhase {
 public:
  Dl2RlPhase(const Dl2TrainConfig& c, const Dl2World& w, const std::string& dir, const Dl2Start& s, Dl2TrainResult& res,
             const Dl2Report& report)
      : c_(c),
        w_(w),
        dir_(dir),
        s_(s),
        res_(res),
        report_(report),
        pnet_(make_trainer(s.policy, c.rl_lr)),
        vnet_(make_trainer(s.value, c.rl_lr)),
        vforward_(s.vshape.shape, s.value.parameters),
        d_(w.shape.state_size()),
        a_(w.shape.actions()),
        step_(s.rl_start),
        shared_params_(s.policy.parameters) {
    if (!s.popt.empty()) pnet_->set_optimizer_state(s.popt);
    if (!s.vopt.empty()) vnet_->set_optimizer_state(s.vopt);
    learn::PrioritizedReplayConfig rc;
    rc.capacity = static_cast<size_t>(c.memory);
    for (int a = 0; a < c.actors; ++a) {
      actors_.push_back(std::make_unique<Actor>(a, d_, a_, rc, c.seed + 7919 * (s.rl_start + 1)));
      actors_.back()->gamma = c.gamma;
      actors_.back()->use_replay = c.replay;
      actors_.back()->job_reward = c.reward == "job";
      actors_.back()->td = c.target == "td";
      actors_.back()->batch_size = c.batch / c.actors;
    }
    pc_.shape = w.shape;
    pc_.explore = c.explore;
    pc_.speedup_reward = c.reward == "speedup";
    // The actors sample from the exact probabilities (docs/dl2.md): the fast path is a run-time
    // option, and the bundled models were trained on the exact path.
    pc_.incremental = false;
  }

  void run() {
    auto completion = [this]() noexcept { learn_step(); };
    std::barrier sync_point(c_.actors, completion);
    for (auto& ap : actors_) {
      ap->sync = [&](Actor&) {
        sync_point.arrive_and_wait();
        if (stop_) throw StopEpisode{};
      };
    }
    std::vector<std::thread> threads;
    for (int a = 0; a < c_.actors; ++a) threads.emplace_back([&, a]() { run_actor(a, sync_point); });
    for (auto& t : threads) t.join();
    if (first_error_) std::rethrow_exception(first_error_);
    for (auto& ap : actors_) res_.slots_simulated += ap->slots;
    res_.override_fraction = decisions_ > 0 ? static_cast<double>(overrides_) / static_cast<double>(decisions_) : 0.0;
  }

 private:
  std::string path(const std::string& name) const { return (std::filesystem::path(dir_) / name).string(); }

  void save_checkpoint(const std::string& name, const std::string& stage) {
    const learn::StoredNet p = with_parameters(s_.pshape, pnet_->parameters());
    const learn::StoredNet v = with_parameters(s_.vshape, vnet_->parameters());
    learn::ModelFile f = model_file(c_, p, &v, stage, step_);
    if (name == "checkpoint.json") {
      f.extra["policy_adam"] = pnet_->optimizer_state();
      f.extra["value_adam"] = vnet_->optimizer_state();
    }
    learn::save_model_file(path(name), f);
  }

  void record_error() {
    stop_ = true;
    std::lock_guard<std::mutex> lock(error_mutex_);
    if (!first_error_) first_error_ = std::current_exception();
  }

  // Runs once per barrier phase, in one thread, while every actor waits.
  void learn_step() noexcept {
    try {
      // The critic's warm-up: the policy's Adam runs at a learning rate of 0 (its moments move on).
      if ((step_ < c_.critic_warmup) != policy_frozen_) {
        policy_frozen_ = step_ < c_.critic_warmup;
        pnet_->set_learning_rate(policy_frozen_ ? 0.0 : c_.rl_lr);
      }
      const int contributors = add_gradients();
      if (contributors == 0) return;
      pnet_->step(contributors);
      vnet_->step(contributors);
      ++step_;
      shared_params_ = pnet_->parameters();
      vforward_ = learn::MlpForward(s_.vshape.shape, vnet_->parameters());
      for (auto& ap : actors_) ap->policy->set_parameters(shared_params_);
      report_("rl", step_, c_.rl_steps, "");
      if (step_ % c_.val_every == 0 || step_ == c_.rl_steps) validate();
      if (step_ % c_.checkpoint_every == 0 || step_ == c_.rl_steps) {  // after the validation: its JCT is in the curve
        save_checkpoint("checkpoint.json", "rl");
        write_file_atomic(path("training.csv"), dl2_curve_csv(res_.curve));
      }
      if (step_ >= c_.rl_steps) stop_ = true;
    } catch (...) {
      record_error();
    }
  }

  // Each actor's batch adds its actor-critic gradients; returns how many actors contributed.
  int add_gradients() {
    int contributors = 0;
    for (auto& ap : actors_) {
      Actor& a = *ap;
      if (!a.has_batch) continue;
      const size_t n = a.batch.slots.size();
      batch_.reset(d_, a_);
      for (size_t k = 0; k < n; ++k) {
        const size_t s = a.batch.slots[k];
        const float target = a.has_next[s] ? vforward_.run(a.next_states.data() + s * d_)[0] : a.rewards[s];
        batch_.add(a.states.data() + s * d_, a.masks.data() + s * a_, a.acts[s], target, a.batch.weights[k]);
      }
      const learn::ActorCriticStats vs =
          learn::add_actor_critic_gradients(batch_, *pnet_, vnet_.get(), &vforward_, c_.entropy_weight, &abs_err_);
      if (c_.replay) a.replay.update(a.batch.slots, abs_err_);
      if (contributors == 0) res_.curve.push_back({"rl", step_ + 1, vs.value_loss, -1, -1});
      ++contributors;
    }
    return contributors;
  }

  // last.json and its validation JCT; best.json when it is the best so far.
  void validate() {
    save_checkpoint("last.json", "rl");
    const double j = dl2_validation_jct(c_.experiment, c_.data_dir, path("last.json"), w_.val, c_.val_threads);
    res_.curve.back().val_avg_jct_s = j;
    res_.last_val_avg_jct_s = j;
    res_.last_model = path("last.json");
    if (j < res_.best_val_avg_jct_s) {
      res_.best_val_avg_jct_s = j;
      res_.best_step = step_;
      save_checkpoint("best.json", "rl-best");
      res_.best_model = path("best.json");
    }
    report_("rl", step_, c_.rl_steps, "val JCT " + std::to_string(j));
  }

  void count_exploration(const Dl2Policy& pol) {
    std::lock_guard<std::mutex> lock(done_mutex_);
    overrides_ += pol.exploration().overrides;
    decisions_ += pol.exploration().decisions;
  }

  // One actor's thread: episodes on its training traces until the learner stops.
  template <class Barrier>
  void run_actor(int a, Barrier& sync_point) {
    Actor& act = *actors_[a];
    for (long ep = 0;; ++ep) {
      const size_t trace = static_cast<size_t>(a + ep * c_.actors) % w_.train.size();
      Dl2Policy pol(pc_, with_parameters(s_.pshape, shared_params_),
                    c_.seed * 1000003 + static_cast<uint64_t>(a * 7 + ep * 131));
      act.policy = &pol;
      pol.attach(&act);
      try {
        simulate(w_.cluster, w_.train[trace], "dl2", pol, w_.train_sim);
        act.ending = true;
        pol.finish();
        act.ending = false;
      } catch (const StopEpisode&) {
        count_exploration(pol);
        act.policy = nullptr;
        return;
      } catch (...) {
        // A failing simulation must not leave the others waiting: record it and keep arriving.
        record_error();
      }
      count_exploration(pol);
      act.end_episode();
      act.policy = nullptr;
      if (stop_) {
        sync_point.arrive_and_drop();
        return;
      }
    }
  }

  const Dl2TrainConfig& c_;
  const Dl2World& w_;
  const std::string& dir_;
  const Dl2Start& s_;
  Dl2TrainResult& res_;
  const Dl2Report& report_;
  std::unique_ptr<learn::MlpTrainerEngine> pnet_, vnet_;
  learn::MlpForward vforward_;
  const int d_, a_;
  long step_;
  std::vector<float> shared_params_;
  std::vector<std::unique_ptr<Actor>> actors_;
  Dl2PolicyConfig pc_;
  learn::ActorCriticBatch batch_;
  std::vector<double> abs_err_;
  bool policy_frozen_ = false;
  std::atomic<bool> stop_{false};
  std::mutex error_mutex_, done_mutex_;
  std::exception_ptr first_error_;
  long overrides_ = 0, decisions_ = 0;
};

}  // namespace

Dl2TrainResult train_dl2(const Dl2TrainConfig& c, const std::string& dir, const Dl2Report& progress) {
  check_dl2_train_config(c);
  std::filesystem::create_directories(dir);
  const Dl2Report report = [&](const std::string& phase, long step, long total, const std::string& detail) {
    if (progress) progress(phase, step, total, detail);
  };
  Dl2TrainResult res;
  const Dl2World w = make_dl2_world(c);
  res.teacher_val_avg_jct_s = teacher_validation_jct(c, w);
  const Dl2Start start = warm_start(c, w, dir, res, report);
  validate_warm_start(c, w, dir, start.resuming, res, report);
  if (c.rl_steps <= start.rl_start) return res;
  Dl2RlPhase(c, w, dir, start, res, report).run();
  return res;
}

}  // namespace dmlkit::cluster
