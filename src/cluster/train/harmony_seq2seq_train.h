// Training harmony-seq2seq (Harmony's journal design; cluster/policies/harmony_seq2seq/), offline
// in the two steps of `harmony` (harmony_train.h), with the same techniques:
//  1. the seq2seq reward model: the baseline placers (and [A] a share of uniformly random
//     placements, for coverage) run on generated training traces in the simulator with the
//     preset's interference ground truth; at every decision the running jobs' placements and
//     measured speeds are one sample (a sequence of jobs -> a sequence of speeds); speeds are
//     divided by their (type, kind)'s largest observed speed; the attention network with the
//     per-job head (learn/attn_net.h) is fitted by learn/regression.h (fit_regression_engine) and
//     its hold-out error reported. No permuted copies are needed: the network is permutation-
//     equivariant over the jobs and sees the servers only through the jobs' co-location features.
//  2. DRL on the reward model (harmony_seq2seq_env.h), reward per interval = DL2's normalised
//     progress; actor-critic with entropy regularisation and the critic's V(s) as baseline
//     (learn/actor_critic.h); epsilon-greedy exploration taking the bin-packing or load-balancing
//     server (epsilon decays linearly from epsilon_start to epsilon_end over epsilon_steps
//     updates [A]); a FIFO replay of the steps (learn/fifo_replay.h), one update of `batch` steps
//     per interval once it holds `batch`. Each step's target: its interval's reward (gamma = 0) or
//     the discounted return (gamma > 0) [A].
// Validation: the current policy in the real simulator on validation traces (seeds 2000000 + k)
// every val_every updates; best.json and last.json are kept, and checkpoint.json (networks, Adam
// state, step) every checkpoint_every updates. `resume`: continue from DIR/checkpoint.json and
// DIR/reward.json (the replay restarts empty and the episode order from the checkpoint's step, so
// a resumed run is not bit-identical to an uninterrupted one). Deterministic for a seed.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "cluster/policies/harmony_seq2seq/seq2seq_model.h"
#include "cluster/train/harmony_drl.h"

namespace dmlkit::cluster {

// The common knobs are in HarmonyDrlConfig (harmony_drl.h); the defaults that differ from
// Harmony's are set here.
struct S2sTrainConfig : HarmonyDrlConfig {
  int embed = 32;
  int heads = 4;
  int max_jobs = 32;  // job tokens in a training row (padding); the run-time policy has no limit
  // Reward model.
  int rm_embed = 32;
  int rm_heads = 4;
  // [A] Ours, off by default: exploration by whole jobs (seq2seq_placer.h, JobExploration): "off"
  // (Harmony's per-task heuristic exploration), "occupied" or "any".
  std::string job_exploration = "off";
  // Where the DRL's training episodes run: "reward-model" (the paper's premise: the environment of
  // harmony_seq2seq_env.h on predicted speeds) or "simulator" ([A] a departure from the paper: the
  // real simulator with the preset's ground truth, the training placer deciding; only with
  // reward jct and gamma > 0, whose per-interval rewards follow from the jobs' arrivals and finishes).
  std::string rollout = "reward-model";
  S2sTrainConfig() {
    rm_traces = 6;
    rm_epochs = 30;
    rl_steps = 1500;
    memory = 1024;
    entropy_weight = 0.05;  // weight of mean_rows sum_servers pi log pi (the attention trainer's entropy term) [A]
  }
};

using S2sTrainPoint = HarmonyDrlPoint;

using S2sTrainResult = HarmonyDrlResult;

void check_s2s_train_config(const S2sTrainConfig& c);

S2sTrainResult train_harmony_seq2seq(
    const S2sTrainConfig& c, const std::string& dir,
    const std::function<void(const std::string&, long, long, const std::string&)>& progress);

// Average JCT of a model over workloads in the simulator.
double s2s_validation_jct(const Experiment& e, const std::string& data_dir, const Seq2SeqModel& model,
                          const std::vector<Workload>& workloads, const std::vector<uint64_t>& seeds, int threads);

// The reward model's training rows from samples (jobs -> measured speeds): per_job rows of
// `shape` (max_jobs: the padding), speeds divided by scale[s2s_scale_index]. Exposed for tests.
using S2sSpeedSample = SpeedSampleOf<S2sPlacedJob>;
learn::RegressionData s2s_reward_rows(const learn::AttnShape& shape, int servers,
                                      const std::vector<S2sSpeedSample>& samples, const std::vector<float>& scale);

}  // namespace dmlkit::cluster
