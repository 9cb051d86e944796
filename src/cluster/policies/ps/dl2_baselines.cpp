// The DL2-simulator versions of DRF, FIFO, SRTF, Tetris and Optimus (Peng et al., "DL2: A Deep
// Learning-driven Scheduler for Deep Learning Clusters", IEEE TPDS 2021; the heuristics of the
// authors' simulator, github.com/pengyanghua/DL2, used as DL2's baselines and SL teachers;
// specs/cluster-schedulers.md 6.7; docs/dl2.md maps every rule to the authors' file and function).
//
// Common: every slot the allocation is rebuilt from zero; the unit is a bundle of 1 worker + 1 PS
// placed together on the least-loaded server (smallest sum of used/capacity over the resources,
// ties lowest id -- DL2's min-heap on the number of used slots of its 8+8-slot servers); the
// bundle is tried on that server only, and when it does not fit there the slot's scheduling stops
// (DL2 pops the least-loaded node and gives up on a failed allocation, no backfilling); a job gets
// at most 16 bundles (16 workers, 16 PSs). Re-allocation is free: the policies tell the simulator
// not to charge its restart delay (DL2's simulator has none).
//   drf-dl2:    heap on (dominant share, arrival), every unfinished job at share 0; pop, one bundle,
//               recompute the share, push back while below 16.
//   fifo-dl2:   arrival order, up to 16 bundles per job.
//   srtf-dl2:   as fifo-dl2, ordered by remaining fraction 1 - progress/E (true E), then arrival.
//   tetris-dl2: servers in id order; on the current server, the job (below 16 bundles) with the
//               largest align + weight x rem gets a bundle, align = sum_r free[r]/C[r] x
//               (O+N)[r]/C[r], rem = sum_r (O+N)[r]/C[r] x (1 - progress/E), weight =
//               mean(align)/mean(rem) (0: next server); a failed allocation moves to the next
//               server. DL2's formula favours MORE remaining work (kept for fidelity).
//   fixed-dl2:  not in DL2's paper or code ([A] ours, docs/reproduction-dl2.md): a static rule,
//               every job fixed.workers workers and fixed.ps PSs (default 1 and 16, the allocation
//               the trained dl2 models approach on dl2-500): first one bundle per job in arrival
//               order (a job whose bundle does not fit gets nothing, as the dl2 policy's initial
//               bundles, Dl2Slot::begin), then rounds over the jobs in arrival order, each adding
//               one PS then one worker while below its target, a single task on the least-loaded
//               server; a task that does not fit there ends the slot (as dl2 and optimus-dl2).
//               fixed.rule=best-speed: per job type the targets are instead the (PSs, workers) in
//               1..16 of the highest true speed (an oracle, as optimus-dl2's true speed).
//   optimus-dl2: gain = R/e(p,w) - R/e(p,w+1) or ... (p+1,w), with e the true epochs per slot
//               (speed x slot / epoch size, unguarded division as DL2) and R the true remaining
//               epochs (PS wins ties), +inf for a missing worker, then a missing PS; heap on gain;
//               pop; stop when gain <= 0; a role at 16 skips the entry; the single task goes to
//               the least-loaded server; a failure stops the slot.
// Knobs (shared by the six): dl2.placement=fitting takes the least-loaded server where the
// bundle fits instead (dmlkit's earlier reading); dl2.restart_cost=1 charges the simulator's
// restart delay when a slot's rebuild moves a job.
// Assumptions [A]: DL2's slot units are expressed through the servers' capacities (a DL2 cluster
// file gives 8 CPU "slots" and 2 GPUs of 4 GPU slots each), which keeps every ranking identical;
// ties DL2 leaves to Python's object comparison go to the earlier arrival; on a heterogeneous
// cluster the least-loaded server is taken among those that could hold the task when empty (a
// CPU-only server is never the target of a GPU worker; DL2's servers are all alike, where this
// is DL2's rule, and without it a job could starve forever).
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <queue>

