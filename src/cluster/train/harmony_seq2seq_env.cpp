// harmony-seq2seq's training environment; see harmony_seq2seq_env.h.
#include "cluster/train/harmony_seq2seq_env.h"

#include <algorithm>

#include "core/error.h"

namespace dmlkit::cluster {

S2sEpisode run_s2s_env(const ClusterSpec& cluster, const Workload& workload, Seq2SeqPlacer& placer,
                       const S2sSpeedFn& speed, const std::vector<float>& speed_scale, const S2sEnvConfig& c,
                       const std::function<void(double)>& on_interval) {
  struct EnvJob {
    const Job* job;
    double done = 0;
    Placement placement;
    double finish_s = -1;
  };
  std::vector<EnvJob> jobs;
  for (const Job& j : workload.jobs) {
    if (!j.ps) throw Error("harmony-seq2seq training: job '" + j.name + "' is not a parameter-server job");
    jobs.push_back({&j});
  }
  (void)cluster;
  S2sEpisode ep;
  size_t finished = 0;
  std::vector<S2sRunningJob> running;
  std::vector<const PsJobSpec*> fresh;
  std::vector<size_t> fresh_idx, run_idx;
  std::vector<Placement> out;
  std::vector<S2sPlacedJob> placed;
  std::vector<double> sp;
  for (long k = 0; finished < jobs.size() && k < c.max_intervals; ++k) {
    const double t = static_cast<double>(k) * c.round_s;
    running.clear();
    fresh.clear();
    fresh_idx.clear();
    for (size_t i = 0; i < jobs.size(); ++i) {
      EnvJob& j = jobs[i];
      if (j.finish_s >= 0 || j.job->arrival_s > t + 1e-9) continue;
      if (j.placement.empty()) {
        fresh.push_back(j.job->ps.get());
        fresh_idx.push_back(i);
      } else {
        running.push_back({j.job->ps.get(), j.placement});
      }
    }
    if (!fresh.empty()) {
      placer.decide(running, fresh, out);
      for (size_t f = 0; f < fresh.size(); ++f) jobs[fresh_idx[f]].placement = out[f];
    }
    placed.clear();
    run_idx.clear();
    for (size_t i = 0; i < jobs.size(); ++i) {
      const EnvJob& j = jobs[i];
      if (j.finish_s >= 0 || j.placement.empty()) continue;
      placed.push_back(s2s_placed_job(*j.job->ps, j.placement));
      run_idx.push_back(i);
    }
    speed(placed, sp);
    double reward = 0;
    for (size_t r = 0; r < run_idx.size(); ++r) {
      EnvJob& j = jobs[run_idx[r]];
      const PsJobSpec& s = *j.job->ps;
      const double v = std::max(sp[r], c.min_speed_share * speed_scale[static_cast<size_t>(s2s_scale_index(placed[r]))]);
      const double epoch_size = s.job_type().epoch_size;
      const double epochs = v * c.round_s / epoch_size;
      const double left = s.total_epochs - j.done;
      if (epochs >= left) {
        j.finish_s = t + left * epoch_size / v;
        reward += left / s.total_epochs;
        j.done = s.total_epochs;
        ++finished;
      } else {
        j.done += epochs;
        reward += epochs / s.total_epochs;
      }
    }
    ep.rewards.push_back(reward);
    if (on_interval) on_interval(reward);
  }
  double sum = 0;
  long n = 0;
  for (const EnvJob& j : jobs) {
    if (j.finish_s < 0) {
      ++ep.unfinished;
      continue;
    }
    sum += j.finish_s - j.job->arrival_s;
    ++n;
  }
  ep.avg_jct_s = n > 0 ? sum / static_cast<double>(n) : 0.0;
  return ep;
}

}  // namespace dmlkit::cluster
