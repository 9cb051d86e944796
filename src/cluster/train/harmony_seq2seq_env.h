// The environment harmony-seq2seq's DRL trains in: the same rules as Harmony's
// (cluster/train/harmony_env.h, whose [A] simplifications hold here too: decisions at interval
// boundaries, no restart delay, predicted speeds floored at min_speed_share of the (type, kind)'s
// reference speed, at most max_intervals), with the journal design's placer and its seq2seq reward
// model, which predicts the speeds of all concurrent jobs at once (no job-slot limit). Reward per
// interval: DL2's normalised progress sum_j (epochs trained by j in the interval) / E_j.
#pragma once
#include <functional>
#include <span>
#include <vector>

#include "cluster/model/job.h"
#include "cluster/train/ps_interval_env.h"
#include "cluster/policies/harmony_seq2seq/seq2seq_placer.h"

namespace dmlkit::cluster {

struct S2sEnvConfig : IntervalEnvConfig {
  S2sEnvConfig() { round_s = 1200; }
};
using S2sEpisode = IntervalEpisode;

using S2sSpeedFn = std::function<void(std::span<const S2sPlacedJob>, std::vector<double>&)>;

S2sEpisode run_s2s_env(const ClusterSpec& cluster, const Workload& workload, Seq2SeqPlacer& placer,
                       const S2sSpeedFn& speed, const std::vector<float>& speed_scale, const S2sEnvConfig& config,
                       const std::function<void(double)>& on_interval);

}  // namespace dmlkit::cluster