#include "cluster/policies/factories.h"
#include "cluster/policies/ps/dl2_steps.h"
#include "cluster/policies/ps/ps_pool.h"
#include "core/error.h"

namespace dmlkit::cluster {

namespace {

constexpr int kMaxBundles = 16;

struct Dl2Options {
  bool fitting = false;       // dl2.placement=fitting: least-loaded server where the task fits
  bool restart_cost = false;  // dl2.restart_cost: the simulator charges its restart delay
};

Dl2Options dl2_options(const Knobs& k) {
  return {.fitting = k.get_string("dl2.placement") == "fitting", .restart_cost = k.get_bool("dl2.restart_cost")};
}

std::vector<KnobSpec> dl2_knobs() {
  return {knob_enum("dl2.placement", "least-loaded", {"least-loaded", "fitting"},
                    "least-loaded: try the least-loaded server only, stop if it is full (DL2); fitting: the "
                    "least-loaded server where the task fits"),
          knob_bool("dl2.restart_cost", false,
                    "charge the simulator's restart delay when a slot's rebuild moves a job (DL2: free)")};
}

class Dl2Base : public Policy, public Dl2Teacher {
 public:
  explicit Dl2Base(Dl2Options o) : opt_(o) {}
  bool handles_ps_jobs() const override { return true; }
  void observe_steps(Dl2StepObserver* observer) override { observer_ = observer; }
  bool charges_restarts() const override { return opt_.restart_cost; }

 protected:
  void begin(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) {
    slot_s_ = std::isfinite(view.round_s) && view.round_s > 0 ? view.round_s : 1.0;
    if (!pool_) pool_ = std::make_unique<PsPool>(*view.cluster);
    pool_->reset();
    ps_.assign(jobs.size(), 0);
    wk_.assign(jobs.size(), 0);
    for (auto& p : out) p.clear();
    for (const JobView& v : jobs)
      if (ps_monitor(v) == nullptr)
        throw Error("the DL2 baselines schedule parameter-server jobs only ('" + v.job->name + "' is not one)");
  }
  // The server a task (or bundle) of demand a (+ b) goes to: the least-loaded one that could hold
  // it when empty, or with dl2.placement=fitting the least-loaded one where it fits now; -1 if it
  // does not fit there.
  int target(const TaskDemand& a, const TaskDemand& b = {}, int nb = 0) const {
    const int s = opt_.fitting ? pool_->least_loaded_fitting(a, 1, b, nb) : pool_->least_loaded(a, 1, b, nb);
    return s >= 0 && pool_->fits(s, a, 1, b, nb) ? s : -1;
  }
  bool bundle(const PsJobSpec& job, size_t i, Placement& out, int server = -1) {
    const int s =
        server >= 0 ? (pool_->fits(server, job.ps, 1, job.worker, 1) ? server : -1) : target(job.ps, job.worker, 1);
    if (s < 0) return false;
    if (observer_ != nullptr) observer_->on_step(i, 1, 1);
    pool_->add(s, job.ps, 1);
    pool_->add(s, job.worker, 1);
    add_tasks(out, job, s, 1, 1);
    ++ps_[i];
    ++wk_[i];
    return true;
  }
  // One PS (is_ps) or worker of job i on target(d); false (nothing changed) if it does not fit there.
  bool single(const PsJobSpec& job, size_t i, bool is_ps, Placement& out) {
    const TaskDemand& d = is_ps ? job.ps : job.worker;
    const int s = target(d);
    if (s < 0) return false;
    if (observer_ != nullptr) observer_->on_step(i, is_ps ? 0 : 1, is_ps ? 1 : 0);
    pool_->add(s, d, 1);
    add_tasks(out, job, s, is_ps ? 0 : 1, is_ps ? 1 : 0);
    ++(is_ps ? ps_[i] : wk_[i]);
    return true;
  }
  static double remaining_fraction(const JobView& v) {
    const PsJobMonitor* m = ps_monitor(v);
    return 1.0 - m->epochs_done() / m->true_total_epochs();
  }

