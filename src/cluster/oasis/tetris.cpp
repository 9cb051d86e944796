// tetris on the OASiS model: Tetris (Grandl et al., SIGCOMM 2014; spec 6.2), an extra baseline
// (not in OASiS's own evaluation: second-pass.md 1). Every job is admitted with the user's fixed
// request (spec 5.6). Each slot, one worker at a time: among the jobs below their request, the
// ceil((1 - fairness) * #jobs) with the smallest dominant share are eligible; the one with the
// highest score = alignment + epsilon * srtf gets a worker (placed as every baseline places it,
// slot_engine.h). alignment = dot product of the worker's capacity-normalised demand with the worker
// pool's aggregate free vector [A: one score per job, not per (job, server)]; srtf = -(remaining worker-slots x normalised worker demand); epsilon =
// tetris.epsilon x mean alignment / mean remaining work.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "cluster/oasis/methods.h"
#include "cluster/oasis/slot_engine.h"

namespace dmlkit::cluster::oasis {

namespace {

class Tetris final : public SlotScheduler, public OasisMethod {
 public:
  explicit Tetris(const Knobs& k) : fairness_(k.get_double("tetris.fairness")), epsilon_(k.get_double("tetris.epsilon")) {}
  OasisRun run(const OasisProblem& p) override {
    cap_ = total_capacity(*p.cluster);
    pool_cap_ = p.cluster->pool_capacity(false);
    return run_slotted(p, *this);
  }
  void allocate(int t, std::span<const ActiveJob> active, bool, bool, SlotLedger& ledger,
                std::span<SlotAllocation> alloc) override {
    const size_t n = active.size();
    const OasisCluster& c = ledger.cluster();
    std::vector<char> open(n, 1);
    std::vector<double> share(n, 0.0);
    for (;;) {
      // Free vector of the worker pool, normalised.
      ResourceVec free_n{};
      for (int h = 0; h < c.num_servers(); ++h)
        if (c.hosts(h, false))
          for (int r = 0; r < kNumResources; ++r) free_n[r] += ledger.free(t, h, r);
      for (int r = 0; r < kNumResources; ++r) free_n[r] = pool_cap_[r] > 0 ? free_n[r] / pool_cap_[r] : 0;
      std::vector<size_t> cand;
      for (size_t i = 0; i < n; ++i) {
        if (open[i] && alloc[i].workers() >= active[i].request()) open[i] = 0;
        if (open[i]) cand.push_back(i);
      }
      if (cand.empty()) break;
      std::stable_sort(cand.begin(), cand.end(), [&](size_t a, size_t b) { return share[a] < share[b]; });
      cand.resize(static_cast<size_t>(std::ceil((1 - fairness_) * static_cast<double>(cand.size()))));
      if (cand.empty()) break;
      std::vector<double> align(cand.size()), rw(cand.size());
      double sum_a = 0, sum_rw = 0;
      for (size_t k = 0; k < cand.size(); ++k) {
        const OasisJob& j = *active[cand[k]].job;
        double a = 0, d = 0;
        for (int r = 0; r < kNumResources; ++r)
          if (pool_cap_[r] > 0) {
            const double dn = j.worker_demand[r] * c.num_servers() / pool_cap_[r];  // per-server normalised
            a += dn * free_n[r];
            d += dn;
          }
        align[k] = a;
        rw[k] = static_cast<double>(active[cand[k]].remaining()) * d;
        sum_a += a;
        sum_rw += rw[k];
      }
      const double eps = sum_rw > 0 ? epsilon_ * sum_a / sum_rw : 0;
      size_t best = 0;
      for (size_t k = 1; k < cand.size(); ++k)
        if (align[k] - eps * rw[k] > align[best] - eps * rw[best]) best = k;
      const size_t i = cand[best];
      if (place_workers(*active[i].job, t, 1, ledger, alloc[i]) == 0) {
        open[i] = 0;
        continue;
      }
      share[i] = dominant_share(*active[i].job, alloc[i], cap_);
    }
  }

 private:
  double fairness_, epsilon_;
  ResourceVec cap_{}, pool_cap_{};
};

std::unique_ptr<OasisMethod> make(const OasisMethodOptions&, const Knobs& k) { return std::make_unique<Tetris>(k); }

}  // namespace

OasisMethodEntry tetris_entry() {
  return {"tetris",
          "Tetris (SIGCOMM'14): packing alignment + shortest remaining work, fairness knob; extra baseline",
          make,
          {knob_double("tetris.fairness", 0.25, "share of the jobs furthest above fair share left out").range(0, 1, false, true),
           knob_double("tetris.epsilon", 1, "weight of the remaining-work term").at_least(0)}};
}

}  // namespace dmlkit::cluster::oasis
