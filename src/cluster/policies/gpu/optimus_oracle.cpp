// optimus-oracle: the simplified Optimus of the Pollux study (Qiao et al., "Pollux:
// Co-adaptive Cluster Scheduling for Goodput-Optimized Deep Learning", OSDI 2021, baseline
// "Optimus+Oracle+TunedJobs"), itself after Peng et al., "Optimus: An Efficient Dynamic Resource
// Scheduler for Deep Learning Clusters", EuroSys 2018 (marginal-gain allocation). Semantics:
// specs/pollux-reference-semantics.md. The faithful Optimus (PS/worker model, online fitting) is a
// separate policy.
//
// Algorithm, at every decision (jobs in arrival order):
//   1. Each job gets one GPU, in order, while GPUs remain (later jobs get none).
//   2. The remaining GPUs go one at a time to the job with the largest marginal gain
//      (T(n) - T(n+1)) x remaining_iterations, where T(n) is the oracle's true step time on n GPUs
//      packed on as few servers as possible and remaining_iterations the oracle's count; a job never
//      exceeds the oracle's max_gpus(). Ties go to the earliest job; the walk stops when no gain is
//      positive or no GPU is left.
//   3. A job whose GPU count is unchanged keeps its placement. The others are placed in increasing
//      order of GPU count (ties: arrival order) on the free GPUs, with "most-free" under the
//      pollux profile (repeatedly all free GPUs of the server with the most free GPUs, ties to the
//      lowest index, as the reference) and PolicyOptions::placement otherwise.
// Assumptions [A]: for jobs whose oracle reports no iteration count (trace replay), T(n) is
// already the remaining time with n GPUs, so the gain is T(n) - T(n+1) (multiplier 1). The policy is
// clairvoyant by design: it reads the oracle, which a real scheduler would estimate online.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "cluster/policies/factories.h"
#include "core/error.h"

namespace dmlkit::cluster {

namespace {

class OptimusOraclePolicy final : public Policy {
 public:
  OptimusOraclePolicy(const PolicyOptions& options, const Knobs& knobs)
      : placement_(options.profile == "pollux" ? PlacementKind::MostFree : options.placement) {
    if (knobs.given("optimus.placement")) placement_ = parse_placement_kind(knobs.get_string("optimus.placement"));
  }

  void schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) override {
    const size_t n = jobs.size();
    replicas_.assign(n, 0);
    gain_.assign(n, 0.0);
    t_next_.assign(n, 0.0);
    weight_.assign(n, 0.0);
    max_.assign(n, 0);
    int left = 0;
    for (const auto& s : view.cluster->servers) left += std::max(0, s.gpus);

    heap_.clear();
    for (size_t i = 0; i < n; ++i) {
      if (left < 1) break;
      const JobOracle* oracle = jobs[i].oracle;
      if (oracle == nullptr) throw Error("optimus-oracle: job '" + jobs[i].job->name + "' has no oracle");
      replicas_[i] = 1;
      --left;
      max_[i] = oracle->max_gpus();
      const double remaining = oracle->remaining_iterations();
      weight_[i] = remaining > 0 ? remaining : 1.0;
      if (replicas_[i] + 1 <= max_[i] && left >= 1) {
        const double t1 = oracle->step_time_s(1);
        t_next_[i] = oracle->step_time_s(2);
        gain_[i] = (t1 - t_next_[i]) * weight_[i];
      }
      if (gain_[i] > 0) push(static_cast<int>(i));
    }
    // Greedy marginal gain: a max-heap on (gain, earliest job); only the chosen job's gain changes.
    while (left > 0 && !heap_.empty()) {
      std::pop_heap(heap_.begin(), heap_.end(), Before{&gain_});
      const int i = heap_.back();
      heap_.pop_back();
      ++replicas_[i];
      --left;
      gain_[i] = 0;
      if (replicas_[i] + 1 <= max_[i]) {
        const double t_now = t_next_[i];
        t_next_[i] = jobs[i].oracle->step_time_s(replicas_[i] + 1);
        gain_[i] = (t_now - t_next_[i]) * weight_[i];
      }
      if (gain_[i] > 0) push(i);
    }

    // Placement: keep unchanged counts, place the rest smallest first.
    free_.resize(view.cluster->servers.size());
    for (size_t s = 0; s < free_.size(); ++s) free_[s] = view.cluster->servers[s].gpus;
    FreeGpus pool(free_);
    for (size_t i = 0; i < n; ++i) {
      if (replicas_[i] > 0 && jobs[i].running() && jobs[i].gpus() == replicas_[i]) {
        out[i] = jobs[i].placement;
        pool.take(out[i]);
      } else {
        out[i].clear();
      }
    }
    order_.resize(n);
    std::iota(order_.begin(), order_.end(), 0);
    std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) { return replicas_[a] < replicas_[b]; });
    for (int i : order_) {
      if (replicas_[i] > 0 && out[i].empty() && !pool.place(replicas_[i], placement_, out[i])) out[i].clear();
    }
  }

 private:
  // Heap order: larger gain first, then the earlier job (the reference's first maximum).
  struct Before {
    const std::vector<double>* gain;
    bool operator()(int a, int b) const {
      if ((*gain)[a] != (*gain)[b]) return (*gain)[a] < (*gain)[b];
      return a > b;
    }
  };
  void push(int i) {
    heap_.push_back(i);
    std::push_heap(heap_.begin(), heap_.end(), Before{&gain_});
  }

  PlacementKind placement_;
  std::vector<int> replicas_;
  std::vector<double> gain_;
  std::vector<double> t_next_;
  std::vector<double> weight_;
  std::vector<int> max_;
  std::vector<int> heap_;
  std::vector<int> free_;
  std::vector<int> order_;
};

}  // namespace

PolicyEntry optimus_oracle_entry() {
  return {"optimus-oracle",
          "Pollux study's Optimus+Oracle: greedy marginal gain over GPUs with true step times (OSDI'21)",
          [](const PolicyOptions& options, const Knobs& knobs) -> std::unique_ptr<Policy> {
            return std::make_unique<OptimusOraclePolicy>(options, knobs);
          },
          {knob_enum("optimus.placement", "", {"consolidate", "spread", "first-fit", "most-free"},
                     "placement of resized jobs")
               .shown("--placement (pollux profile: most-free)")}};
}

}  // namespace dmlkit::cluster
