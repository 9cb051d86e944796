#include "cluster/sim/metrics.h"

#include <algorithm>
#include <cmath>

#include "core/stats.h"

namespace dmlkit::cluster {

Metrics compute_metrics(const SimResult& r) {
  Metrics m;
  m.jobs = r.jobs.size();
  std::vector<double> jcts;
  jcts.reserve(r.jobs.size());
  double jct_sum = 0, queue_sum = 0, gpu_s = 0;
  for (const auto& j : r.jobs) {
    m.preemptions += j.preemptions;
    gpu_s += j.gpu_s;
    if (!j.finished()) continue;
    ++m.finished;
    jcts.push_back(j.jct_s());
    jct_sum += j.jct_s();
    queue_sum += j.queued_s();
  }
  if (m.finished > 0) {
    m.avg_jct_s = jct_sum / static_cast<double>(m.finished);
    m.avg_queue_s = queue_sum / static_cast<double>(m.finished);
  }
  m.median_jct_s = percentile(jcts, 50);
  m.p95_jct_s = percentile(jcts, 95);
  m.p99_jct_s = percentile(jcts, 99);
  m.makespan_s = r.makespan_s;
  if (r.total_gpus > 0 && r.makespan_s > 0) m.gpu_utilization = gpu_s / (r.total_gpus * r.makespan_s);
  return m;
}

}  // namespace dmlkit::cluster
