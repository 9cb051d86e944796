// harmony-seq2seq's imitation replay; see harmony_seq2seq_imitation.h.
#include "cluster/train/harmony_seq2seq_imitation.h"

#include <algorithm>

#include "cluster/policies/harmony_seq2seq/seq2seq_placer.h"

namespace dmlkit::cluster {

S2sBoardReplay::S2sBoardReplay(const learn::AttnShape& shape, const ClusterSpec& cluster)
    : shape_(shape), board_(cluster) {}

void S2sBoardReplay::record(int first, int j, bool wait_allowed, int label, HarmonyImitationData& data) {
  const int J = board_.jobs() - first, S = board_.servers();
  if (J > shape_.max_jobs) return;  // more new jobs than a row holds: no sample (as the DRL's sink) [A]
  data.state_size = shape_.inputs();
  data.actions = shape_.outputs();
  board_.job_features(jx_);
  board_.server_features(j, sx_);
  board_.query_features(j, qx_);
  row_.resize(static_cast<size_t>(shape_.inputs()));
  learn::attn_encode(shape_, J, S, j - first, jx_.data() + static_cast<size_t>(first) * kJobFeatures, sx_.data(),
                     qx_.data(), row_.data());
  padded_mask_.assign(static_cast<size_t>(shape_.outputs()), 0);
  std::copy_n(mask_.begin(), S, padded_mask_.begin());
  if (shape_.wait_target) padded_mask_[static_cast<size_t>(shape_.wait_column())] = wait_allowed ? 1 : 0;
  data.states.insert(data.states.end(), row_.begin(), row_.end());
  data.masks.insert(data.masks.end(), padded_mask_.begin(), padded_mask_.end());
  data.labels.push_back(label);
}

void S2sBoardReplay::replay(std::span<const RunningPsJob> running, std::span<const PsJobSpec* const> fresh,
                            std::span<const Placement> placed, HarmonyImitationData& data) {
  board_.clear();
  for (const RunningPsJob& r : running) board_.add_running(*r.spec, r.placement);
  const int first_new = board_.jobs();
  for (const PsJobSpec* f : fresh) board_.add_new(*f);
  const int first = std::min(first_new, std::max(0, board_.jobs() - shape_.max_jobs));
  const int S = board_.servers();
  mask_.resize(static_cast<size_t>(S));
  bool occupied = !running.empty();  // the placer offers the wait target only then
  for (size_t k = 0; k < fresh.size(); ++k) {
    const int j = first_new + static_cast<int>(k);
    if (placed[k].empty()) {
      // The placer asks the network only when a task fits somewhere.
      if (shape_.wait_target && s2s_wait_offered(0, occupied) && board_.mask(j, mask_.data()) > 0)
        record(first, j, true, shape_.wait_column(), data);
      continue;
    }
    TeacherTasks left(placed[k], S);
    bool ok = true;
    for (int kind = board_.next_kind(j), task = 0; kind >= 0; kind = board_.next_kind(j), ++task) {
      const int m = board_.mask(j, mask_.data()) == 0
                        ? -1
                        : left.first(kind, [&](int s) { return mask_[static_cast<size_t>(s)] != 0; });
      if (m < 0) {
        ok = false;
        break;
      }
      record(first, j, s2s_wait_offered(task, occupied), m, data);
      board_.place(j, kind, m);
      left.take(kind, m);
    }
    if (!ok) {
      ++data.dropped_jobs;
      board_.rollback(j);
    } else {
      occupied = true;
    }
  }
}

}  // namespace dmlkit::cluster
