// The state `harmony-seq2seq` decides on (Harmony's journal design, Bao, Peng, Wu, Yu; "Online Job
// Scheduling in Distributed Machine Learning Clusters"/"Deep Learning-based Job Placement",
// second-pass.md 3 and cluster-schedulers.md 4; no public code, so the encoding is ours [A]):
// two variable-length sets and the task being placed, read by the attention network of
// learn/attn_net.h.
//   jobs    every concurrent job (running ones, then the new ones of this decision in arrival
//           order), one token of kJobFeatures values:
//             one-hot Harmony type (8), all-reduce (1), requested workers / 4, PSs / 4,
//             new in this decision (1), share of its tasks placed, servers it spans / 4
//   servers one token per server, kServerFeatures values:
//             free share of CPU, GPU, memory, bandwidth (4; free / capacity, 0 without capacity),
//             tasks of each Harmony type on it / 4 (8), the current job's workers / 4 and PSs / 4
//             on it, all tasks on it / 8
//   query   the task: is a PS, is a worker, share of the current job's tasks still to place (3)
// A new job's tasks are placed one at a time, its PSs first, then its workers [A] (an all-reduce
// job has no PS); the mask allows the servers where one more such task fits (every resource).
// The reward model's token of a placed job (kRewardFeatures, seq2seq_reward.h) is built here too.
#pragma once
#include <span>
#include <vector>

#include "cluster/model/cluster_spec.h"
#include "cluster/model/placement.h"
#include "cluster/model/ps_job.h"
#include "cluster/policies/harmony/learned_placer.h"
#include "cluster/policies/ps/ps_pool.h"

namespace dmlkit::cluster {

inline constexpr int kS2sTypes = 8;
inline constexpr int kJobFeatures = kS2sTypes + 6;
inline constexpr int kServerFeatures = kResources + kS2sTypes + 3;
inline constexpr int kQueryFeatures = 3;
inline constexpr int kRewardFeatures = kS2sTypes + 7 + 2 * kS2sTypes;

using S2sHeuristic = PlacementHeuristic;

// A placed job as the reward model sees it.
struct S2sPlacedJob {
  int type = 0;  // Harmony type index
  bool allreduce = false;
  int workers = 0, ps = 0;
  std::vector<std::pair<int, std::pair<int, int>>> on;  // (server, (workers, PSs))
};
S2sPlacedJob s2s_placed_job(const PsJobSpec& spec, const Placement& placement);
// The Harmony type index of a job (0 for a job outside Harmony's catalogue).
int s2s_type(const PsJobSpec& spec);
// Index of (type, kind) into a speed-scale vector of 2 x 8 values.
inline int s2s_scale_index(const S2sPlacedJob& j) { return j.type + (j.allreduce ? kS2sTypes : 0); }
// The reward model's tokens: jobs.size() x kRewardFeatures values (servers: the cluster's count).
void s2s_reward_tokens(std::span<const S2sPlacedJob> jobs, int servers, std::vector<float>& out);

class Seq2SeqBoard {
 public:
  explicit Seq2SeqBoard(const ClusterSpec& cluster);
  int servers() const { return pool_.num_servers(); }
  int jobs() const { return static_cast<int>(jobs_.size()); }
  void clear();
  // Returns the job's index on the board.
  int add_running(const PsJobSpec& spec, const Placement& placement);
  int add_new(const PsJobSpec& spec);
  // The next task of new job j to place: 1 = PS, 0 = worker, -1 = complete.
  int next_kind(int j) const;
  bool fits(int j, int kind, int server) const;
  // mask[m] = 1 where the next task of j fits; returns the number allowed.
  int mask(int j, unsigned char* mask) const;
  void place(int j, int kind, int server);
  void rollback(int j);
  bool complete(int j) const { return next_kind(j) < 0; }
  Placement placement(int j) const;
  int heuristic(int j, S2sHeuristic h) const;  // -1 if nothing fits
  // Whether all of new job j's tasks still to place fit on `server` together.
  bool fits_whole(int j, int server) const;
  // Whether some job's task is on `server` (running, or placed earlier in this decision).
  bool occupied(int server) const { return tasks_on_[static_cast<size_t>(server)] > 0; }
  // Features (see the file comment): jobs() x kJobFeatures, servers() x kServerFeatures, kQueryFeatures.
  void job_features(std::vector<float>& out) const;
  void server_features(int current, std::vector<float>& out) const;
  void query_features(int j, std::vector<float>& out) const;

 private:
  struct BoardJob {
    const PsJobSpec* spec = nullptr;
    bool fresh = false;
    int want_w = 0, want_p = 0, placed_w = 0, placed_p = 0;
    std::vector<int> w_on, p_on;  // per server
  };
  const ClusterSpec* cluster_;
  PsPool pool_;
  std::vector<BoardJob> jobs_;
  std::vector<int> type_on_;  // servers x types
  std::vector<int> tasks_on_;
};

}  // namespace dmlkit::cluster
