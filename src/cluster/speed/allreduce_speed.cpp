// The ring all-reduce speed model; see allreduce_speed.h.
#include "cluster/speed/allreduce_speed.h"

#include <algorithm>
#include <limits>

namespace dmlkit::cluster {

double allreduce_samples_per_s(const PsJobSpec& job, int w, const Placement* placement) {
  if (w <= 0) return 0.0;
  const PsJobType& t = job.job_type();
  if (w == 1) return 1.0 / t.local_compute_s;
  int servers = 0, most_on_one = 0;
  double bw = std::numeric_limits<double>::infinity();
  auto server = [&](int wi) {
    if (wi <= 0) return;
    ++servers;
    most_on_one = std::max(most_on_one, wi);
    if (wi > 1) bw = std::min(bw, t.intra_bw_MBps / wi);
  };
  if (placement != nullptr && !placement->empty()) {
    for (const Slice& s : *placement) server(s.workers);
  } else {
    const int n = (w + 3) / 4;
    for (int i = 0; i < n; ++i) server(w / n + (i < w % n ? 1 : 0));
  }
  if (servers > 1) bw = std::min(bw, t.inter_bw_MBps);
  const double comm_s = 2.0 * (w - 1) / w * t.model_mb / bw;
  return w / (t.local_compute_s + comm_s);
}

}  // namespace dmlkit::cluster
