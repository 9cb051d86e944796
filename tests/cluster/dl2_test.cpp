// DL2 (policies/dl2/, train/): state and mask encoding on hand-built jobs, actions and the
// least-loaded rule, the SL recorder's labels, the job-aware exploration rules, model loading
// errors. Training itself: tests/apps/cluster_train_test.cpp.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "cluster/model/cluster_spec.h"
#include "cluster/policies/dl2/dl2_explore.h"
#include "cluster/policies/dl2/dl2_policy.h"
#include "cluster/policies/dl2/dl2_slot.h"
#include "cluster/sim/metrics.h"
#include "cluster/sim/simulator.h"
#include "cluster/train/dl2_teacher.h"
#include "cluster/workload/experiment.h"
#include "cluster/workload/ps_workload.h"
#include "core/data_dir.h"
#include "core/error.h"

namespace dmlkit::cluster {
namespace {

// A PS job as a scheduler sees it, with the progress the test sets.
class FakePs final : public JobOracle, public PsJobMonitor {
 public:
  FakePs(std::shared_ptr<const PsJobSpec> s, double done) : spec_(std::move(s)), done_(done) {}
  double remaining_time_s(int) const override { return 1; }
  double step_time_s(int) const override { return 1; }
  double remaining_iterations() const override { return 0; }
  int max_gpus() const override { return 16; }
  const PsJobSpec& spec() const override { return *spec_; }
  double epochs_done() const override { return done_; }
  int losses_observed() const override { return 0; }
  double observed_loss(int) const override { return 0; }
  double measure_speed(int, int, double) const override { return 1; }
  double observed_speed() const override { return 1; }
  std::span<const double> worker_slowdowns() const override { return {}; }
  double true_speed(int p, int w) const override { return p > 0 && w > 0 ? 1.0 : 0.0; }
  double true_total_epochs() const override { return spec_->total_epochs; }

