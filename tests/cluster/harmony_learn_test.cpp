// Harmony's learning side (cluster/policies/harmony/): the state encoding on the paper's example,
// masks that never allow a server without room, the heuristic exploration actions, the placer's
// roll-back of a job that does not fit, and model files that fail with a one-line error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cluster/policies/harmony/harmony_model.h"
#include "cluster/policies/harmony/harmony_placer.h"
#include "cluster/policies/harmony/harmony_state.h"
#include "core/error.h"

namespace dmlkit::cluster {
namespace {

PsJobSpec learn_job(int type, int workers, int ps, double w_gpus = 1, double w_cpus = 2, double p_cpus = 2) {
  PsJobSpec s;
  s.type = type;
  s.user_workers = workers;
  s.user_ps = ps;
  s.worker.gpus = static_cast<int>(w_gpus);
  s.worker.cpus = w_cpus;
  s.worker.mem_gb = 4;
  s.ps.cpus = p_cpus;
  s.ps.mem_gb = 4;
  return s;
}

std::vector<float> d_row(const HarmonyShape& shape, const std::vector<float>& state, int m) {
  const auto at = state.begin() + shape.d_at() + m * 2 * shape.jobs;
  return {at, at + 2 * shape.jobs};
}

// Second-pass.md 3.3: a server hosting 1 worker + 1 PS of job 2 and 2 workers + 1 PS of job 5, out
// of 6 jobs, encodes as [0,0,1,1,0,0,0,0,2,1,0,0] -- placed by actions (new jobs) ...
TEST(HarmonyState, PlacementMatrixOfThePapersExampleFromActions) {
  HarmonyShape shape{2, 6, 6, kHarmonyTypes};
  const ClusterSpec cluster = ClusterSpec::homogeneous(2, 8);
  HarmonyBoard b(shape, cluster);
  std::vector<PsJobSpec> jobs;
  for (int i = 0; i < 6; ++i) jobs.push_back(learn_job(i, 2, 1));
  for (const auto& j : jobs) b.add_new(j, j.user_workers, j.user_ps);
  b.apply(shape.action(1, 0, 0));  // a worker of job 2 on server 0
  b.apply(shape.action(1, 1, 0));  // its PS
  b.apply(shape.action(4, 0, 0));  // two workers and a PS of job 5
  b.apply(shape.action(4, 0, 0));
  b.apply(shape.action(4, 1, 0));
  b.apply(shape.action(1, 0, 1));  // job 2's second worker elsewhere
  std::vector<float> s(shape.state_size());
  b.observe(s.data());
  EXPECT_EQ(d_row(shape, s, 0), (std::vector<float>{0, 0, 1, 1, 0, 0, 0, 0, 2, 1, 0, 0}));
  EXPECT_EQ(d_row(shape, s, 1), (std::vector<float>{0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  // x: one-hot types; w, p: the user's counts; r: demands over the largest capacity.
  for (int n = 0; n < 6; ++n)
    for (int t = 0; t < kHarmonyTypes; ++t) EXPECT_EQ(s[shape.x_at() + n * shape.types + t], t == n ? 1.0f : 0.0f);
  EXPECT_EQ(s[shape.w_at() + 4], 2.0f);
  EXPECT_EQ(s[shape.p_at() + 4], 1.0f);
  EXPECT_FLOAT_EQ(s[shape.r_at() + 0 * 2 * kResources + 1], 1.0f / 8.0f);  // a worker's GPU of 8
  // v: server 0 gave 3 GPUs of 8 and 5 x 2 CPU cores of 64.
  EXPECT_FLOAT_EQ(s[shape.v_at() + 0 * kResources + 1], 5.0f / 8.0f);
  EXPECT_FLOAT_EQ(s[shape.v_at() + 0 * kResources + 0], (64.0f - 10.0f) / 64.0f);
  EXPECT_TRUE(b.complete(4));
  EXPECT_TRUE(b.complete(1));
  EXPECT_FALSE(b.complete(0));
}

// ... and as running jobs (d covers all concurrent jobs, not only the new ones).
TEST(HarmonyState, PlacementMatrixCoversRunningJobs) {
  HarmonyShape shape{2, 6, 1, kHarmonyTypes};
  const ClusterSpec cluster = ClusterSpec::homogeneous(2, 8);
  HarmonyBoard b(shape, cluster);
  std::vector<PsJobSpec> jobs;
  for (int i = 0; i < 6; ++i) jobs.push_back(learn_job(i, 2, 1));
  b.add_new(jobs[0], 2, 1);  // slot 0
  Placement p2, p5, empty;
  add_tasks(p2, jobs[1], 0, 1, 1);
  add_tasks(p5, jobs[4], 0, 2, 1);
  EXPECT_EQ(b.add_running(jobs[1], p2), 1);
  EXPECT_EQ(b.add_running(jobs[2], empty), 2);
  EXPECT_EQ(b.add_running(jobs[3], empty), 3);
  EXPECT_EQ(b.add_running(jobs[4], p5), 4);
  std::vector<float> s(shape.state_size());
  b.observe(s.data());
  EXPECT_EQ(d_row(shape, s, 0), (std::vector<float>{0, 0, 1, 1, 0, 0, 0, 0, 2, 1, 0, 0}));
  EXPECT_EQ(shape.actions(), 2 * 2 * 1);
}

// Random roll-outs on a tight cluster: every allowed action fits, no server ever exceeds its
// capacity, and a server without room for a task is never offered for it.
TEST(HarmonyState, MasksNeverAllowAServerWithoutRoom) {
  HarmonyShape shape{3, 8, 4, kHarmonyTypes};
  ClusterSpec cluster = ClusterSpec::homogeneous(3, 2);
  cluster.servers[2].gpus = 0;  // a CPU-only server: no worker of a GPU job may go there
  HarmonyBoard b(shape, cluster);
  Rng rng(7);
  std::vector<unsigned char> mask(shape.actions());
  for (int trial = 0; trial < 50; ++trial) {
    b.clear();
    std::vector<PsJobSpec> jobs;
    for (int i = 0; i < 4; ++i)
      jobs.push_back(learn_job(static_cast<int>(rng.uniform_int(0, 7)), static_cast<int>(rng.uniform_int(1, 3)),
                               static_cast<int>(rng.uniform_int(1, 2)), 1, rng.uniform(1, 6), rng.uniform(1, 6)));
    for (const auto& j : jobs) b.add_new(j, j.user_workers, j.user_ps);
    for (;;) {
      b.mask(mask.data());
      std::vector<int> allowed;
      for (int a = 0; a < shape.actions(); ++a) {
        const int n = shape.action_job(a), kind = shape.action_kind(a), m = shape.action_server(a);
        const TaskDemand& d = kind == 0 ? jobs[n].worker : jobs[n].ps;
        if (mask[a]) {
          allowed.push_back(a);
          EXPECT_TRUE(b.pool().fits(m, d));
          if (kind == 0) {
            EXPECT_NE(m, 2);
          }
        } else if (b.pool().fits(m, d) && (kind == 0 ? b.workers_on(n, 0) + b.workers_on(n, 1) + b.workers_on(n, 2) <
                                                           jobs[n].user_workers
                                                     : b.ps_on(n, 0) + b.ps_on(n, 1) + b.ps_on(n, 2) < jobs[n].user_ps)) {
          ADD_FAILURE() << "action " << a << " fits but is masked";
        }
      }
      EXPECT_EQ(b.any_action(), !allowed.empty());
      if (allowed.empty()) break;
      b.apply(allowed[rng.uniform_int(0, static_cast<int64_t>(allowed.size()) - 1)]);
      for (int m = 0; m < 3; ++m)
        for (int r = 0; r < kResources; ++r) EXPECT_LE(b.pool().used(m, r), b.pool().cap(m, r) + 1e-9);
    }
  }
}

TEST(HarmonyState, HeuristicActionsPackOrBalance) {
  HarmonyShape shape{3, 4, 2, kHarmonyTypes};
  const ClusterSpec cluster = ClusterSpec::homogeneous(3, 4);
  HarmonyBoard b(shape, cluster);
  const PsJobSpec big = learn_job(0, 2, 0), small = learn_job(1, 2, 1);
  Placement p;
  add_tasks(p, big, 1, 2, 0);  // server 1 is the busiest
  b.add_running(big, p);
  b.add_new(small, 2, 1);
  const int bp = b.heuristic_action(HarmonyHeuristic::BinPacking);
  const int lb = b.heuristic_action(HarmonyHeuristic::LoadBalancing);
  EXPECT_EQ(shape.action_server(bp), 1);
  EXPECT_EQ(shape.action_server(lb), 0);
  EXPECT_EQ(shape.action_job(bp), 0);
  EXPECT_EQ(shape.action_kind(lb), 1);  // the proportional rule starts a (2 w, 1 p) job with its PS
}

learn::StoredNet zero_policy(const HarmonyShape& shape) {
  learn::StoredNet n;
  n.shape = harmony_policy_shape(shape, {8});
  n.parameters.assign(n.shape.parameter_count(), 0.0f);
  return n;
}

TEST(HarmonyPlacer, AJobThatDoesNotFitWaitsAndFreesWhatItTook) {
  HarmonyShape shape{2, 4, 2, kHarmonyTypes};
  const ClusterSpec cluster = ClusterSpec::homogeneous(2, 2);
  HarmonyPlacer placer(shape, cluster, zero_policy(shape), 1);
  const PsJobSpec fits = learn_job(0, 3, 1), too_big = learn_job(1, 4, 1);  // 4 GPUs: 1 left after the first
  std::vector<const PsJobSpec*> fresh = {&fits, &too_big};
  std::vector<Placement> out;
  placer.decide({}, fresh, out);
  ASSERT_EQ(out.size(), 2u);
  int w = 0, p = 0;
  placement_counts(out[0], p, w);
  EXPECT_EQ(w, 3);
  EXPECT_EQ(p, 1);
  EXPECT_TRUE(out[1].empty());
  EXPECT_EQ(placer.stats().rolled_back, 1);
}

std::string tmp(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("dmlkit-harmony-test-" + name)).string();
}

TEST(HarmonyModel, RoundTripAndBadFiles) {
  HarmonyModel m;
  m.shape = {6, 10, 4, kHarmonyTypes};
  m.policy = zero_policy(m.shape);
  m.reward.shape = harmony_reward_shape(m.shape, {8});
  m.reward.parameters.assign(m.reward.shape.parameter_count(), 0.5f);
  m.speed_scale.assign(kHarmonyTypes, 2.0f);
  const std::string path = tmp("model.json");
  learn::save_model_file(path, harmony_model_file(m));
  const HarmonyModel back = load_harmony_model(path);
  EXPECT_EQ(back.shape, m.shape);
  EXPECT_TRUE(back.has_reward());
  EXPECT_FALSE(back.has_value());

  EXPECT_THROW(load_harmony_model(tmp("missing.json")), Error);
  {
    std::ofstream f(tmp("corrupt.json"));
    f << "{\"kind\": \"harmony\", \"nets\": ";
  }
  EXPECT_THROW(load_harmony_model(tmp("corrupt.json")), Error);
  learn::ModelFile f = harmony_model_file(m);
  f.kind = "dl2";
  learn::save_model_file(tmp("kind.json"), f);
  EXPECT_THROW(load_harmony_model(tmp("kind.json")), Error);
  f = harmony_model_file(m);
  f.meta["servers"] = "7";  // the networks are for 6
  learn::save_model_file(tmp("shape.json"), f);
  try {
    load_harmony_model(tmp("shape.json"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "nets.policy");
  }
  f = harmony_model_file(m);
  f.extra.erase("speed_scale");
  learn::save_model_file(tmp("scale.json"), f);
  EXPECT_THROW(load_harmony_model(tmp("scale.json")), Error);
}

}  // namespace
}  // namespace dmlkit::cluster
