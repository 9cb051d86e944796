// The `harmony-seq2seq` placement policy: Harmony's journal design (Bao, Peng, Wu, Yu; the journal
// version of "Deep Learning-based Job Placement in Distributed Machine Learning Clusters",
// cluster-schedulers.md 4 and second-pass.md 3; no public code: the network and the decoding order
// are ours [A], docs/harmony-seq2seq.md lists every assumption). Parameter-server and all-reduce
// jobs; at every decision it places the newly arrived jobs with the user's worker (and PS) counts,
// never moving running ones (policies/placement/placement_policy.h), by a sequence-to-sequence
// network: multi-head self-attention over the concurrent jobs and a pointer-style decoder that,
// task by task, points at a server among those with room (seq2seq_placer.h). Its parameters do not
// depend on the numbers of jobs or servers, so one model runs on any cluster. Inference only, in
// plain C++, from a model file (`harmony-seq2seq.model`: a bundled name or a path).
#pragma once
#include <memory>
#include <vector>

#include "cluster/policies/harmony_seq2seq/seq2seq_model.h"
#include "cluster/policies/harmony_seq2seq/seq2seq_placer.h"

namespace dmlkit::cluster {

class Seq2SeqPolicy final : public LearnedPlacementPolicy {
 public:
  Seq2SeqPolicy(const Seq2SeqModel& model, bool select_max, uint64_t seed);
  Seq2SeqPlacer& placer(const ClusterSpec& cluster);

 protected:
  void decide(const PlacementState& state, std::span<const RunningPsJob> running,
              std::span<const PsJobSpec* const> fresh, std::vector<Placement>& out) override;

 private:
  Seq2SeqModel model_;
  bool select_max_;
  uint64_t seed_;
  std::unique_ptr<Seq2SeqPlacer> placer_;
  const ClusterSpec* cluster_ = nullptr;
};

}  // namespace dmlkit::cluster