  Dl2Options opt_;
  double slot_s_ = 1.0;  // the scheduling round (DL2's TS_DURATION)
  std::unique_ptr<PsPool> pool_;
  std::vector<int> ps_, wk_;
  Dl2StepObserver* observer_ = nullptr;
};

class DrfDl2 final : public Dl2Base {
 public:
  using Dl2Base::Dl2Base;
  void schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) override {
    begin(view, jobs, out);
    using Entry = std::pair<double, size_t>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
    for (size_t i = 0; i < jobs.size(); ++i) heap.emplace(0.0, i);
    while (!heap.empty()) {
      const size_t i = heap.top().second;
      heap.pop();
      const PsJobSpec& job = *jobs[i].job->ps;
      if (!bundle(job, i, out[i])) break;
      if (wk_[i] < kMaxBundles && ps_[i] < kMaxBundles) heap.emplace(dominant_share(*pool_, job, ps_[i], wk_[i]), i);
    }
  }
};

class OrderedDl2 final : public Dl2Base {
 public:
  OrderedDl2(Dl2Options o, bool srtf) : Dl2Base(o), srtf_(srtf) {}
  void schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) override {
    begin(view, jobs, out);
    order_.resize(jobs.size());
    std::iota(order_.begin(), order_.end(), 0);
    if (srtf_) {
      key_.resize(jobs.size());
      for (size_t i = 0; i < jobs.size(); ++i) key_[i] = remaining_fraction(jobs[i]);
      std::stable_sort(order_.begin(), order_.end(), [&](size_t a, size_t b) { return key_[a] < key_[b]; });
    }
    for (size_t i : order_)
      for (int k = 0; k < kMaxBundles; ++k)
        if (!bundle(*jobs[i].job->ps, i, out[i])) return;
  }

 private:
  bool srtf_;
  std::vector<size_t> order_;
  std::vector<double> key_;
};

class TetrisDl2 final : public Dl2Base {
 public:
  using Dl2Base::Dl2Base;
  void schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) override {
    begin(view, jobs, out);
    const size_t n = jobs.size();
    if (n == 0) return;
    align_.resize(n);
    rem_.resize(n);
    for (int s = 0; s < pool_->num_servers();) {
      double align_sum = 0, rem_sum = 0;
      for (size_t i = 0; i < n; ++i) {
        const PsJobSpec& job = *jobs[i].job->ps;
        double o[kResources], p[kResources];
        demand_vector(job.worker, o);
        demand_vector(job.ps, p);
        double size = 0, a = 0;
        for (int r = 0; r < kResources; ++r) {
          const double c = pool_->cap(s, r);
          if (c <= 0) continue;
          size += (o[r] + p[r]) / c;
          a += pool_->free(s, r) / c * (o[r] + p[r]) / c;
        }
        rem_[i] = size * remaining_fraction(jobs[i]);
        align_[i] = a;
        align_sum += a;
        rem_sum += rem_[i];
      }
      const double weight = rem_sum > 0 ? align_sum / rem_sum : 0.0;
      if (weight == 0) {
        ++s;
        continue;
      }
      size_t best = n;
      double best_score = -std::numeric_limits<double>::infinity();
      for (size_t i = 0; i < n; ++i) {
        if (wk_[i] >= kMaxBundles) continue;
        const double score = align_[i] + weight * rem_[i];
        if (score > best_score) {
          best_score = score;
          best = i;
        }
      }
      if (best == n) break;
      if (!bundle(*jobs[best].job->ps, best, out[best], s)) ++s;
    }
  }

 private:
  std::vector<double> align_, rem_;
};

