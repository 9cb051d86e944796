// The harmony-seq2seq policy and its registry entry; see seq2seq_policy.h.
#include "cluster/policies/harmony_seq2seq/seq2seq_policy.h"

#include "cluster/policies/factories.h"

namespace dmlkit::cluster {

Seq2SeqPolicy::Seq2SeqPolicy(const Seq2SeqModel& model, bool select_max, uint64_t seed)
    : model_(model), select_max_(select_max), seed_(seed) {}

Seq2SeqPlacer& Seq2SeqPolicy::placer(const ClusterSpec& cluster) {
  if (placer_ && cluster_ == &cluster) return *placer_;
  placer_ = std::make_unique<Seq2SeqPlacer>(cluster, model_.policy, seed_);
  placer_->set_select_max(select_max_);
  cluster_ = &cluster;
  return *placer_;
}

void Seq2SeqPolicy::place_job(PlacementState& state, int i) {
  const int one[1] = {i};
  place_batch(state, one);
}

void Seq2SeqPolicy::place_batch(PlacementState& state, std::span<const int> waiting) {
  Seq2SeqPlacer& p = placer(state.cluster());
  running_.clear();
  for (int i = 0; i < state.num_jobs(); ++i)
    if (state.running(i)) running_.push_back({&state.spec(i), state.job(i).placement});
  fresh_.clear();
  for (int i : waiting) fresh_.push_back(&state.spec(i));
  p.decide(running_, fresh_, out_);
  for (size_t k = 0; k < waiting.size(); ++k) {
    const int i = waiting[k];
    for (const Slice& s : out_[k]) {
      for (int w = 0; w < s.workers; ++w) state.add_task(i, TaskRole::Worker, s.server);
      for (int q = 0; q < s.ps; ++q) state.add_task(i, TaskRole::Ps, s.server);
    }
  }
}

PolicyEntry harmony_seq2seq_entry() {
  return {"harmony-seq2seq",
          "Harmony's journal design: self-attention over the concurrent jobs and a pointer decoder over the "
          "servers place each new PS or all-reduce job task by task (placement only; any job/server count)",
          [](const PolicyOptions& o, const Knobs& k) -> std::unique_ptr<Policy> {
            const Seq2SeqModel m = load_s2s_model(k.get_string("harmony-seq2seq.model"));
            return std::make_unique<Seq2SeqPolicy>(m, k.get_string("harmony-seq2seq.select") == "max", o.seed);
          },
          {knob_string("harmony-seq2seq.model", "harmony-seq2seq-testbed",
                       "trained model: a bundled name (data/models/NAME.json) or a model file's path"),
           knob_enum("harmony-seq2seq.select", "max", {"max", "sample"},
                     "take the most probable server with room or draw from the masked distribution")},
          {.gpu_jobs = false, .ps_jobs = true, .make_ps = nullptr, .ps_variant = ""}};
}

}  // namespace dmlkit::cluster
