// Tetris: multi-resource packing (Grandl, Ananthanarayanan, Kandula, Rao, Akella, "Multi-Resource
// Packing for Cluster Schedulers", SIGCOMM 2014; cluster-schedulers spec section 6.2), with the
// paper's completion-time term and fairness knob, for gang-scheduled training jobs.
//
// Algorithm, every round (running jobs keep their servers: Tetris does not preempt):
//   * Resources per server: GPUs, CPU cores, memory. A job's demand is its whole request:
//     (g, g * cpus_per_gpu, g * mem_gb_per_gpu) with g = job.num_gpus.
//   * Alignment of job j with server m: a(j, m) = sum_r d_j[r] / cap_m[r] * free_m[r] / cap_m[r]
//     (dimensions the server has none of are left out), defined when d_j fits in free_m.
//   * Remaining work rw_j = JobOracle::remaining_time_s(g) * g (GPU-seconds). Score of a
//     placement = a - eps * rw_j (less remaining work scores higher), with
//     eps = (mean alignment over the round's first feasible (job, server) pairs)
//           / (mean rw over the eligible waiting jobs) * tetris.epsilon (default 1), so both
//     terms have comparable scale. eps is fixed for the whole round.
//   * Fairness knob f (tetris.fairness, default 0.25 as the paper suggests): each active job's
//     fair share is total GPUs / active jobs; only the ceil((1 - f) * active jobs) jobs furthest
//     below their fair share (fair share minus the GPUs they hold, counting this round's
//     placements; ties: longest waiting first) are eligible. As a waiting job holds nothing, the
//     eligible waiting jobs are those that have waited longest; f = 0 makes every job eligible.
//   * Greedy packing: repeatedly pick the eligible (job, server) with the highest score that fits
//     and place the job there, until nothing fits.
//   * A job that fits on no single server but fits on several (each server offering
//     min(free GPUs, free CPU / cpus_per_gpu, free memory / mem_gb_per_gpu) GPU-tasks) is a
//     candidate placed across servers with PolicyOptions::placement; its alignment is the sum of
//     its slices' alignments. A job larger than every server can only run that way.
// Assumptions [A]: the policy is an oracle for remaining work (as srtf); a job is placed whole
// (gang) at its requested size or waits; Tetris' per-task packing becomes per-job packing because
// a training job's tasks must start together; ties go to the earlier-arrived job, then the lower
// server id.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "cluster/policies/factories.h"
#include "core/error.h"

namespace dmlkit::cluster {

namespace {

constexpr double kSlack = 1e-9;

struct Res {
  double gpus = 0, cpus = 0, mem = 0;
};

class TetrisPolicy final : public Policy {
 public:
  TetrisPolicy(const PolicyOptions& options, const Knobs& knobs)
      : placement_(options.placement),
        fairness_(knobs.get_double("tetris.fairness")),
        epsilon_scale_(knobs.get_double("tetris.epsilon")) {}