 private:
  std::shared_ptr<const PsJobSpec> spec_;
  double done_;
};

// PS jobs of DL2's demands arriving within the first `slots` slots of 1200 s.
Workload window_workload(int jobs, int slots, double max_epochs, uint64_t seed) {
  PsWorkloadSpec s;
  s.num_jobs = jobs;
  s.arrivals = "window";
  s.window_slots = slots;
  s.slot_s = 1200;
  s.max_num_epochs = max_epochs;
  s.demands = "dl2";
  return ps_workload(s, seed, default_data_dir());
}

ClusterSpec dl2_cluster() { return ClusterSpec::parse(default_experiments_dir() + "/clusters/dl2-96.yaml"); }

struct Hand {
  ClusterSpec cluster = dl2_cluster();
  std::vector<Job> jobs;
  std::vector<std::unique_ptr<FakePs>> mons;
  std::vector<JobView> views;
  std::vector<Placement> out;
  ClusterView view;
  Hand(int n, double now_s) {
    for (int i = 0; i < n; ++i) {
      Job j;
      j.id = i;
      j.name = "j" + std::to_string(i);
      j.kind = WorkKind::ParameterServer;
      j.arrival_s = 1200.0 * i;
      fill_ps_job(j, i % 8, 100, 1, 1, PsTrainingMode::Sync, "dl2", 0.0, 0.05, 1);
      jobs.push_back(j);
    }
    for (int i = 0; i < n; ++i) {
      mons.push_back(std::make_unique<FakePs>(jobs[i].ps, 25.0 * (i % 4)));
      JobView v;
      v.job = &jobs[i];
      v.oracle = mons.back().get();
      views.push_back(v);
    }
    out.resize(n);
    view.cluster = &cluster;
    view.now_s = now_s;
    view.round_s = 1200;
  }
};

TEST(Dl2Slot, StateRowsAndInitialBundles) {
  Hand h(3, 3600);
  Dl2Shape shape;
  shape.window = 4;
  Dl2Slot slot(shape);
  slot.begin(h.view, h.views, h.out, true);
  slot.select_window(nullptr);
  std::vector<float> s(shape.state_size());
  slot.observe(s.data());
  const int L = 4;
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(s[0 * L + c], static_cast<float>(h.jobs[c].ps->type + 1));  // type id 1..8
    EXPECT_EQ(s[1 * L + c], static_cast<float>(3 - c));                   // slots in the system
    EXPECT_FLOAT_EQ(s[2 * L + c], 1.0f - 0.25f * (c % 4));                // 1 - progress / E
    EXPECT_GT(s[3 * L + c], 0.0f);                                        // share of the bundle
    EXPECT_EQ(s[4 * L + c], 1.0f);                                        // w
    EXPECT_EQ(s[5 * L + c], 1.0f);                                        // p
  }
  for (int r = 0; r < kDl2Rows; ++r) EXPECT_EQ(s[r * L + 3], 0.0f);  // empty column: zeros
  // Each bundle went to a different (least-loaded, lowest id) server.
  EXPECT_EQ(h.out[0][0].server, 0);
  EXPECT_EQ(h.out[1][0].server, 1);
  EXPECT_EQ(h.out[2][0].server, 2);
}

TEST(Dl2Slot, MasksEmptyColumnsAndFullRoles) {
  Hand h(2, 0);
  Dl2Shape shape;
  shape.window = 3;
  shape.max_workers = 2;
  shape.max_ps = 2;
  Dl2Slot slot(shape);
  slot.begin(h.view, h.views, h.out, true);
  ASSERT_TRUE(slot.add(0, Dl2Task::Worker, h.out));  // job 0: w = 2 = cap
  slot.select_window(nullptr);
  std::vector<unsigned char> m(shape.actions());
  slot.mask(m.data());
  EXPECT_EQ(m[0], 0);  // worker of job 0: full
  EXPECT_EQ(m[1], 1);  // PS of job 0
  EXPECT_EQ(m[2], 0);  // bundle: one role full
  EXPECT_EQ(m[3] + m[4] + m[5], 3);
  EXPECT_EQ(m[6] + m[7] + m[8], 0);  // empty column
  EXPECT_EQ(m[9], 1);                // VOID
  // A job with both roles full leaves the window.
  ASSERT_TRUE(slot.add(0, Dl2Task::Ps, h.out));
  slot.select_window(nullptr);
  EXPECT_EQ(slot.window_job(0), 1);
  EXPECT_EQ(slot.column_of(0), -1);
}

TEST(Dl2Slot, ShuffledWindowKeepsTheSameJobs) {
  Hand h(3, 0);
  Dl2Slot slot(Dl2Shape{});
  slot.begin(h.view, h.views, h.out, false);
  Rng rng(4);
  slot.select_window(&rng);
  int seen = 0;
  for (int c = 0; c < 20; ++c) seen += slot.window_job(c) >= 0;
  EXPECT_EQ(seen, 3);
  for (int j = 0; j < 3; ++j) EXPECT_GE(slot.column_of(j), 0);
}

TEST(Dl2Slot, TaskThatDoesNotFitOnTheLeastLoadedServerEndsTheSlot) {
  Hand h(1, 0);
  h.cluster = ClusterSpec::parse("1x2");  // one server, 2 GPUs
  h.view.cluster = &h.cluster;
  Dl2Slot slot(Dl2Shape{});
  slot.begin(h.view, h.views, h.out, false);
  int added = 0;
  while (slot.add(0, Dl2Task::Worker, h.out)) ++added;
  EXPECT_GT(added, 0);
  EXPECT_LT(added, 16);
  EXPECT_EQ(slot.workers(0), added);
}

// Within a slot only the acting job's column of the state and the mask changes: the policy
// updates that column only, and rebuilds everything when the window moves (a job reached both caps).
TEST(Dl2Slot, ColumnUpdatesEqualAFullRebuildUntilTheWindowMoves) {
  Hand h(6, 3600);
  Dl2Shape shape;
  shape.window = 4;  // jobs 4 and 5 wait outside the window
  shape.max_workers = 3;
  shape.max_ps = 2;
  Dl2Slot slot(shape);
  slot.begin(h.view, h.views, h.out, true);
  std::vector<float> inc(shape.state_size()), full(shape.state_size());
  std::vector<unsigned char> inc_mask(shape.actions()), full_mask(shape.actions());
  Rng rng(3);
  int steps = 0, moves = 0;
  int col = -1;
  for (int step = 0; step < 200; ++step) {
    if (slot.refresh_window() || col < 0) {
      slot.observe(inc.data());
      slot.mask(inc_mask.data());
    } else {
      slot.observe_column(inc.data(), col);
      slot.mask_column(inc_mask.data(), col);
    }
    slot.observe(full.data());
    slot.mask(full_mask.data());
    ASSERT_EQ(inc, full) << "step " << step;
    ASSERT_EQ(inc_mask, full_mask) << "step " << step;
    if (!slot.any_job_action()) break;
    std::vector<int> allowed;
    for (int a = 0; a < shape.void_action(); ++a)
      if (full_mask[a]) allowed.push_back(a);
    const int a = allowed[static_cast<size_t>(rng.uniform_int(0, static_cast<int64_t>(allowed.size()) - 1))];
    col = a / 3;
    const int job = slot.window_job(col);
    const bool both_full_before = slot.workers(job) >= shape.max_workers && slot.ps(job) >= shape.max_ps;
    ASSERT_FALSE(both_full_before);
    ASSERT_TRUE(slot.add(job, static_cast<Dl2Task>(a % 3), h.out));
    ++steps;
    // The window moves exactly when this job reached both caps.
    const bool full_now = slot.workers(job) >= shape.max_workers && slot.ps(job) >= shape.max_ps;
    EXPECT_EQ(slot.refresh_window(), full_now);
    if (full_now) {
      EXPECT_EQ(slot.column_of(job), -1);
      col = -1;
      ++moves;
    }
  }
  EXPECT_GT(steps, 10);
  EXPECT_GE(moves, 2);  // jobs left the window and waiting ones came in
}

TEST(Dl2Explore, CodeRulesFireOnTheirTriggers) {
  Hand h(2, 0);
  Dl2Slot slot(Dl2Shape{});
  slot.begin(h.view, h.views, h.out, false);  // both jobs have w = p = 0
  slot.select_window(nullptr);
  std::vector<unsigned char> m(slot.shape().actions());
  slot.mask(m.data());
  std::vector<double> probs(m.size(), 1.0 / m.size());
  Dl2ExploreConfig cfg;
  Dl2ExploreState st;
  Rng rng(1);
  // Rule 2b: job 0 has no worker: the override takes worker (or bundle, then worker) of column 0.
  const int a = dl2_explore(cfg, slot, m.data(), probs, slot.shape().void_action(), st, rng);
  EXPECT_EQ(a / 3, 0);
  EXPECT_NE(a % 3, 2);  // the worker rule runs after the bundle rule and wins
  // Rule 2d (w >= p / 2): with w = 1, p = 1 the override is PS (99%) or bundle, half the time.
  slot.count(0, Dl2Task::Bundle);
  slot.count(1, Dl2Task::Bundle);
  slot.select_window(nullptr);
  slot.mask(m.data());
  int ps = 0, kept = 0;
  for (int k = 0; k < 400; ++k) {
    const int b = dl2_explore(cfg, slot, m.data(), probs, slot.shape().void_action(), st, rng);
    if (b == slot.shape().void_action())
      ++kept;
    else if (b % 3 == 1)
      ++ps;
  }
  EXPECT_GT(ps, 100);
  EXPECT_GT(kept, 50);
  // No exploration: the sampled action stands.
  cfg.mode = Dl2Exploration::None;
  EXPECT_EQ(dl2_explore(cfg, slot, m.data(), probs, 4, st, rng), 4);
}

TEST(Dl2Explore, PaperRulesAddTheScarceTask) {
  Hand h(1, 0);
  Dl2Slot slot(Dl2Shape{});
  slot.begin(h.view, h.views, h.out, false);
  slot.count(0, Dl2Task::Worker);  // w = 1, p = 0
  slot.select_window(nullptr);
  std::vector<unsigned char> m(slot.shape().actions());
  slot.mask(m.data());
  std::vector<double> probs(m.size(), 1.0 / m.size());
  Dl2ExploreConfig cfg;
  cfg.mode = Dl2Exploration::Paper;
  cfg.paper_epsilon = 1.0;
  Dl2ExploreState st;
  Rng rng(1);
  EXPECT_EQ(dl2_explore(cfg, slot, m.data(), probs, 0, st, rng), 1);  // add a PS
}

TEST(Dl2Recorder, DrfBundleIsTwoLabelsWorkerThenPs) {
  const Workload w = window_workload(3, 1, 200, 3);
  const ClusterSpec cluster = dl2_cluster();
  std::vector<Dl2SlSample> got;
  Dl2Recorder rec(make_policy("drf-dl2", {}), Dl2Shape{}, 1, /*shuffle=*/false,
                  [&](const Dl2SlSample& x) { got.push_back(x); });
  SimConfig config;
  config.round_s = 1200;
  config.schedule_on_events = false;
  simulate(cluster, w, "drf-dl2", rec, config);
  ASSERT_GE(got.size(), 4u);
  const int L = 20;
  EXPECT_EQ(got[0].label % 3, 0);  // add worker
  EXPECT_EQ(got[1].label % 3, 1);  // then add PS
  EXPECT_EQ(got[0].label / 3, got[1].label / 3);
  const int c = got[0].label / 3;
  EXPECT_EQ(got[0].state[4 * L + c], 0.0f);  // before: no worker
  EXPECT_EQ(got[1].state[4 * L + c], 1.0f);  // the PS label sees the worker added
  EXPECT_EQ(got[1].state[5 * L + c], 0.0f);
  for (const auto& x : got) EXPECT_NE(x.label % 3, 2);  // DRF never records a bundle label
}

// The training reward: a job's progress in a slot over its total epochs (the paper's normalised
// progress), or with speedup_reward over the epochs 1 PS + 1 worker would run in the slot. The
// same model and seed take the same decisions either way, so each job's two rewards differ by
// exactly total epochs / (speed(1, 1) x slot / epoch size).
TEST(Dl2Reward, NormalisedProgressOrSpeedUpOverOnePsAndOneWorker) {
  struct Probe final : Dl2Actor {
    Dl2Policy* policy = nullptr;
    std::vector<std::pair<int, double>> progress;
    void on_slot(double, bool) override {
      for (const auto& p : policy->last_progress()) progress.push_back(p);
    }
    void on_sample(const float*, const unsigned char*, int, int) override {}
  };
  const Workload w = window_workload(4, 2, 6000, 5);
  const ClusterSpec cluster = dl2_cluster();
  const Dl2Model m = load_dl2_model("dl2-96");
  SimConfig config;
  config.round_s = 1200;
  config.schedule_on_events = false;
  std::vector<std::pair<int, double>> got[2];
  for (int speedup = 0; speedup < 2; ++speedup) {
    Dl2PolicyConfig pc;
    pc.shape.window = 20;
    pc.explore.mode = Dl2Exploration::None;
    pc.speedup_reward = speedup == 1;
    Dl2Policy policy(pc, m.policy.shape, m.policy.parameters, 7);
    Probe probe;
    probe.policy = &policy;
    policy.attach(&probe);
    simulate(cluster, w, "dl2", policy, config);
    policy.finish();
    got[speedup] = probe.progress;
  }
  ASSERT_EQ(got[0].size(), got[1].size());
  ASSERT_GT(got[0].size(), 4u);
  // Per job: speed-up reward / normalised reward = total epochs / reference epochs per slot, the
  // same in every slot; divided by the total epochs it depends on the job's type only.
  std::map<int, double> ratio;     // job id -> ratio
  std::map<int, double> per_type;  // type -> ratio / total epochs
  double total_normalised = 0;
  for (size_t k = 0; k < got[0].size(); ++k) {
    ASSERT_EQ(got[0][k].first, got[1][k].first);
    total_normalised += got[0][k].second;
    if (got[0][k].second < 1e-6) continue;
    const Job& job = w.jobs[static_cast<size_t>(got[0][k].first)];
    const double r = got[1][k].second / got[0][k].second;
    EXPECT_GT(r, 0.0);
    if (ratio.count(job.id)) {
      EXPECT_NEAR(r, ratio[job.id], 1e-9 * r);
    }
    ratio[job.id] = r;
    const double t = r / job.ps->total_epochs;
    if (per_type.count(job.ps->type)) {
      EXPECT_NEAR(t, per_type[job.ps->type], 1e-9 * t);
    }
    per_type[job.ps->type] = t;
  }
  EXPECT_EQ(ratio.size(), 4u);
  // Every job finishes, so the normalised progress sums to the number of jobs.
  EXPECT_NEAR(total_normalised, 4.0, 1e-6);
}

// The slot loop of Dl2Policy with the exact network deciding, and the incremental fast path
// (dl2.incremental=on) shown the same states: how far its probabilities are, and how often the
// inverse-CDF draw with the same uniform number would have taken another action.
class ShadowDl2 final : public Policy {
 public:
  ShadowDl2(const learn::StoredNet& net, int window) : exact_(net, false), fast_(net, true), rng_(7) {
    shape_.window = window;
  }
  void schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) override {
    Dl2Slot slot(shape_);
    slot.begin(view, jobs, out, true);
    std::vector<float> state(shape_.state_size());
    std::vector<unsigned char> mask(shape_.actions());
    int col = -1;
    for (;;) {
      if (slot.refresh_window()) col = -1;
      if (!slot.any_job_action()) break;
      slot.observe(state.data());
      slot.mask(mask.data());
      ASSERT_TRUE(exact_.probabilities(state.data(), col, mask, p_exact_));
      ASSERT_TRUE(fast_.probabilities(state.data(), col, mask, p_fast_));
      for (size_t a = 0; a < p_exact_.size(); ++a) max_diff = std::max(max_diff, std::abs(p_exact_[a] - p_fast_[a]));
      const double u = rng_.uniform();
      const int action = dl2_inverse_cdf(p_exact_, u);
      differ += action != dl2_inverse_cdf(p_fast_, u);
      ++inferences;
      if (action == shape_.void_action()) break;
      col = action / 3;
      if (!slot.add(slot.window_job(col), static_cast<Dl2Task>(action % 3), out)) break;
    }
  }
  bool handles_ps_jobs() const override { return true; }
  long inferences = 0, differ = 0;
  double max_diff = 0;

