// harmony-seq2seq's replay of a teacher's decisions for the [A] imitation warm start (the rest is
// harmony's, harmony_imitation.h): the decision is rebuilt on the placer's board
// (policies/harmony_seq2seq/seq2seq_board.h) as the decoder would take it: the new jobs in arrival
// order, each job's PSs first, then its workers, each task labelled with the lowest-id server where
// the teacher still has a task of that kind and where it fits (the pointer's target); the job tokens
// cut to the shape's max_jobs newest, as Seq2SeqPlacer::set_max_tokens does while training. A job
// the teacher held back is labelled with the wait target when the shape has one (wait_target, at the
// job's first task while some job holds servers, where the placer offers it) and gives no sample
// otherwise; a job whose replay
// fails (a task that fits nowhere the teacher put one) is counted in dropped_jobs and rolled back.
#pragma once
#include <vector>

#include "cluster/policies/harmony_seq2seq/seq2seq_board.h"
#include "cluster/train/harmony_imitation.h"
#include "learn/attn_net.h"

namespace dmlkit::cluster {

class S2sBoardReplay final : public ImitationReplay {
 public:
  // shape: the actor's (its rows' padding, its wait target).
  S2sBoardReplay(const learn::AttnShape& shape, const ClusterSpec& cluster);
  void replay(std::span<const RunningPsJob> running, std::span<const PsJobSpec* const> fresh,
              std::span<const Placement> placed, HarmonyImitationData& data) override;

 private:
  // One sample: the state before job j's next task, the board's mask (+ the wait flag), the label.
  void record(int first, int j, bool wait_allowed, int label, HarmonyImitationData& data);
  learn::AttnShape shape_;
  Seq2SeqBoard board_;
  std::vector<float> jx_, sx_, qx_, row_;
  std::vector<unsigned char> mask_, padded_mask_;
};

}  // namespace dmlkit::cluster
