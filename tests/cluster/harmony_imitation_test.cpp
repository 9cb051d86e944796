// Harmony's additions of issue 14's second pass: the "defer" actions (a new job may wait; masked
// once it has a task placed), the imitation recorder (a teacher's placements replayed as Harmony
// actions: every label allowed by its mask, every started job's tasks labelled once, waiting jobs
// labelled "defer"), and the default model a preset and interference model pick (harmony.model=auto).
#include <gtest/gtest.h>

#include <numeric>

#include "cluster/policies/harmony/harmony_model.h"
#include "cluster/policies/harmony/harmony_placer.h"
#include "cluster/sim/simulator.h"
#include "cluster/train/harmony_imitation.h"
#include "cluster/workload/experiment.h"
#include "cluster/workload/ps_workload.h"
#include "core/error.h"

namespace dmlkit::cluster {
namespace {

const std::string kImitationData = std::string(DMLKIT_SOURCE_DIR) + "/data";
const std::string kImitationExperiments = std::string(DMLKIT_SOURCE_DIR) + "/experiments";

PsJobSpec imitation_job(int type, int workers, int ps) {
  PsJobSpec s;
  s.type = type;
  s.user_workers = workers;
  s.user_ps = ps;
  s.worker.gpus = 1;
  s.worker.cpus = 2;
  s.worker.mem_gb = 4;
  s.ps.cpus = 2;
  s.ps.mem_gb = 4;
  return s;
}

TEST(HarmonyDefer, WaitActionsAreMaskedOnceAJobHasATaskAndLeaveTheState) {
  HarmonyShape shape{2, 4, 2, kHarmonyTypes};
  shape.defer = true;
  EXPECT_EQ(shape.actions(), 2 * 2 * 2 + 2);
  const ClusterSpec cluster = ClusterSpec::homogeneous(2, 8);
  HarmonyBoard b(shape, cluster);
  const PsJobSpec a = imitation_job(0, 2, 1), c = imitation_job(3, 1, 1);
  b.add_new(a, 2, 1);
  b.add_new(c, 1, 1);
  std::vector<unsigned char> m(shape.actions());
  b.mask(m.data());
  EXPECT_EQ(m[shape.defer_action(0)], 1);
  EXPECT_EQ(m[shape.defer_action(1)], 1);
  b.apply(shape.action(0, 0, 0));  // job 0 has a task: it can no longer wait
  b.mask(m.data());
  EXPECT_EQ(m[shape.defer_action(0)], 0);
  EXPECT_EQ(m[shape.defer_action(1)], 1);
  b.apply(shape.defer_action(1));
  EXPECT_TRUE(b.deferred(1));
  b.mask(m.data());
  for (int k = 0; k < 2; ++k)
    for (int s = 0; s < 2; ++s) EXPECT_EQ(m[shape.action(1, k, s)], 0);  // nothing left for a waiting job
  std::vector<float> st(shape.state_size());
  b.observe(st.data());
  EXPECT_EQ(st[shape.x_at() + 1 * shape.types + 3], 0.0f);  // its slot reads as empty
  EXPECT_EQ(st[shape.x_at() + 0 * shape.types + 0], 1.0f);
  EXPECT_THROW(b.apply(shape.defer_action(0)), Error);
  EXPECT_FALSE(b.complete(1));
  b.rollback(1);  // as the placer does at the end of the interval: it waits
  EXPECT_FALSE(b.deferred(1));
}

TEST(HarmonyDefer, APlacerThatAlwaysWaitsPlacesNothing) {
  HarmonyShape shape{2, 4, 2, kHarmonyTypes};
  shape.defer = true;
  const ClusterSpec cluster = ClusterSpec::homogeneous(2, 8);
  learn::StoredNet net;
  net.shape = harmony_policy_shape(shape, {4});
  net.parameters.assign(net.shape.parameter_count(), 0.0f);
  // Output biases: the two wait actions far above the rest (the last layer's biases are the last values).
  for (int a = 0; a < shape.actions(); ++a)
    net.parameters[net.parameters.size() - static_cast<size_t>(shape.actions() - a)] = shape.is_defer(a) ? 10.0f : 0.0f;
  HarmonyPlacer p(shape, cluster, net, 1);
  const PsJobSpec a = imitation_job(0, 2, 1), c = imitation_job(3, 1, 1);
  std::vector<const PsJobSpec*> fresh = {&a, &c};
  std::vector<Placement> out;
  p.decide({}, fresh, out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(out[0].empty());
  EXPECT_TRUE(out[1].empty());
}

// Runs `teacher` on harmony-testbed's seed 1 through the recorder.
HarmonyImitationData record(const std::string& teacher, bool defer, long& tasks_of_all_jobs) {
  Experiment e = load_experiment("harmony-testbed", kImitationExperiments);
  const ClusterSpec cluster = ClusterSpec::parse(e.cluster);
  const Workload w = ps_workload(e.workload, 1, kImitationData);
  tasks_of_all_jobs = 0;
  for (const Job& j : w.jobs) tasks_of_all_jobs += j.ps->user_workers + j.ps->user_ps;
  HarmonyShape shape;
  shape.servers = cluster.num_servers();
  shape.jobs = 16;
  shape.new_jobs = 4;
  shape.defer = defer;
  HarmonyImitationData data;
  PolicyOptions o;
  HarmonyImitationRecorder rec(make_policy(teacher, o), shape, cluster, data);
  const SimResult r = simulate(cluster, w, teacher, rec, experiment_sim_config(e, kImitationData));
  for (const auto& j : r.jobs) EXPECT_TRUE(j.finished());
  return data;
}

TEST(HarmonyImitation, ReplaysEveryPlacedTaskOnceWithAllowedActions) {
  long tasks = 0;
  const HarmonyImitationData d = record("lif-line", false, tasks);
  ASSERT_GT(d.rows(), 0u);
  EXPECT_EQ(d.dropped_jobs, 0);
  EXPECT_EQ(static_cast<long>(d.rows()), tasks);  // every job starts once, each task one label
  for (size_t r = 0; r < d.rows(); ++r) EXPECT_EQ(d.masks[r * d.actions + d.labels[r]], 1) << r;
}

TEST(HarmonyImitation, AStandaloneTeacherTeachesWaiting) {
  long tasks = 0;
  const HarmonyImitationData d = record("standalone", true, tasks);
  HarmonyShape shape;
  shape.servers = 6;
  shape.jobs = 16;
  shape.new_jobs = 4;
  shape.defer = true;
  long waits = 0, places = 0;
  for (size_t r = 0; r < d.rows(); ++r) {
    EXPECT_EQ(d.masks[r * d.actions + d.labels[r]], 1) << r;
    (shape.is_defer(d.labels[r]) ? waits : places) += 1;
  }
  EXPECT_EQ(places, tasks);
  EXPECT_GT(waits, 0);  // standalone leaves jobs waiting while every server is in use
}

TEST(HarmonyModel, AutoPicksThePresetsModelPerInterference) {
  EXPECT_EQ(harmony_default_model("harmony-testbed", "contention"), "harmony-testbed-contention");
  EXPECT_EQ(harmony_default_model("harmony-testbed", "gavel"), "harmony-testbed-gavel");
  EXPECT_EQ(harmony_default_model("harmony-testbed", "none"), "harmony-testbed-none");
  // harmony-50's model (14 MB) is not shipped: generated by the command in data/models/README.md;
  // without it auto falls back to the interference model's testbed file.
  EXPECT_EQ(harmony_default_model("harmony-50", "contention"), "harmony-testbed-contention");
  EXPECT_EQ(harmony_default_model("", ""), "harmony-testbed");
  EXPECT_EQ(harmony_default_model("no-such-preset", "gavel"), "harmony-testbed-gavel");
}

}  // namespace
}  // namespace dmlkit::cluster