 private:
  Dl2Shape shape_;
  Dl2Network exact_, fast_;
  Rng rng_;
  std::vector<double> p_exact_, p_fast_;
};

// The bundled models (the presets' defaults among them) on their presets' first evaluation seed (seed 1): the fast
// path's probabilities stay within 1e-5 of the exact ones (measured: about 2e-6) and at most one draw in 10,000 goes
// another way (measured: none; docs/performance.md).
TEST(Dl2Policy, IncrementalFastPathStaysCloseToTheExactProbabilities) {
  const std::vector<std::pair<const char*, std::vector<const char*>>> runs = {
      {"dl2-96", {"dl2-96", "dl2-96-shared", "dl2-96-shared-w40"}},
      {"dl2-500", {"dl2-500", "dl2-500-shared", "dl2-500-shared-w120"}}};
  for (const auto& [preset, models] : runs) {
    const Experiment e = load_experiment(preset, default_experiments_dir());
    const ClusterSpec cluster = ClusterSpec::parse(e.cluster);
    const SimConfig config = experiment_sim_config(e, default_data_dir());
    const Workload w = ps_workload(e.workload, 1, default_data_dir());
    for (const char* model : models) {
      const Dl2Model m = load_dl2_model(model);
      ShadowDl2 shadow(m.policy, m.window);
      simulate(cluster, w, "dl2", shadow, config);
      // Thousands of inferences, each after the previous one's single-column change.
      EXPECT_GT(shadow.inferences, 5000) << model;
      EXPECT_LT(shadow.max_diff, 1e-5) << model;
      EXPECT_LE(shadow.differ, shadow.inferences / 10000) << model;
      std::printf("%s on %s: %ld inferences, %ld draws differ, max |p - p_exact| %.3g\n", model, preset,
                  shadow.inferences, shadow.differ, shadow.max_diff);
    }
  }
}