class FixedDl2 final : public Dl2Base {
 public:
  FixedDl2(Dl2Options o, int workers, int ps, bool best_speed)
      : Dl2Base(o), workers_(workers), ps_target_(ps), best_speed_(best_speed) {}
  void schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) override {
    begin(view, jobs, out);
    target_.resize(jobs.size());
    for (size_t i = 0; i < jobs.size(); ++i) target_[i] = targets(jobs[i]);
    for (size_t i = 0; i < jobs.size(); ++i) bundle(*jobs[i].job->ps, i, out[i]);  // a miss leaves the job out
    for (bool more = true; more;) {
      more = false;
      for (size_t i = 0; i < jobs.size(); ++i) {
        if (wk_[i] == 0) continue;  // its bundle did not fit
        if (ps_[i] < target_[i].first) {
          if (!single(*jobs[i].job->ps, i, true, out[i])) return;
          more = true;
        }
        if (wk_[i] < target_[i].second) {
          if (!single(*jobs[i].job->ps, i, false, out[i])) return;
          more = true;
        }
      }
    }
  }

 private:
  // (PSs, workers) for a job: the knobs', or with fixed.rule=best-speed the pair within 1..16 with
  // the highest true speed (ties: the first in PS-major order), kept per job type.
  std::pair<int, int> targets(const JobView& v) {
    if (!best_speed_) return {ps_target_, workers_};
    const PsJobMonitor& m = *ps_monitor(v);
    const int type = m.spec().type;
    if (auto it = best_.find(type); it != best_.end()) return it->second;
    std::pair<int, int> best{1, 1};
    double best_speed = -1;
    for (int p = 1; p <= kMaxBundles; ++p)
      for (int w = 1; w <= kMaxBundles; ++w)
        if (const double speed = m.true_speed(p, w); speed > best_speed) {
          best_speed = speed;
          best = {p, w};
        }
    return best_[type] = best;
  }

  int workers_, ps_target_;
  bool best_speed_;
  std::vector<std::pair<int, int>> target_;
  std::map<int, std::pair<int, int>> best_;  // per job type (best-speed)
};

class OptimusDl2 final : public Dl2Base {
 public:
  using Dl2Base::Dl2Base;
  void schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) override {
    begin(view, jobs, out);
    std::priority_queue<Entry> heap;
    for (size_t i = 0; i < jobs.size(); ++i) heap.push(util(jobs[i], i));
    while (!heap.empty()) {
      const Entry e = heap.top();
      heap.pop();
      if (!(e.util > 0)) break;
      const size_t i = e.job;
      if ((e.is_ps ? ps_[i] : wk_[i]) >= kMaxBundles) continue;
      if (!single(*jobs[i].job->ps, i, e.is_ps, out[i])) break;
      heap.push(util(jobs[i], i));
    }
  }

 private:
  struct Entry {
    double util;
    size_t job;
    bool is_ps;
    bool operator<(const Entry& o) const {
      if (util != o.util) return util < o.util;
      return job > o.job;  // earlier arrival first
    }
  };
  Entry util(const JobView& v, size_t i) const {
    constexpr double kInf = std::numeric_limits<double>::infinity();
    if (wk_[i] == 0) return {kInf, i, false};
    if (ps_[i] == 0) return {kInf, i, true};
    const PsJobMonitor& m = *ps_monitor(v);
    const double r = m.true_total_epochs() - m.epochs_done();
    // Remaining slots at (p, w): DL2's epochs per slot, speed x slot / epoch size (the gains of
    // jobs of different types are compared in the same unit). No guard: a zero speed gives an
    // infinite time, as DL2's division does.
    const double epoch_size = m.spec().job_type().epoch_size;
    auto t = [&](int p, int w) { return r / (m.true_speed(p, w) * slot_s_ / epoch_size); };
    const double t0 = t(ps_[i], wk_[i]);
    // inf - inf (zero speed here and there) is no gain [A]: NaN would break the heap's order.
    auto no_nan = [](double g) { return std::isnan(g) ? -kInf : g; };
    const double g_w = no_nan(t0 - t(ps_[i], wk_[i] + 1));
    const double g_p = no_nan(t0 - t(ps_[i] + 1, wk_[i]));
    return g_p >= g_w ? Entry{g_p, i, true} : Entry{g_w, i, false};
  }
};

}  // namespace

