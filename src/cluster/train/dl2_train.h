// Training DL2 (Peng et al., TPDS 2021; the authors' trainer pengyanghua/DL2 train.py, read in
// code; spec cluster-schedulers.md 3.4-3.6, second-pass.md 6): an offline supervised warm-up on a
// teacher heuristic's steps, then online actor-critic reinforcement learning in the simulator.
//
// SL (train.py sl_agent): the teacher runs on the training traces; every step is a sample
// (dl2_teacher.h) in a FIFO memory of `memory` samples; once full, one update per slot on a
// uniform batch of `batch`: mean cross-entropy, Adam at lr 0.005.
// RL (train.py rl_agent/central_agent): `actors` simulators (threads) run the dl2 policy with
// job-aware exploration (dl2_explore.h) on their own training traces; each stores its slot's steps
// with the slot's reward in its own prioritized replay (learn/prioritized_replay.h; new priority
// max(1, r - mean stored reward)). Once every actor's replay is full, after every slot: each
// actor samples batch / actors steps; the learner computes, per actor batch, the critic's V(s),
// the advantage (r - V(s)) x importance weight, the actor loss (entropy weight 0.1) and the
// critic loss (V(s) - r)^2, averages the actors' gradients and applies Adam (lr 1e-4) to both
// networks; the samples' priorities become min(|r - V(s)| + 0.01, 4)^0.9. Actors wait for each
// other at every slot (a barrier), so a run is deterministic for a seed and a number of actors.
// Targets: the slot's own reward for every step of the slot (LT_REWARD_IN_TS = False, the code),
// or with `gamma` > 0 the discounted sum of the following slots' rewards within the episode
// (the paper's gamma = 0.9; [A] a Monte-Carlo return, the paper's TD details are not known), or
// with target "td" ([A], ours) the next step's value within the slot (see Dl2TrainConfig::target).
// Validation: the preset's evaluation seeds (never trained on: training traces use seeds
// 1000000 + k), average JCT of the current policy every `val_every` RL steps; the best and the
// last are saved. Checkpoints (weights and Adam state) every `checkpoint_every` steps; `resume`
// continues from the folder's checkpoint ([A] the replay memories and the actors' episodes start
// afresh, so a resumed run is not bit-identical to an uninterrupted one).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cluster/policies/dl2/dl2_explore.h"
#include "cluster/policies/dl2/dl2_policy.h"
#include "cluster/workload/experiment.h"

namespace dmlkit::cluster {

struct Dl2TrainConfig {
  Experiment experiment;
  std::string data_dir;
  std::string teacher = "drf-dl2";
  KnobValues teacher_params;  // the teacher's knobs (--teacher-param), e.g. fixed.rule=best-speed
  std::string net = "code";  // code | paper (dl2_net_shape)
  int window = 20;           // L
  std::vector<int> column_hidden = kDl2ColumnHidden;  // [A] --net shared: the column MLP's hidden widths
  long sl_steps = 200;
  long rl_steps = 2000;
  int actors = 1;
  uint64_t seed = 1;
  int train_traces = 100;
  long val_every = 200;
  long checkpoint_every = 100;
  int batch = 256;
  int memory = 8192;
  double sl_lr = 0.005;
  double rl_lr = 1e-4;
  double entropy_weight = 0.1;
  double gamma = 0.0;  // 0: the slot's reward (code); > 0: discounted return over slots
  bool replay = true;  // false: each update uses the actor's latest slot's steps only (ablation)
  // "slot": every step gets its slot's reward; "job": the acting job's progress (ablation,
  // TS_REWARD_PLUS_JOB_REWARD in the code; the paper's "only the acting job's progress").
  // "speedup" ([A], ours): the slot's sum over the jobs that ran of their progress divided by
  // what they would run in a slot on 1 PS + 1 worker (Dl2PolicyConfig::speedup_reward).
  std::string reward = "slot";
  // Each step's critic target ([A], `--target`): "slot" (the code: every step of a slot is
  // credited with the slot's reward, advantage r - V(s)) or "td" (in-slot bootstrapping: a step
  // that is not the slot's last is credited with V of the next step's state, the last with the
  // slot's reward; advantage target - V(s), so each action is judged by how much it changed the
  // slot's predicted reward).
  std::string target = "slot";
  // Speed model of the training simulations ("" = the preset's): OfflineRL trains on "analytic"
  // (Optimus's model) and is validated, like every model, on the preset's.
  std::string train_speed_model;
  Dl2ExploreConfig explore;
  int val_threads = 2;
  bool resume = false;
  // [A] ours (`--init-model`): start RL from this trained DL2 model (a bundled name or a path)
  // instead of a supervised warm-up: its policy network (the same --net; a column-shared one may
  // come from another window, its parameters do not depend on L) and its value network when that
  // has this run's shape (else a fresh critic, see critic_warmup). "" = SL as usual.
  std::string init_model;
  // The first `critic_warmup` RL updates train the critic only: the policy's Adam runs with a
  // learning rate of 0, as the code's STEP_TRAIN_CRITIC_NET (train.py central_agent). 0 = off.
  long critic_warmup = 0;
  std::vector<std::string> command;  // recorded in the model files' metadata
};

struct Dl2TrainPoint {
  std::string phase;  // "sl" or "rl"
  long step = 0;
  double loss = 0;
  double accuracy = -1;       // SL: batch accuracy against the teacher
  double val_avg_jct_s = -1;  // when validated at this step
};

// The curve as training.csv holds it (phase, step, loss, sl_accuracy, val_avg_jct_s; 3 decimals,
// empty when not measured). train_dl2 writes it with every checkpoint and reads it back on
// --resume, so the curves of a resumed run start at its first step.
std::string dl2_curve_csv(const std::vector<Dl2TrainPoint>& curve);
std::vector<Dl2TrainPoint> read_dl2_curve_csv(const std::string& path);

struct Dl2TrainResult {
  std::vector<Dl2TrainPoint> curve;
  double teacher_val_avg_jct_s = 0;
  double sl_val_avg_jct_s = 0;
  double best_val_avg_jct_s = 0;
  long best_step = 0;
  double last_val_avg_jct_s = 0;
  long slots_simulated = 0;
  double override_fraction = 0;  // share of RL actions the exploration replaced
  std::string best_model, last_model, sl_model;
};

// Throws Error naming the option on settings that cannot train (checked before any work or output).
void check_dl2_train_config(const Dl2TrainConfig& config);

// Trains into `dir` (created if needed): sl.json, best.json, last.json, checkpoint.json.
// `progress(phase, step, total, detail)` may be empty.
Dl2TrainResult train_dl2(const Dl2TrainConfig& config, const std::string& dir,
                         const std::function<void(const std::string&, long, long, const std::string&)>& progress);

// Average JCT of the dl2 model in `model_path` over the workloads (one simulation each, on up to
// `threads` threads).
double dl2_validation_jct(const Experiment& e, const std::string& data_dir, const std::string& model_path,
                          const std::vector<Workload>& workloads, int threads);

}  // namespace dmlkit::cluster