TEST(Dl2Model, MissingOrWrongModelIsAnError) {
  PolicyOptions o;
  o.params["dl2.model"] = "/nonexistent/model.json";
  EXPECT_THROW(make_policy("dl2", o), Error);
  o.params["dl2.model"] = "no-such-bundled-model";
  EXPECT_THROW(make_policy("dl2", o), Error);
  const std::string path = (std::filesystem::temp_directory_path() / "dmlkit-dl2-bad.json").string();
  std::ofstream(path) << "{\"format\":\"dmlkit-model\",\"version\":1,\"kind\":\"harmony\",\"meta\":{},\"nets\":{}}";
  o.params["dl2.model"] = path;
  try {
    make_policy("dl2", o);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.field(), "kind");
  }
  std::filesystem::remove(path);
}

// dl2.window ([A]): a column-shared model runs at another window (its parameters do not depend on
// L); an MLP model cannot, and says so.
TEST(Dl2Model, OnlyAColumnSharedModelRunsAtAnotherWindow) {
  PolicyOptions o;
  o.params["dl2.model"] = "dl2-96-shared";
  o.params["dl2.window"] = "40";
  EXPECT_NE(make_policy("dl2", o), nullptr);
  o.params["dl2.model"] = "dl2-96";
  try {
    make_policy("dl2", o);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("dl2.window"), std::string::npos) << e.what();
  }
  o.params["dl2.window"] = "20";  // its own window
  EXPECT_NE(make_policy("dl2", o), nullptr);
}

// Elastic scaling cost (DL2 spec 3.7): a policy that re-allocates in place loses the configured
// seconds per task added or removed; 0 (the default, as DL2's simulator) costs nothing.
TEST(Dl2ScalingCost, LostProgressPerTaskAddedOrRemoved) {
  const Workload w = window_workload(4, 2, 3000, 5);
  const ClusterSpec cluster = dl2_cluster();
  SimConfig config;
  config.round_s = 1200;
  config.schedule_on_events = false;
  auto jct = [&](double cw, double cp) {
    config.ps_scale_cost_worker_s = cw;
    config.ps_scale_cost_ps_s = cp;
    auto p = make_policy("drf-dl2", {});
    return compute_metrics(simulate(cluster, w, "drf-dl2", *p, config)).avg_jct_s;
  };
  const double free = jct(0, 0), cheap = jct(1, 3), dear = jct(30, 90);
  EXPECT_LT(free, cheap);
  EXPECT_LT(cheap, dear);
}

}  // namespace
}  // namespace dmlkit::cluster
