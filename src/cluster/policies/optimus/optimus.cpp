// optimus: Peng, Bao, Chen, Wu, Guo, "Optimus: An Efficient Dynamic Resource Scheduler for Deep
// Learning Clusters", EuroSys 2018 -- the faithful version for parameter-server jobs
// (specs/cluster-schedulers.md section 2; docs/optimus.md).
//
// Every interval (the simulator's round; 600 s in the prototype):
//   1. New jobs: copy the speed samples of earlier jobs of the same model; while a job has fewer
//      than optimus.samples (8) distinct samples, measure it at p = w = U{1..10} (skipping measured
//      pairs; optimus.probe=random draws p and w independently instead [A]); each probe costs the
//      job optimus.sample_cost_s (180 s, the prototype's ~3 minutes) of run time.
//   2. Running jobs contribute their measured speed at their current (p, w) as a free sample.
//   3. Speed model per job (speed_fit.h): NNLS fit of the sync/async formula.
//   4. Convergence model per job (convergence_fit.h): fit of the validation losses, remaining
//      epochs = converged evaluation x eval period - epochs done (at least one period); fallbacks:
//      the mean final epochs of finished jobs of the same model, else 20 evaluation periods.
//   5. Allocation (allocation.h) and placement (placement.h).
//   6. Stragglers (optimus.stragglers=1): in a running synchronous job, a worker whose measured
//      pace is below optimus.straggler_threshold (0.8) x the median of the job's workers is
//      replaced: the job's placement this interval avoids that worker's server [A: one interval
//      of measurements stands for the paper's repeated ones].
//   7. PS load balancing: the parameter assignment algorithm (optimus.assignment=paa; mxnet and
//      round-robin for ablation); the simulator turns it into the PS-imbalance factor of speed.
// Switches: optimus.oracle=1 (true speed and true remaining epochs: no samples, no fitting),
// optimus.oracle_speed / optimus.oracle_epochs (one of the two), optimus.gain_norm=raw|share,
// optimus.stop_on_first_fail=1|0, optimus.max_tasks (16 per kind [A]), optimus.seed.
// Restart cost: the simulator charges its restart delay to every job whose placement changed.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "cluster/policies/factories.h"
#include "cluster/policies/optimus/allocation.h"
#include "cluster/policies/optimus/convergence_fit.h"
#include "cluster/policies/optimus/placement.h"
#include "cluster/policies/optimus/speed_fit.h"
#include "cluster/policies/ps/ps_pool.h"
#include "cluster/speed/ps_assignment.h"
#include "core/error.h"
#include "core/rng.h"

namespace dmlkit::cluster {

namespace {

class OptimusPolicy final : public Policy {
 public:
  OptimusPolicy(const PolicyOptions& o, const Knobs& k)
      : rng_(static_cast<uint64_t>(k.get_int("optimus.seed", static_cast<long long>(o.seed)))),
        assignment_(k.get_string("optimus.assignment")) {
    const bool oracle = k.get_bool("optimus.oracle");
    oracle_speed_ = k.get_bool("optimus.oracle_speed", oracle);
    oracle_epochs_ = k.get_bool("optimus.oracle_epochs", oracle);
    alloc_.gain_share = k.get_string("optimus.gain_norm") == "share";
    alloc_.stop_on_first_fail = k.get_bool("optimus.stop_on_first_fail");
    samples_ = static_cast<int>(k.get_int("optimus.samples"));
    sample_cost_s_ = k.get_double("optimus.sample_cost_s");
    probe_ = k.get_string("optimus.probe");
    max_tasks_ = static_cast<int>(k.get_int("optimus.max_tasks"));
    stragglers_ = k.get_bool("optimus.stragglers");
    straggler_threshold_ = k.get_double("optimus.straggler_threshold");
    fallback_evals_ = k.get_double("optimus.fallback_evals");
  }

  const char* ps_assignment() const override { return assignment_.c_str(); }
  bool handles_ps_jobs() const override { return true; }

