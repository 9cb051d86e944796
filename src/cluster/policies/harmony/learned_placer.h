// What Harmony's two learned placers share (`harmony`, harmony_placer.h, and `harmony-seq2seq`,
// harmony_seq2seq/seq2seq_placer.h): the running jobs they are given, the choice of an action from
// the network's logits (the arg-max of the masked softmax, the run-time default [A], or a draw from
// it), the job-aware epsilon-greedy exploration while training (with probability epsilon the
// action of a heuristic instead, bin packing or load balancing with equal odds: Harmony's), their
// counters, and the placement policy around a placer (collect the running and the new jobs, decide,
// apply the placements).
#pragma once
#include <optional>
#include <span>
#include <vector>

#include "cluster/model/placement.h"
#include "cluster/model/ps_job.h"
#include "cluster/policies/placement/placement_policy.h"
#include "core/rng.h"

namespace dmlkit::cluster {

struct RunningPsJob {
  const PsJobSpec* spec = nullptr;
  Placement placement;
};

enum class PlacementHeuristic { BinPacking, LoadBalancing };

struct LearnedPlacerStats {
  long steps = 0;
  long explored = 0;  // steps whose action came from a heuristic
  long rolled_back = 0;  // jobs whose next task fitted nowhere
  long waited = 0;       // jobs for which the placer chose to wait (harmony-seq2seq's wait target)
};

class LearnedPlacerBase {
 public:
  void set_select_max(bool v) { select_max_ = v; }
  void set_epsilon(double eps) { epsilon_ = eps; }
  const LearnedPlacerStats& stats() const { return stats_; }

 protected:
  explicit LearnedPlacerBase(Rng rng) : rng_(rng) {}
  // With probability epsilon: the heuristic to take this step's action from (equal odds).
  std::optional<PlacementHeuristic> explore();
  // The arg-max or a draw of the softmax of the logits over the allowed actions (mask[a] = 1);
  // -1 when none is allowed.
  int pick(const std::vector<float>& logits, const std::vector<unsigned char>& mask);

  Rng rng_;
  bool select_max_ = true;
  double epsilon_ = 0;
  LearnedPlacerStats stats_;

 private:
  std::vector<double> probs_;
};

// A placement policy that places each decision's new jobs together with a learned placer.
class LearnedPlacementPolicy : public PlacementPolicy {
 protected:
  void place_batch(PlacementState& state, std::span<const int> waiting) final;
  void place_job(PlacementState& state, int i) final;
  // Called with the running jobs collected, before the new ones are (harmony's online update).
  virtual void before_decision(PlacementState& /*state*/) {}
  // out[k]: the placement of fresh[k] (empty: it waits).
  virtual void decide(const PlacementState& state, std::span<const RunningPsJob> running,
                      std::span<const PsJobSpec* const> fresh, std::vector<Placement>& out) = 0;

 private:
  std::vector<RunningPsJob> running_;
  std::vector<const PsJobSpec*> fresh_;
  std::vector<Placement> out_;
};

}  // namespace dmlkit::cluster