  void schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) override {
    const ClusterSpec& cluster = *view.cluster;
    const size_t n = jobs.size(), ns = cluster.servers.size();
    cap_.resize(ns);
    free_.resize(ns);
    for (size_t s = 0; s < ns; ++s) {
      const Server& sv = cluster.servers[s];
      cap_[s] = {static_cast<double>(sv.gpus), sv.cpus, sv.mem_gb};
      free_[s] = cap_[s];
    }
    waiting_.clear();
    for (size_t i = 0; i < n; ++i) {
      out[i] = jobs[i].placement;
      if (jobs[i].running()) {
        const Job& job = *jobs[i].job;
        for (const Slice& sl : jobs[i].placement) {
          free_[sl.server].gpus -= sl.gpus;
          free_[sl.server].cpus -= sl.gpus * job.cpus_per_gpu;
          free_[sl.server].mem -= sl.gpus * job.mem_gb_per_gpu;
        }
      } else {
        waiting_.push_back(static_cast<int>(i));
      }
    }
    if (waiting_.empty()) return;

    // Remaining work of the waiting jobs.
    rw_.assign(n, 0.0);
    for (int i : waiting_) {
      if (jobs[i].oracle == nullptr) throw Error("policy tetris needs a job oracle (remaining work)");
      const int g = request(jobs[i]);
      rw_[i] = jobs[i].oracle->remaining_time_s(g) * g;
    }
    // Waiting jobs in fairness-rank order: all hold nothing, so longest waiting first.
    std::stable_sort(waiting_.begin(), waiting_.end(), [&](int a, int b) {
      if (jobs[a].queued_since_s != jobs[b].queued_since_s) return jobs[a].queued_since_s < jobs[b].queued_since_s;
      if (jobs[a].job->arrival_s != jobs[b].job->arrival_s) return jobs[a].job->arrival_s < jobs[b].job->arrival_s;
      return jobs[a].job->id < jobs[b].job->id;
    });
    // ceil((1 - f) * active jobs) eligible; running jobs hold GPUs, so they rank below every waiting
    // job (a waiting job is a full fair share below; a running one less than that).
    const size_t eligible_total = static_cast<size_t>(std::ceil((1.0 - fairness_) * static_cast<double>(n) - 1e-9));
    placed_.assign(n, 0);

    double eps = -1;  // set on the first pass
    while (true) {
      // Eligible: the first `eligible_total` jobs of the ranking, which lists unplaced waiting
      // jobs (deficit = fair share), then every job holding GPUs (deficit = fair share - held).
      size_t budget = eligible_total;
      double sum_a = 0, sum_rw = 0;
      int count_a = 0, count_rw = 0;
      candidates_.clear();
      for (int i : waiting_) {
        if (budget == 0) break;
        if (placed_[i]) continue;
        --budget;
        candidates_.push_back(i);
        sum_rw += rw_[i];
        ++count_rw;
      }
      if (candidates_.empty()) break;
      // Feasible (job, server) pairs and their alignments.
      pairs_.clear();
      for (int i : candidates_) {
        const Job& job = *jobs[i].job;
        const int g = request(jobs[i]);
        bool single = false;
        for (size_t s = 0; s < ns; ++s) {
          if (fits(free_[s], g, job)) {
            const double a = alignment(s, g, job);
            pairs_.push_back({i, static_cast<int>(s), a});
            sum_a += a;
            ++count_a;
            single = true;
          }
        }
        if (!single) {
          // Across servers: GPU-tasks each server can take for this job.
          int total = 0;
          offer_.resize(ns);
          for (size_t s = 0; s < ns; ++s) {
            offer_[s] = tasks_fitting(free_[s], job);
            total += offer_[s];
          }
          if (total >= g) {
            FreeGpus pool(offer_);
            Placement p;
            pool.place(g, placement_, p);
            double a = 0;
            for (const Slice& sl : p) a += alignment(sl.server, sl.gpus, job);
            pairs_.push_back({i, -1, a});
            sum_a += a;
            ++count_a;
          }
        }
      }
      if (pairs_.empty()) break;
      if (eps < 0) {
        const double mean_a = count_a > 0 ? sum_a / count_a : 0.0;
        const double mean_rw = count_rw > 0 ? sum_rw / count_rw : 0.0;
        eps = (mean_rw > 0 && std::isfinite(mean_rw)) ? mean_a / mean_rw * epsilon_scale_ : 0.0;
      }
      // Best pair: highest score; ties by earlier arrival, then lower job id, then lower server.
      const Pair* best = nullptr;
      double best_score = 0;
      for (const Pair& pr : pairs_) {
        const double rw = std::isfinite(rw_[pr.job]) ? rw_[pr.job] : std::numeric_limits<double>::max();
        const double score = pr.alignment - eps * rw;
        if (best == nullptr || score > best_score + 1e-12 ||
            (std::fabs(score - best_score) <= 1e-12 && earlier(jobs, pr, *best))) {
          best = &pr;
          best_score = score;
        }
      }
      const int i = best->job;
      const Job& job = *jobs[i].job;
      const int g = request(jobs[i]);
      Placement& p = out[i];
      p.clear();
      if (best->server >= 0) {
        p.push_back({best->server, g});
      } else {
        offer_.resize(ns);
        for (size_t s = 0; s < ns; ++s) offer_[s] = tasks_fitting(free_[s], job);
        FreeGpus pool(offer_);
        pool.place(g, placement_, p);
      }
      for (const Slice& sl : p) {
        free_[sl.server].gpus -= sl.gpus;
        free_[sl.server].cpus -= sl.gpus * job.cpus_per_gpu;
        free_[sl.server].mem -= sl.gpus * job.mem_gb_per_gpu;
      }
      placed_[i] = 1;
    }
  }

