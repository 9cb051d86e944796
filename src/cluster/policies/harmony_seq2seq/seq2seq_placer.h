// harmony-seq2seq's placement decision for one interval (Harmony's journal design; the decoder is
// ours [A], see docs/harmony-seq2seq.md): the concurrent jobs are encoded by the attention encoder
// (learn/attn_net.h), then the new jobs' tasks are decoded one at a time, in arrival order, a job's
// PSs first and then its workers: for each task the pointer head scores every server and the task
// goes to the arg-max (`select_max`, the run-time default) or a draw of the softmax restricted to
// the servers where it fits; the state (both token sets) is updated after each task. A job whose
// next task fits nowhere is rolled back and waits for the next interval; the jobs after it are
// still offered. With the [A] wait target (a model with defer, learn::AttnShape::wait_target), the
// pointer also scores "wait" before a job's first task (as harmony's defer action) while some job
// holds servers (on an empty cluster waiting changes nothing); choosing it leaves the job for the
// next interval. While training, with probability epsilon a step takes the bin-packing or the
// load-balancing server instead (equal odds), Harmony's job-aware epsilon-greedy exploration; or,
// [A] ours (JobExploration, `--job-exploration`), with probability epsilon per new job, every task
// of the job goes to one server drawn uniformly among those where the whole job fits (`occupied`:
// among those that already hold another job's task; `any`: all of them); the steps record these
// pointer choices, so the policy gradient can learn "the whole job on one server".
// Inference in plain C++ (no libtorch), incremental (learn/attn_incremental.h: between two tasks
// only a few tokens change; the logits are AttnForward's bit for bit, computed for the allowed
// servers only).
#pragma once
#include <span>
#include <string>
#include <vector>

#include "cluster/policies/harmony_seq2seq/seq2seq_board.h"
#include "cluster/policies/harmony_seq2seq/seq2seq_model.h"
#include "core/rng.h"
#include "learn/attn_incremental.h"

namespace dmlkit::cluster {

using S2sRunningJob = RunningPsJob;

// Receives every step taken while training: the tokens the network saw, the mask (servers flags,
// then the wait target's when the network has one) and the action (a server, or `servers`: wait).
class S2sStepSink {
 public:
  virtual ~S2sStepSink() = default;
  virtual void on_step(int jobs, int servers, int query, const float* job_x, const float* server_x,
                       const float* query_x, const unsigned char* mask, int action) = 0;
};

using S2sPlacerStats = LearnedPlacerStats;

// [A] Exploration by whole jobs (seq2seq_placer.h's comment); off: Harmony's per-task exploration.
enum class JobExploration { off, occupied, any };
// "off" | "occupied" | "any"; throws Error naming `who` and --job-exploration otherwise.
JobExploration parse_job_exploration(const std::string& name, const std::string& who);

// [A] Whether the wait target is offered before a job's task `task` (0: its first): before its first
// task only (as harmony's defer), and only while some job holds servers (on an empty cluster nothing
// changes by the next interval, and a policy that always waited would never finish a job). The
// imitation replay (train/harmony_seq2seq_imitation.cpp) labels by the same rule.
inline bool s2s_wait_offered(int task, bool cluster_occupied) { return task == 0 && cluster_occupied; }

// Action choice, exploration and counters: policies/harmony/learned_placer.h.
class Seq2SeqPlacer : public LearnedPlacerBase {
 public:
  Seq2SeqPlacer(const ClusterSpec& cluster, const S2sNet& policy, uint64_t seed);
  void set_parameters(const std::vector<float>& parameters);
  void set_sink(S2sStepSink* sink) { sink_ = sink; }
  // At most this many job tokens (0: no limit): beyond it the oldest running jobs are left out of
  // the encoder's input (they still hold their servers' resources) [A]; training rows are padded
  // to a fixed number of jobs.
  void set_max_tokens(int n) { max_tokens_ = n; }
  void set_job_exploration(JobExploration mode) { job_exploration_ = mode; }
  // out[i]: the placement of fresh[i] (empty: it waits).
  void decide(std::span<const S2sRunningJob> running, std::span<const PsJobSpec* const> fresh,
              std::vector<Placement>& out);

 private:
  int choose(int job, int first_token);
  // With probability epsilon, the server job j explores on whole (-1: the network decides).
  int explore_whole(int j);

  Seq2SeqBoard board_;
  learn::AttnPointerIncremental net_;  // exact; caches what did not change between tasks
  int max_tokens_ = 0;
  JobExploration job_exploration_ = JobExploration::off;
  std::vector<int> candidates_;
  S2sStepSink* sink_ = nullptr;
  std::vector<float> jx_, sx_, qx_;
  std::vector<unsigned char> mask_;
};

}  // namespace dmlkit::cluster
