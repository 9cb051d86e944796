// Training Harmony (Bao, Peng, Wu, INFOCOM 2019; second-pass.md 3.1-3.4, from a third-party reading
// note, no public code), offline in two steps as the paper:
//  1. the reward-prediction model: the baseline placers (and [A] a share of random placements, for
//     coverage) run on generated training traces in the simulator, with the preset's interference
//     ground truth; at every decision the running jobs' placement (x, w, p, d) and measured speeds
//     are a sample; [A] each sample is also stored with its job slots (and, on a cluster of identical
//     servers, its servers) randomly permuted; speeds are divided by their type's largest observed
//     speed; an MLP is fitted (learn/regression.h) and its hold-out error reported;
//  2. DRL on the reward model (cluster/train/harmony_env.h: job progress at the predicted speeds),
//     reward per interval = DL2's normalised progress; actor-critic (learn/actor_critic.h) with
//     entropy regularisation, the critic's V(s) as baseline; epsilon-greedy exploration taking the
//     bin-packing or load-balancing action (epsilon decays linearly from epsilon_start to
//     epsilon_end over epsilon_steps updates [A]); a FIFO replay of the steps of the last intervals
//     (learn/fifo_replay.h), one update of `batch` steps per interval once it holds `batch` steps.
//     Each step's target is its interval's reward (gamma = 0, as DL2's code) or the discounted return
//     over the following intervals of the episode (gamma > 0) [A].
// Validation: the current policy in the real simulator (ground truth, not the reward model) on
// validation traces (seeds 2000000 + k: neither training traces, 1000000 + k, nor the preset's
// evaluation seeds), every val_every updates; the best is kept (best.json), also the last
// (last.json) and a checkpoint (checkpoint.json with Adam's state). Deterministic for a seed.
// Knobs of the paper's deep-dive studies: neurons, layers, critic on/off, exploration on/off,
// replay on/off.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "cluster/policies/harmony/harmony_model.h"
#include "cluster/train/harmony_drl.h"

namespace dmlkit::cluster {

// The common knobs (experiment, seeds, reward-model sampling, DRL, validation) are in
// HarmonyDrlConfig (harmony_drl.h); its defaults are Harmony's.
struct HarmonyTrainConfig : HarmonyDrlConfig {
  int jobs = 16;     // N job slots
  int new_jobs = 4;  // N'
  // Actor and critic.
  int neurons = 64;
  int layers = 2;
  // Reward model.
  int rm_neurons = 128;
  int rm_layers = 2;
  int rm_augment = 3;  // permuted copies per sample
  // entropy_weight (2.0) weighs mean_{rows, actions} pi log pi: the mean runs over all 2 M N'
  // actions, so with standardised advantages the weight is of the order of the number of actions [A].
  // imitate, il_*, critic_warmup, defer, reward: HarmonyDrlConfig (shared with harmony-seq2seq); defer here is
  // HarmonyShape::defer, the N' "wait" actions.
  bool type_counts = false;      // [A] HarmonyShape::type_counts: per-server type counts in state and reward input
  std::string reward_model;  // a reward.json of an earlier run: skip step 1 (same preset and shape)
};

// model_avg_jct_s: diagnosis, the reward model's view of the training episodes (harmony_drl.h).
using HarmonyTrainPoint = HarmonyDrlPoint;

struct HarmonyTrainResult : HarmonyDrlResult {
  size_t rm_rows = 0;  // rows fitted (with augmentation); rm_samples: decisions recorded (before)
  std::map<std::string, double> rm_err_by_policy;  // mean relative error on each placer's samples (unaugmented)
};

// Throws Error naming the option on settings that cannot train (checked before any work).
void check_harmony_train_config(const HarmonyTrainConfig& c);

// Trains into `dir`: reward.json (the reward model alone), checkpoint.json, best.json, last.json.
// progress(phase, step, total, detail) may be empty.
HarmonyTrainResult train_harmony(const HarmonyTrainConfig& c, const std::string& dir,
                                 const std::function<void(const std::string&, long, long, const std::string&)>& progress);

// Average JCT of a Harmony model over workloads in the simulator (one run each on up to `threads`).
double harmony_validation_jct(const Experiment& e, const std::string& data_dir, const HarmonyModel& model,
                              const std::vector<Workload>& workloads, const std::vector<uint64_t>& seeds, int threads);

}  // namespace dmlkit::cluster
