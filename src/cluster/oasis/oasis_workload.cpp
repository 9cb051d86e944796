// OASiS-model workload generator (see oasis_workload.h).
#include "cluster/oasis/oasis_workload.h"

#include <algorithm>
#include <cmath>

#include "cluster/workload/ps_workload.h"
#include "core/error.h"
#include "core/rng.h"
#include "core/table.h"

namespace dmlkit::cluster::oasis {

namespace {

constexpr size_t kMaxJobs = 5000;  // keeps every method (rrh is quadratic in the active jobs) to minutes at worst

double draw(Rng& rng, const Range& r) { return r.hi > r.lo ? rng.uniform(r.lo, r.hi) : r.lo; }
int draw_int(Rng& rng, const Range& r) {
  const auto lo = static_cast<int64_t>(std::ceil(r.lo)), hi = static_cast<int64_t>(std::floor(r.hi));
  return static_cast<int>(hi > lo ? rng.uniform_int(lo, hi) : lo);
}

// Dominant share of one worker of `job` on a worker server of `cluster`.
double worker_dominant_share(const OasisJob& job, const OasisCluster& cluster) {
  for (int h = 0; h < cluster.num_servers(); ++h) {
    if (!cluster.hosts(h, false)) continue;
    double share = 0;
    for (int r = 0; r < kNumResources; ++r)
      if (cluster.servers[h].capacity[r] > 0) share = std::max(share, job.worker_demand[r] / cluster.servers[h].capacity[r]);
    return share;
  }
  return 0;
}

OasisJob draw_job(const OasisWorkloadSpec& s, Rng& rng) {
  OasisJob j;
  j.epochs = draw(rng, s.epochs);
  j.chunks = std::max(1, draw_int(rng, s.chunks));
  j.max_workers = j.chunks;
  j.minibatches_per_chunk = draw(rng, s.minibatches);
  const double per_worker = draw(rng, s.per_worker_slots);
  j.model_size_mb = draw(rng, s.model_size_mb);
  j.workers_per_ps = std::max(1, draw_int(rng, s.workers_per_ps));
  for (int r = 0; r < kNumResources; ++r) {
    const bool integral = r == kGpu;
    j.worker_demand[r] = integral ? draw_int(rng, {s.worker_lo[r], s.worker_hi[r]}) : draw(rng, {s.worker_lo[r], s.worker_hi[r]});
    j.ps_demand[r] = integral ? draw_int(rng, {s.ps_lo[r], s.ps_hi[r]}) : draw(rng, {s.ps_lo[r], s.ps_hi[r]});
  }
  // tau_i from the per-worker duration D_i/N_i (spec 5.6): one mini-batch takes
  // per_worker * slot_s / (E M) seconds, of which 2 e / b is communication. If the drawn model is too
  // large for that time, it is shrunk so that communication takes half of it [A].
  j.worker_bw_gbps = j.worker_demand[kNetGbps];
  const double minibatch_s = per_worker * s.slot_s / (j.epochs * j.minibatches_per_chunk);
  auto comm_s = [&] { return j.worker_bw_gbps > 0 ? 2.0 * j.model_size_mb * 8e-3 / j.worker_bw_gbps : 0.0; };
  if (comm_s() >= minibatch_s) j.model_size_mb = minibatch_s / 2 * j.worker_bw_gbps / (2.0 * 8e-3);
  j.compute_s = std::max(0.0, minibatch_s - comm_s());
  const double work = j.epochs * j.chunks * j.minibatches_per_chunk * (j.compute_s + comm_s()) / s.slot_s;
  j.work_worker_slots = std::max<long>(1, static_cast<long>(std::ceil(work - 1e-9)));
  // Utility (spec 5.1).
  j.utility.kind = s.utility;
  j.utility.priority = draw(rng, s.priority);
  j.utility.decay = draw(rng, s.decay);
  j.utility.target_slots = draw(rng, s.target_slots);
  if (s.target_from == "fastest")
    j.utility.target_slots += std::ceil(static_cast<double>(j.work_worker_slots) / j.max_workers);
  j.user_workers = std::clamp(static_cast<int>(std::ceil(j.max_workers * s.user_worker_fraction)), 1, j.max_workers);
  j.user_ps = j.ps_for(j.user_workers);
  return j;
}

}  // namespace

void check_workload_spec(const OasisWorkloadSpec& s, int horizon, const std::string& path, long line) {
  auto range = [&](const Range& r, const std::string& field, double min) {
    if (!std::isfinite(r.lo) || !std::isfinite(r.hi) || r.lo > r.hi)
      throw Error(path, line, field, "expected [lo, hi] with lo <= hi");
    if (r.lo < min) throw Error(path, line, field, "must be >= " + std::to_string(min).substr(0, 6));
  };
  range(s.epochs, "epochs", 1e-9);
  range(s.chunks, "chunks", 1);
  range(s.minibatches, "minibatches", 1e-9);
  range(s.per_worker_slots, "per_worker_slots", 1e-9);
  range(s.model_size_mb, "model_size_mb", 0);
  range(s.workers_per_ps, "workers_per_ps", 1);
  range(s.priority, "priority", 0);
  range(s.target_slots, "target_slots", 1e-9);
  if (!std::isfinite(s.decay.lo) || !std::isfinite(s.decay.hi) || s.decay.lo > s.decay.hi)
    throw Error(path, line, "decay", "expected [lo, hi] with lo <= hi");
  if (s.utility == UtilityKind::Sigmoid && s.decay.lo < 0)
    throw Error(path, line, "decay",
                "a negative decay makes the utility increase with the completion time; OASiS needs a "
                "non-increasing utility");
  for (int r = 0; r < kNumResources; ++r) {
    const std::string n = resource_name(r);
    if (!(s.worker_lo[r] >= 0) || !(s.ps_lo[r] >= 0) || !std::isfinite(s.worker_hi[r]) || !std::isfinite(s.ps_hi[r]))
      throw Error(path, line, "demand " + n, "a demand must be a finite number >= 0");
    if (s.worker_lo[r] > s.worker_hi[r] || s.ps_lo[r] > s.ps_hi[r])
      throw Error(path, line, "demand " + n, "expected [lo, hi] with lo <= hi");
  }
  if (s.target_from != "fastest" && s.target_from != "arrival")
    throw Error(path, line, "target_from", "expected fastest or arrival");
  if (s.arrivals != "google" && s.arrivals != "poisson") throw Error(path, line, "arrivals", "expected google or poisson");
  if (s.arrival_slots < 1 || s.arrival_slots > horizon)
    throw Error(path, line, "arrival_slots", "must be in 1.." + std::to_string(horizon) + " (the horizon)");
  if (!(s.load > 0) || !std::isfinite(s.load)) throw Error(path, line, "load", "must be > 0");
  if (!(s.slot_s > 0)) throw Error(path, line, "slot_s", "must be > 0");
  if (!(s.user_worker_fraction > 0 && s.user_worker_fraction <= 1))
    throw Error(path, line, "user_worker_fraction", "must be in (0, 1]");
}

std::vector<OasisJob> oasis_workload(const OasisWorkloadSpec& s, const OasisCluster& cluster, uint64_t seed,
                                     const std::string& data_dir) {
  const Rng root(seed);
  Rng jobs_rng = root.split(101);
  Rng arrivals_rng = root.split(102);
  const int worker_servers = cluster.shared_pool() ? cluster.num_servers() : cluster.count(Pool::Worker);
  const double target = s.load * worker_servers * s.arrival_slots;
  std::vector<OasisJob> jobs;
  double offered = 0;
  // The last job that crosses the target is kept; a cap keeps a silly load from exhausting memory.
  while (offered < target) {
    if (jobs.size() >= kMaxJobs)
      throw Error("oasis workload: load " + fixed(s.load, 2) + " needs more than " + std::to_string(kMaxJobs) +
                  " jobs on this cluster; use a smaller load");
    OasisJob j = draw_job(s, jobs_rng);
    offered += static_cast<double>(j.work_worker_slots) * worker_dominant_share(j, cluster);
    jobs.push_back(j);
  }
  // Arrival slots drawn i.i.d. from the per-slot intensity (Poisson arrivals given their count are
  // uniform; the Google pattern weights each slot by its arrival count, offset ~ U{0..4} as DL2).
  std::vector<double> weight(static_cast<size_t>(s.arrival_slots), 1.0);
  if (s.arrivals == "google") {
    const std::vector<int> pattern = google_arrival_pattern(data_dir, s.google_pattern_max);
    const int64_t offset = arrivals_rng.uniform_int(0, 4);
    for (int t = 0; t < s.arrival_slots; ++t) weight[t] = pattern[static_cast<size_t>(t + offset) % pattern.size()];
  }
  std::vector<double> cdf(weight.size());
  double total = 0;
  for (size_t t = 0; t < weight.size(); ++t) cdf[t] = (total += weight[t]);
  if (total <= 0) throw Error("oasis workload: the arrival pattern has no arrivals in the first arrival_slots slots");
  for (auto& j : jobs) {
    const double u = arrivals_rng.uniform() * total;
    j.arrival_slot = static_cast<int>(std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
    j.arrival_slot = std::min(j.arrival_slot, s.arrival_slots - 1);
  }
  std::stable_sort(jobs.begin(), jobs.end(), [](const OasisJob& a, const OasisJob& b) { return a.arrival_slot < b.arrival_slot; });
  for (size_t i = 0; i < jobs.size(); ++i) jobs[i].id = static_cast<int>(i);
  return jobs;
}

}  // namespace dmlkit::cluster::oasis