 private:
  struct Pair {
    int job;
    int server;  // -1: across servers
    double alignment;
  };

  static int request(const JobView& v) { return std::max(1, v.job->num_gpus); }

  bool fits(const Res& f, int g, const Job& job) const {
    return g <= f.gpus + kSlack && g * job.cpus_per_gpu <= f.cpus + kSlack && g * job.mem_gb_per_gpu <= f.mem + kSlack;
  }

  static int tasks_fitting(const Res& f, const Job& job) {
    double t = std::floor(f.gpus + kSlack);
    if (job.cpus_per_gpu > 0) t = std::min(t, std::floor(f.cpus / job.cpus_per_gpu + kSlack));
    if (job.mem_gb_per_gpu > 0) t = std::min(t, std::floor(f.mem / job.mem_gb_per_gpu + kSlack));
    return t > 0 ? static_cast<int>(t) : 0;
  }

  // Alignment of `gpus` GPU-tasks of `job` with server s's free vector (before placing them).
  double alignment(size_t s, int gpus, const Job& job) const {
    const Res& c = cap_[s];
    const Res& f = free_[s];
    double a = 0;
    if (c.gpus > 0) a += (gpus / c.gpus) * (f.gpus / c.gpus);
    if (c.cpus > 0) a += (gpus * job.cpus_per_gpu / c.cpus) * (f.cpus / c.cpus);
    if (c.mem > 0) a += (gpus * job.mem_gb_per_gpu / c.mem) * (f.mem / c.mem);
    return a;
  }

  static bool earlier(std::span<const JobView> jobs, const Pair& a, const Pair& b) {
    const Job& ja = *jobs[a.job].job;
    const Job& jb = *jobs[b.job].job;
    if (ja.arrival_s != jb.arrival_s) return ja.arrival_s < jb.arrival_s;
    if (ja.id != jb.id) return ja.id < jb.id;
    return a.server < b.server;
  }

  PlacementKind placement_;
  double fairness_;
  double epsilon_scale_;
  std::vector<Res> cap_, free_;
  std::vector<int> waiting_;
  std::vector<int> candidates_;
  std::vector<double> rw_;
  std::vector<char> placed_;
  std::vector<Pair> pairs_;
  std::vector<int> offer_;
};

}  // namespace

PolicyEntry tetris_entry() {
  return {
      "tetris",
      "multi-resource packing: alignment + remaining-work term + fairness knob (SIGCOMM'14)",
      [](const PolicyOptions& options, const Knobs& knobs) -> std::unique_ptr<Policy> {
        return std::make_unique<TetrisPolicy>(options, knobs);
      },
      {knob_double("tetris.fairness", 0.25, "f: only the ceil((1-f) n) jobs furthest below their fair share compete")
           .range(0, 1, false, true),
       knob_double("tetris.epsilon", 1.0, "scale of the remaining-work term against packing").at_least(0),
       knob_double("tetris.srtf_weight", 1.0, "PS jobs: weight of the remaining-work term")},
      {.ps_jobs = true, .make_ps = make_ps_tetris, .ps_variant = "policies/ps/ps_tetris.cpp"}};
}

}  // namespace dmlkit::cluster