namespace {
PolicyTraits ps_only() { return {.gpu_jobs = false, .ps_jobs = true, .make_ps = nullptr, .ps_variant = ""}; }
}  // namespace

PolicyEntry drf_dl2_entry() {
  return {"drf-dl2", "DL2 simulator's DRF on PS jobs: bundles by lowest dominant share, rebuilt each slot (TPDS'21)",
          [](const PolicyOptions&, const Knobs& k) -> std::unique_ptr<Policy> {
            return std::make_unique<DrfDl2>(dl2_options(k));
          },
          dl2_knobs(), ps_only()};
}

PolicyEntry fifo_dl2_entry() {
  return {"fifo-dl2", "DL2 simulator's FIFO on PS jobs: up to 16 bundles per job in arrival order, rebuilt each slot",
          [](const PolicyOptions&, const Knobs& k) -> std::unique_ptr<Policy> {
            return std::make_unique<OrderedDl2>(dl2_options(k), false);
          },
          dl2_knobs(), ps_only()};
}

PolicyEntry srtf_dl2_entry() {
  return {"srtf-dl2", "DL2 simulator's SRTF on PS jobs: FIFO order by remaining fraction of epochs",
          [](const PolicyOptions&, const Knobs& k) -> std::unique_ptr<Policy> {
            return std::make_unique<OrderedDl2>(dl2_options(k), true);
          },
          dl2_knobs(), ps_only()};
}

PolicyEntry tetris_dl2_entry() {
  return {"tetris-dl2", "DL2 simulator's Tetris on PS jobs: per-server alignment + remaining-work score, bundles",
          [](const PolicyOptions&, const Knobs& k) -> std::unique_ptr<Policy> {
            return std::make_unique<TetrisDl2>(dl2_options(k));
          },
          dl2_knobs(), ps_only()};
}

PolicyEntry fixed_dl2_entry() {
  std::vector<KnobSpec> knobs = dl2_knobs();
  knobs.push_back(knob_int("fixed.workers", 1, "workers every job gets").range(1, kMaxBundles));
  knobs.push_back(knob_int("fixed.ps", 16, "PSs every job gets").range(1, kMaxBundles));
  knobs.push_back(knob_enum("fixed.rule", "constant", {"constant", "best-speed"},
                            "constant: fixed.workers and fixed.ps for every job; best-speed: per job type the "
                            "(PSs, workers) within 1..16 of the highest true speed (an oracle rule)"));
  return {"fixed-dl2",
          "[A] a static rule on PS jobs: every job fixed.workers workers + fixed.ps PSs (1 + 16: what the trained "
          "dl2 models approach), rebuilt each slot",
          [](const PolicyOptions&, const Knobs& k) -> std::unique_ptr<Policy> {
            return std::make_unique<FixedDl2>(dl2_options(k), static_cast<int>(k.get_int("fixed.workers")),
                                              static_cast<int>(k.get_int("fixed.ps")),
                                              k.get_string("fixed.rule") == "best-speed");
          },
          std::move(knobs), ps_only()};
}

PolicyEntry optimus_dl2_entry() {
  return {"optimus-dl2", "DL2 simulator's oracle Optimus on PS jobs: marginal gain with the true speed, single tasks",
          [](const PolicyOptions&, const Knobs& k) -> std::unique_ptr<Policy> {
            return std::make_unique<OptimusDl2>(dl2_options(k));
          },
          dl2_knobs(), ps_only()};
}

}  // namespace dmlkit::cluster