  void schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) override {
    if (!pool_) pool_ = std::make_unique<PsPool>(*view.cluster);
    const size_t n = jobs.size();
    note_finished(jobs, view.now_s);
    alloc_jobs_.resize(n);
    specs_.resize(n);
    avoid_.assign(n, {});
    monitors_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const JobView& v = jobs[i];
      monitors_[i] = ps_monitor(v);
      if (monitors_[i] == nullptr) throw Error("optimus: job '" + v.job->name + "' is not a parameter-server job");
      const PsJobMonitor& m = *monitors_[i];
      const PsJobSpec& spec = m.spec();
      specs_[i] = &spec;
      State& s = state(v.job->id, spec);
      if (!oracle_speed_) collect_samples(v, m, s);
      AllocJob& a = alloc_jobs_[i];
      a.worker = spec.worker;
      a.ps = spec.ps;
      a.max_ps = a.max_workers = max_tasks_;
      a.model_ready = oracle_speed_ || s.fit.ready();
      a.remaining = remaining_epochs(m, s);
      s.last_epochs = m.epochs_done();
      s.last_seen_s = view.now_s;
      s.last_rate = v.running() ? m.observed_speed() / spec.job_type().epoch_size : 0.0;
      if (stragglers_ && v.running() && spec.mode == PsTrainingMode::Sync) find_stragglers(v, m, avoid_[i]);
    }
    double cap[kResources];
    for (int r = 0; r < kResources; ++r) cap[r] = pool_->total_cap(r);
    greedy_allocate(
        alloc_jobs_, cap,
        [&](int i, int p, int w) {
          const PsJobMonitor& m = *monitors_[i];
          const double samples = oracle_speed_ ? m.true_speed(p, w) : states_[jobs[i].job->id].fit.predict(p, w);
          return samples / m.spec().job_type().epoch_size;
        },
        alloc_, ps_, wk_);
    pool_->reset();
    placer_.place(*pool_, specs_, ps_, wk_, avoid_, placed_);
    for (size_t i = 0; i < n; ++i) out[i] = std::move(placed_[i]);
  }

 private:
  struct State {
    bool seen = false;
    SpeedFit fit;
    bool dirty = false;
    bool probed = false;
    int losses_fitted = -1;
    int converge_eval = -1;
    double last_epochs = 0, last_seen_s = 0, last_rate = 0;
    int type = 0;
  };

  State& state(int id, const PsJobSpec& spec) {
    if (id >= static_cast<int>(states_.size())) states_.resize(id + 1);
    State& s = states_[id];
    if (!s.seen) {
      s.seen = true;
      s.type = spec.type;
      s.fit = SpeedFit(spec.mode, spec.job_type().global_batch);
      active_ids_.push_back(id);
    }
    return s;
  }

  SpeedFit& type_samples(const PsJobSpec& spec) {
    const size_t key = static_cast<size_t>(spec.type) * 2 + (spec.mode == PsTrainingMode::Async ? 1 : 0);
    if (key >= type_fit_.size()) type_fit_.resize(key + 1);
    if (!type_fit_[key]) type_fit_[key] = std::make_unique<SpeedFit>(spec.mode, spec.job_type().global_batch);
    return *type_fit_[key];
  }

  void collect_samples(const JobView& v, const PsJobMonitor& m, State& s) {
    const PsJobSpec& spec = m.spec();
    SpeedFit& shared = type_samples(spec);
    if (!s.probed) {
      // Arrival: reuse the model's samples, then probe until enough.
      s.fit.merge(shared);
      Rng rng = rng_.split(static_cast<uint64_t>(v.job->id));
      for (int tries = 0; s.fit.distinct_points() < samples_ && tries < 200; ++tries) {
        const int w = static_cast<int>(rng.uniform_int(1, 10));
        const int p = probe_ == "diagonal" ? w : static_cast<int>(rng.uniform_int(1, 10));
        if (s.fit.has(p, w)) continue;
        const double y = m.measure_speed(p, w, sample_cost_s_);
        s.fit.add(p, w, y);
        shared.add(p, w, y);
      }
      s.dirty = true;
      s.probed = true;
    }
    if (v.running() && v.executed_s > 0) {
      int p = 0, w = 0;
      placement_counts(v.placement, p, w);
      const double y = m.observed_speed();
      if (y > 0) {
        s.fit.add(p, w, y);
        shared.add(p, w, y);
        s.dirty = true;
      }
    }
    if (s.dirty) {
      s.fit.fit();
      s.dirty = false;
    }
  }

  double remaining_epochs(const PsJobMonitor& m, State& s) {
    const PsJobSpec& spec = m.spec();
    const double done = m.epochs_done();
    if (oracle_epochs_) return std::max(0.0, m.true_total_epochs() - done);
    const double period = spec.eval_every_epochs;
    const int observed = m.losses_observed();
    if (observed >= 3 && observed != s.losses_fitted) {
      losses_.resize(observed);
      for (int k = 1; k <= observed; ++k) losses_[k - 1] = m.observed_loss(k);
      s.converge_eval = convergence_evaluation(fit_loss_curve(losses_), observed);
      s.losses_fitted = observed;
    }
    if (observed >= 3 && s.converge_eval > 0) return std::max(period, s.converge_eval * period - done);
    if (const auto& f = finished_epochs_[spec.type]; f.second > 0) return std::max(period, f.first / f.second - done);
    return fallback_evals_ * period;
  }

