// Harmony's imitation warm start; see harmony_imitation.h.
#include "cluster/train/harmony_imitation.h"

namespace dmlkit::cluster {

void HarmonyImitationData::append(const HarmonyImitationData& o) {
  states.insert(states.end(), o.states.begin(), o.states.end());
  masks.insert(masks.end(), o.masks.begin(), o.masks.end());
  labels.insert(labels.end(), o.labels.begin(), o.labels.end());
  decisions += o.decisions;
  dropped_jobs += o.dropped_jobs;
}

HarmonyImitationRecorder::HarmonyImitationRecorder(std::unique_ptr<Policy> teacher, const HarmonyShape& shape,
                                                   const ClusterSpec& cluster, HarmonyImitationData& out)
    : teacher_(std::move(teacher)), board_(shape, cluster), data_(out) {
  data_.state_size = shape.state_size();
  data_.actions = shape.actions();
  state_.resize(shape.state_size());
  mask_.resize(shape.actions());
}

void HarmonyImitationRecorder::record(int action) {
  board_.observe(state_.data());
  data_.states.insert(data_.states.end(), state_.begin(), state_.end());
  data_.masks.insert(data_.masks.end(), mask_.begin(), mask_.end());
  data_.labels.push_back(action);
  board_.apply(action);
}

void HarmonyImitationRecorder::schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) {
  teacher_->schedule(view, jobs, out);
  std::vector<int> fresh;
  for (size_t i = 0; i < jobs.size(); ++i)
    if (!jobs[i].running() && jobs[i].job->ps) fresh.push_back(static_cast<int>(i));
  if (fresh.empty()) return;
  ++data_.decisions;
  const HarmonyShape& shape = board_.shape();
  std::vector<HarmonyRunningJob> placed;
  for (size_t first = 0; first < fresh.size(); first += static_cast<size_t>(shape.new_jobs)) {
    const size_t last = std::min(fresh.size(), first + static_cast<size_t>(shape.new_jobs));
    board_.clear();
    for (const JobView& v : jobs)
      if (v.running() && v.job->ps) board_.add_running(*v.job->ps, v.placement);
    for (const HarmonyRunningJob& r : placed) board_.add_running(*r.spec, r.placement);
    for (size_t k = first; k < last; ++k) {
      const PsJobSpec& s = *jobs[static_cast<size_t>(fresh[k])].job->ps;
      board_.add_new(s, s.user_workers, s.user_ps);
    }
    for (size_t k = first; k < last; ++k) {
      const int n = static_cast<int>(k - first);
      const size_t i = static_cast<size_t>(fresh[k]);
      const Placement& p = out[i];
      const PsJobSpec& s = *jobs[i].job->ps;
      if (p.empty()) {
        board_.mask(mask_.data());
        if (shape.defer && mask_[static_cast<size_t>(shape.defer_action(n))]) record(shape.defer_action(n));
        continue;
      }
      // The teacher's tasks per server still to replay.
      std::vector<int> left_w(static_cast<size_t>(shape.servers), 0), left_p(static_cast<size_t>(shape.servers), 0);
      for (const Slice& sl : p)
        if (sl.server >= 0 && sl.server < shape.servers) {
          left_w[static_cast<size_t>(sl.server)] += sl.workers;
          left_p[static_cast<size_t>(sl.server)] += sl.ps;
        }
      int pw = 0, pp = 0;
      bool ok = true;
      while (ok && !board_.complete(n)) {
        const bool want_ps = pw >= s.user_workers || (pp < s.user_ps && next_task_is_ps(s, pp, pw));
        board_.mask(mask_.data());
        int action = -1;
        for (int kind : {want_ps ? 1 : 0, want_ps ? 0 : 1}) {
          const std::vector<int>& left = kind == 0 ? left_w : left_p;
          for (int m = 0; m < shape.servers && action < 0; ++m)
            if (left[static_cast<size_t>(m)] > 0 && mask_[static_cast<size_t>(shape.action(n, kind, m))])
              action = shape.action(n, kind, m);
          if (action >= 0) break;
        }
        if (action < 0) {
          ok = false;
          break;
        }
        const int kind = shape.action_kind(action), m = shape.action_server(action);
        (kind == 0 ? left_w : left_p)[static_cast<size_t>(m)] -= 1;
        (kind == 0 ? pw : pp) += 1;
        record(action);
      }
      if (!ok) {
        ++data_.dropped_jobs;
        board_.rollback(n);
        continue;
      }
      placed.push_back({&s, board_.placement(n)});
    }
  }
}

}  // namespace dmlkit::cluster
