// Optimus' resource allocation (Peng et al., EuroSys'18; section 2.4 of
// specs/cluster-schedulers.md): greedy marginal gain on the dominant resource.
//   1. In arrival order every job gets 1 PS + 1 worker if the cluster-wide totals allow (else it
//      waits this interval).
//   2. A max-heap holds, for every job whose speed model is ready, its best next task: the larger
//      of  g_ps = (Q/f(p,w) - Q/f(p+1,w)) / dom(N)  and  g_w = (Q/f(p,w) - Q/f(p,w+1)) / dom(O)
//      (PS wins ties), where Q is the remaining epochs, f the predicted speed in epochs/s and
//      dom(v) the task's amount of its dominant resource (gain_norm "raw", the prototype) or its
//      dominant share v[r*]/C[r*] (gain_norm "share"); ties between jobs go to the earlier arrival.
//   3. Pop the best; stop when its gain is <= 0; if the task fits the cluster-wide totals give it
//      and push the job's next gain, else stop (stop_on_first_fail, the prototype) or only drop
//      that job and go on.
// Feasibility is cluster-wide only; placement (placement.h) may shrink a job. Per-job caps on each
// task kind [A] (16 as in DL2) keep the speed models inside their measured range.
#pragma once
#include <functional>
#include <span>
#include <vector>

#include "cluster/model/ps_job.h"

namespace dmlkit::cluster {

struct AllocJob {
  double remaining = 0;  // Q, epochs
  TaskDemand worker, ps;
  bool model_ready = true;
  int max_ps = 16, max_workers = 16;
};

struct AllocOptions {
  bool gain_share = false;  // gain_norm: false = raw amount, true = dominant share
  bool stop_on_first_fail = true;
};

// speed(job index, p, w) in epochs/s. capacity: cluster totals of CPU, GPU, memory, bandwidth.
// Writes ps[i], workers[i] (0, 0 for a job that waits).
void greedy_allocate(std::span<const AllocJob> jobs, const double capacity[4],
                     const std::function<double(int, int, int)>& speed, const AllocOptions& options,
                     std::vector<int>& ps, std::vector<int>& workers);

}  // namespace dmlkit::cluster
