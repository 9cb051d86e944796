// The harmony-seq2seq policy and its registry entry; see seq2seq_policy.h.
#include "cluster/policies/harmony_seq2seq/seq2seq_policy.h"

#include "cluster/policies/harmony/harmony_model.h"

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

void Seq2SeqPolicy::decide(const PlacementState& state, std::span<const RunningPsJob> running,
                           std::span<const PsJobSpec* const> fresh, std::vector<Placement>& out) {
  placer(state.cluster()).decide(running, fresh, out);
}

PolicyEntry harmony_seq2seq_entry() {
  return {"harmony-seq2seq",
          "Harmony's journal design: self-attention over the concurrent jobs and a pointer decoder over the "
          "servers place each new PS or all-reduce job task by task (placement only; any job/server count)",
          [](const PolicyOptions& o, const Knobs& k) -> std::unique_ptr<Policy> {
            std::string name = k.get_string("harmony-seq2seq.model");
            if (name == "auto") name = harmony_default_model(o.experiment, o.interference, "harmony-seq2seq");
            const Seq2SeqModel m = load_s2s_model(name);
            return std::make_unique<Seq2SeqPolicy>(m, k.get_string("harmony-seq2seq.select") == "max", o.seed);
          },
          {knob_string("harmony-seq2seq.model", "auto",
                       "trained model: auto (the bundled model for the preset and interference model, e.g. "
                       "harmony-seq2seq-testbed-gavel under gavel, else harmony-seq2seq-testbed), a bundled name "
                       "(data/models/NAME.json) or a model file's path"),
           knob_enum("harmony-seq2seq.select", "max", {"max", "sample"},
                     "take the most probable server with room or draw from the masked distribution")},
          {.gpu_jobs = false, .ps_jobs = true, .make_ps = nullptr, .ps_variant = ""}};
}

}  // namespace dmlkit::cluster
