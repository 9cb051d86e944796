// dorm on the OASiS model: Dorm (Sun, Wen et al., 2017, "dynamically partitioned" PS-ML clusters;
// spec 6.5 [P, details unverified]), a baseline of OASiS's evaluation that re-partitions the
// cluster instead of using the user's request. At each arrival or departure it computes every
// job's target worker count in [1, N_i] by progressive filling (smallest dominant share first,
// until nothing fits: high utilisation with dominant shares kept close -- our greedy stand-in for
// Dorm's utilisation-plus-fairness program [A]); a running job is re-sized only if it is among the
// dorm.max_adjust running jobs whose target differs most from their current size (re-sizing costs a
// checkpoint/restart, hence the cap; we charge no time for it [A]). New jobs always get their
// target. Between events sizes stay; each slot they are placed again (partial if they no longer
// fit). Every job is admitted.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <numeric>

#include "cluster/oasis/methods.h"
#include "cluster/oasis/slot_engine.h"

namespace dmlkit::cluster::oasis {

namespace {

class Dorm final : public SlotScheduler, public OasisMethod {
 public:
  explicit Dorm(const Knobs& k) : max_adjust_(static_cast<int>(k.get_int("dorm.max_adjust"))) {}
  OasisRun run(const OasisProblem& p) override {
    cap_ = total_capacity(*p.cluster);
    size_.clear();
    return run_slotted(p, *this);
  }
  void allocate(int t, std::span<const ActiveJob> active, bool arrived, bool departed, SlotLedger& ledger,
                std::span<SlotAllocation> alloc) override {
    const size_t n = active.size();
    auto limit = [&](size_t i) { return static_cast<int>(std::min<long>(active[i].job->max_workers, active[i].remaining())); };
    if (arrived || departed) {
      // Targets by progressive filling on this slot (placed, then released).
      std::vector<int> target(n, 0);
      progressive_fill(t, active, limit, cap_, ledger, alloc);
      for (size_t i = 0; i < n; ++i) {
        target[i] = alloc[i].workers();
        release(*active[i].job, ledger, alloc[i]);
      }
      // Re-size at most max_adjust running jobs (largest change first, ties: earlier arrival).
      std::vector<size_t> changed;
      for (size_t i = 0; i < n; ++i) {
        auto it = size_.find(active[i].index);
        if (it == size_.end() || it->second == 0) {
          size_[active[i].index] = target[i];
        } else if (it->second != target[i]) {
          changed.push_back(i);
        }
      }
      std::stable_sort(changed.begin(), changed.end(), [&](size_t a, size_t b) {
        return std::abs(target[a] - size_[active[a].index]) > std::abs(target[b] - size_[active[b].index]);
      });
      for (size_t c = 0; c < changed.size() && static_cast<int>(c) < max_adjust_; ++c)
        size_[active[changed[c]].index] = target[changed[c]];
    }
    // Place the sizes: unchanged running jobs keep their place in arrival order.
    for (size_t i = 0; i < n; ++i) {
      const int want = std::min(size_[active[i].index], limit(i));
      place_workers(*active[i].job, t, want, ledger, alloc[i]);
    }
  }

 private:
  int max_adjust_;
  ResourceVec cap_{};
  std::map<int, int> size_;  // job index -> worker count
};

std::unique_ptr<OasisMethod> make(const OasisMethodOptions&, const Knobs& k) { return std::make_unique<Dorm>(k); }

}  // namespace

OasisMethodEntry dorm_entry() {
  return {"dorm",
          "Dorm (2017): re-partitions workers at arrivals/departures, fair and packed, few re-sizes per event",
          make,
          {knob_int("dorm.max_adjust", 2, "running jobs re-sized per event (K_adj) [A]").range(0, 1000000)}};
}

}  // namespace dmlkit::cluster::oasis
