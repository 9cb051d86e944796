// harmony-seq2seq's training environment; see harmony_seq2seq_env.h (the interval loop:
// ps_interval_env.h).
#include "cluster/train/harmony_seq2seq_env.h"

#include "cluster/train/ps_interval_env.h"

namespace dmlkit::cluster {

S2sEpisode run_s2s_env(const ClusterSpec& cluster, const Workload& workload, Seq2SeqPlacer& placer,
                       const S2sSpeedFn& speed, const std::vector<float>& speed_scale, const S2sEnvConfig& c,
                       const std::function<void(double)>& on_interval) {
  (void)cluster;
  return run_interval_env<S2sRunningJob>(
      std::string("harmony-seq2seq"), workload, placer, c, &s2s_placed_job,
      std::function<void(const std::vector<S2sPlacedJob>&, std::vector<double>&)>(
          [&](const std::vector<S2sPlacedJob>& placed, std::vector<double>& sp) { speed(placed, sp); }),
      std::function<double(const S2sPlacedJob&)>(
          [&](const S2sPlacedJob& j) { return static_cast<double>(speed_scale[static_cast<size_t>(s2s_scale_index(j))]); }),
      on_interval);
}

}  // namespace dmlkit::cluster
