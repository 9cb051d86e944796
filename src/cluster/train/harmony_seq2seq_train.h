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
#include "cluster/workload/experiment.h"
#include "learn/regression.h"

namespace dmlkit::cluster {

struct S2sTrainConfig {
  Experiment experiment;
  std::string data_dir;
  uint64_t seed = 1;
  int embed = 32;
  int heads = 4;
  int max_jobs = 32;  // job tokens in a training row (padding); the run-time policy has no limit
  bool critic = true;
  bool exploration = true;
  bool replay = true;
  // Reward model.
  int rm_embed = 32;
  int rm_heads = 4;
  int rm_traces = 6;
  double rm_random = 0.5;
  int rm_epochs = 30;
  double rm_holdout = 0.2;
  double rm_lr = 1e-3;
  std::vector<std::string> rm_policies = {"lb", "tetris-align", "lif-line", "bin-packing", "standalone"};
  // DRL.
  long rl_steps = 1500;
  int batch = 64;
  int memory = 1024;
  double lr = 3e-4;
  // Weight of mean_rows sum_servers pi log pi (the attention trainer's entropy term) [A].
  double entropy_weight = 0.05;
  double gamma = 0.0;
  bool standardize = true;
  double epsilon_start = 0.5, epsilon_end = 0.05;
  long epsilon_steps = 1000;
  int train_traces = 40;
  int val_traces = 5;
  long val_every = 250;
  long checkpoint_every = 250;
  bool resume = false;
  int threads = 2;
  std::vector<std::string> command;
};

struct S2sTrainPoint {
  long step = 0;
  double policy_loss = 0, value_loss = 0, entropy = 0, epsilon = 0;
  double val_avg_jct_s = -1;
};

struct S2sTrainResult {
  size_t rm_samples = 0;
  learn::RegressionFit rm_fit;
  std::map<std::string, double> baseline_val_jct_s;
  double init_val_jct_s = 0, best_val_jct_s = 0, last_val_jct_s = 0;
  long best_step = 0, intervals = 0, episodes = 0, start_step = 0;
  double explored_fraction = 0;
  std::vector<S2sTrainPoint> curve;
  std::string best_model, last_model;
  double rm_seconds = 0, rl_seconds = 0;  // wall time (not in results.json's deterministic part)
};

void check_s2s_train_config(const S2sTrainConfig& c);

S2sTrainResult train_harmony_seq2seq(
    const S2sTrainConfig& c, const std::string& dir,
    const std::function<void(const std::string&, long, long, const std::string&)>& progress);

// Average JCT of a model over workloads in the simulator.
double s2s_validation_jct(const Experiment& e, const std::string& data_dir, const Seq2SeqModel& model,
                          const std::vector<Workload>& workloads, const std::vector<uint64_t>& seeds, int threads);

// The reward model's training rows from samples (jobs -> measured speeds): per_job rows of
// `shape` (max_jobs: the padding), speeds divided by scale[s2s_scale_index]. Exposed for tests.
struct S2sSpeedSample {
  std::vector<S2sPlacedJob> jobs;
  std::vector<double> speeds;
};
learn::RegressionData s2s_reward_rows(const learn::AttnShape& shape, int servers,
                                      const std::vector<S2sSpeedSample>& samples, const std::vector<float>& scale);

}  // namespace dmlkit::cluster