  // Jobs that left the active list since the last interval finished: record their final epochs.
  void note_finished(std::span<const JobView> jobs, double now_s) {
    ++epoch_mark_;
    if (mark_.size() < states_.size()) mark_.resize(states_.size(), 0);
    for (const JobView& v : jobs)
      if (v.job->id < static_cast<int>(mark_.size())) mark_[v.job->id] = epoch_mark_;
    size_t k = 0;
    for (int id : active_ids_) {
      if (mark_[id] == epoch_mark_) {
        active_ids_[k++] = id;
        continue;
      }
      const State& s = states_[id];
      const double final_epochs = s.last_epochs + s.last_rate * std::max(0.0, now_s - s.last_seen_s);
      auto& f = finished_epochs_[s.type];
      f.first += final_epochs;
      f.second += 1;
    }
    active_ids_.resize(k);
  }

  void find_stragglers(const JobView& v, const PsJobMonitor& m, std::vector<int>& avoid) {
    const auto slow = m.worker_slowdowns();
    if (slow.size() < 2) return;
    pace_.assign(slow.begin(), slow.end());
    for (double& x : pace_) x = 1.0 / x;
    std::vector<double> sorted = pace_;
    std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
    const double median = sorted[sorted.size() / 2];
    size_t w = 0;
    for (const Slice& s : v.placement)
      for (int k = 0; k < s.workers; ++k, ++w)
        if (pace_[w] < straggler_threshold_ * median && std::find(avoid.begin(), avoid.end(), s.server) == avoid.end())
          avoid.push_back(s.server);
  }

  Rng rng_;
  std::string assignment_;
  bool oracle_speed_ = false, oracle_epochs_ = false;
  AllocOptions alloc_;
  int samples_ = 8;
  double sample_cost_s_ = 180;
  std::string probe_;
  int max_tasks_ = 16;
  bool stragglers_ = true;
  double straggler_threshold_ = 0.8;
  double fallback_evals_ = 20;

  std::unique_ptr<PsPool> pool_;
  OptimusPlacer placer_;
  std::vector<State> states_;
  std::vector<std::unique_ptr<SpeedFit>> type_fit_;
  std::pair<double, int> finished_epochs_[16] = {};
  std::vector<int> active_ids_;
  std::vector<uint64_t> mark_;
  uint64_t epoch_mark_ = 0;
  std::vector<AllocJob> alloc_jobs_;
  std::vector<const PsJobSpec*> specs_;
  std::vector<const PsJobMonitor*> monitors_;
  std::vector<std::vector<int>> avoid_;
  std::vector<int> ps_, wk_;
  std::vector<Placement> placed_;
  std::vector<double> losses_, pace_;
};

}  // namespace

PolicyEntry optimus_entry() {
  return {
      "optimus",
      "Optimus (EuroSys'18) for parameter-server jobs: online convergence and speed models, greedy marginal gain, "
      "placement, PAA, stragglers",
      [](const PolicyOptions& options, const Knobs& knobs) -> std::unique_ptr<Policy> {
        return std::make_unique<OptimusPolicy>(options, knobs);
      },
      {knob_bool("optimus.oracle", false, "true speed and true remaining epochs: no samples, no fitting"),
       knob_bool("optimus.oracle_speed", false, "true speed only").shown("optimus.oracle"),
       knob_bool("optimus.oracle_epochs", false, "true remaining epochs only").shown("optimus.oracle"),
       knob_enum("optimus.gain_norm", "raw", {"raw", "share"}, "marginal gain raw or per dominant share"),
       knob_bool("optimus.stop_on_first_fail", true, "stop allocating at the first task that does not fit"),
       knob_int("optimus.samples", 8, "distinct (p, w) speed samples before fitting").at_least(0),
       knob_double("optimus.sample_cost_s", 180, "run time each speed probe costs the job").at_least(0),
       knob_enum("optimus.probe", "diagonal", {"diagonal", "random"}, "probe p = w, or p and w drawn independently"),
       knob_int("optimus.max_tasks", 16, "most PSs (and workers) per job").at_least(1),
       knob_bool("optimus.stragglers", true, "replace workers slower than the threshold x the median"),
       knob_double("optimus.straggler_threshold", 0.8, "straggler pace threshold (x median)").at_least(0, true),
       knob_double("optimus.fallback_evals", 20, "remaining epochs assumed before the convergence fit"),
       knob_enum("optimus.assignment", "paa", {"mxnet", "round-robin", "paa", "paa-balanced"},
                 "parameter assignment over the PSs"),
       knob_int("optimus.seed", 1, "seed of the policy's probes").at_least(0).shown("the run's --seed")},
      {.gpu_jobs = false, .ps_jobs = true, .make_ps = nullptr, .ps_variant = ""}};
}

}  // namespace dmlkit::cluster
