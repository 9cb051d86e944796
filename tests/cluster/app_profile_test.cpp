// Tests of the measured application profiles: the step/sync-time lookup against values computed
// by the reference code path with scipy, the application constants, batch splitting, gradient
// statistics, progress curves, the Optimus oracle figures, and errors on bad data.
#include "cluster/speed/app_profile.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "cluster/speed/linear_nd_interpolator.h"
#include "core/error.h"

namespace dmlkit::cluster {
namespace {

const std::string kProfileData = std::string(DMLKIT_SOURCE_DIR) + "/data";

const AppProfile& app(const std::string& name) { return AppProfile::get(name, kProfileData); }

void expect_rel(double expected, double actual, double rel = 1e-9) {
  EXPECT_NEAR(actual, expected, rel * std::fabs(expected)) << "expected " << expected;
}

struct Golden {
  const char* app;
  std::vector<int> placement;
  double atomic_bsz;
  double step_s, sync_s;
};

// Reference values: the Pollux simulator's get_throughput (listed placement -> scipy interp1d
// over local_bsz; otherwise scipy LinearNDInterpolator over (min(num_nodes, 16), num_replicas,
// local_bsz) of the per-key means of placements.csv with scalability.csv appended), computed with
// scipy 1.10.1 LinearNDInterpolator / interp1d and pandas 1.5.3 on data/app-profiles.
const Golden kGolden[] = {
    // Unlisted placements: LinearNDInterpolator on the Delaunay triangulation.
    {"cifar10", {4, 4, 4, 4, 4, 3}, 64, 0.19036893844604483, 0.12990999011993407},
    {"cifar10", {1, 1, 1, 1, 1}, 100, 0.14918004964527326, 0.0679266939865915},
    {"imagenet", {4, 4, 4, 4, 4, 4, 4, 4, 4, 4}, 57, 0.6212256550788879, 0.2921940162658691},
    {"deepspeech2", {2, 2, 2, 2, 2, 2, 2, 2, 2}, 33.5, 1.3273059030846943, 0.34486905165021386},
    {"ncf", {1, 1, 1, 1, 1, 1}, 5000, 0.02818194400562954, 0.019050831845102693},
    {"yolov3", {4, 4, 4, 4, 4}, 6, 1.3460858389735222, 0.8157004394531249},
    // 18 nodes: num_nodes is capped at 16 (54 replicas).
    {"bert", {3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3}, 7, 1.7928460650146008, 1.1920358600616456},
    // Listed placements (after normalisation): interp1d.
    {"cifar10", {3, 2, 1}, 70, 0.13977466159396698, 0.07824640096028646},
    {"cifar10", {4, 4}, 1024, 0.8583473205566406, 0.1085828781127929},
    {"cifar10", {2, 4}, 32, 0.1585538864135742, 0.1168797103881836},
    {"bert", {4, 0, 4, 1}, 9, 1.5469946910937626, 0.8560700467427572},
};

TEST(AppProfile, StepSyncTimeMatchesScipyGoldenValues) {
  for (const auto& g : kGolden) {
    SCOPED_TRACE(std::string(g.app) + " bsz " + std::to_string(g.atomic_bsz));
    const StepSyncTime t = app(g.app).step_sync_time(g.placement, g.atomic_bsz);
    expect_rel(g.step_s, t.step_s);
    expect_rel(g.sync_s, t.sync_s);
  }
}

TEST(AppProfile, PlacementIdIsTheSmallestRotationWithoutZeros) {
  EXPECT_EQ(AppProfile::placement_id(std::vector<int>{4, 1, 1, 4}), "1144");
  EXPECT_EQ(AppProfile::placement_id(std::vector<int>{4, 0, 4, 1}), "144");
  EXPECT_EQ(AppProfile::placement_id(std::vector<int>{2, 1, 3}), "132");
  EXPECT_EQ(AppProfile::placement_id(std::vector<int>{3, 2, 1}), "132");
  EXPECT_EQ(AppProfile::placement_id(std::vector<int>{1, 3, 2}), "132");
  // Rotations compare as integer tuples, as in Python: (2, 10) < (10, 2).
  EXPECT_EQ(AppProfile::placement_id(std::vector<int>{10, 2}), "210");
  EXPECT_EQ(AppProfile::placement_id(std::vector<int>{0, 0}), "");
}

TEST(AppProfile, ListedPlacementIsExactAtMeasuredPointsAndLinearBetween) {
  const auto& c = app("cifar10");
  // placements.csv: "1,32,0.0427886962890625,..." and "1,45,0.05048525333404541,...".
  const StepSyncTime at32 = c.step_sync_time(std::vector<int>{1}, 32);
  EXPECT_DOUBLE_EQ(at32.step_s, 0.0427886962890625);
  EXPECT_DOUBLE_EQ(at32.sync_s, 0.0004995360016822816);
  const StepSyncTime at45 = c.step_sync_time(std::vector<int>{1}, 45);
  EXPECT_NEAR(at45.step_s, 0.05048525333404541, 1e-15);
  const StepSyncTime mid = c.step_sync_time(std::vector<int>{1}, 38.5);
  EXPECT_NEAR(mid.step_s, (0.0427886962890625 + 0.05048525333404541) / 2, 1e-15);
}

TEST(AppProfile, OutsideTheDataIsAnErrorOrNulloptOrClamped) {
  const auto& c = app("cifar10");
  // interp1d raises above the last measured local batch size of a listed placement.
  EXPECT_THROW(c.step_sync_time(std::vector<int>{4, 4}, 1025), Error);
  EXPECT_THROW(c.step_sync_time(std::vector<int>{4, 4}, 31), Error);
  EXPECT_FALSE(c.try_step_sync_time(std::vector<int>{4, 4}, 1025, false).has_value());
  const auto clamped = c.try_step_sync_time(std::vector<int>{4, 4}, 5000, true);
  ASSERT_TRUE(clamped.has_value());
  expect_rel(0.8583473205566406, clamped->step_s);
  // 17 nodes x 4 GPUs: 68 replicas is outside the convex hull (scipy gives NaN).
  const std::vector<int> big(17, 4);
  try {
    c.step_sync_time(big, 64);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("cifar10"), std::string::npos) << msg;
    EXPECT_NE(msg.find("(4,4,4"), std::string::npos) << msg;
  }
  EXPECT_FALSE(c.try_step_sync_time(big, 64, true).has_value());
}

TEST(AppProfile, ApplicationConstantsAreTheReferenceOnes) {
  const auto& c = app("cifar10");
  EXPECT_EQ(c.init_batch_size(), 128);
  EXPECT_EQ(c.max_batch_size(), 4096);
  EXPECT_EQ(c.min_local_bsz(), 32);
  EXPECT_EQ(c.max_local_bsz(), 1024);
  EXPECT_EQ(c.max_epochs(), 100);
  EXPECT_EQ(c.completion_epoch(), 99);
  EXPECT_EQ(c.validated_batch_sizes(), (std::vector<int>{128, 256, 512, 1024, 2048, 4096}));
  EXPECT_EQ(app("bert").max_epochs(), 2);
  EXPECT_EQ(app("ncf").max_epochs(), 10);
  EXPECT_EQ(app("imagenet").max_epochs(), 90);
  EXPECT_EQ(app("deepspeech2").max_epochs(), 80);
  EXPECT_EQ(app("yolov3").max_epochs(), 50);
  EXPECT_EQ(app("yolov3").max_local_bsz(), 8);  // given, not the data's 16
  EXPECT_EQ(app("ncf").max_local_bsz(), 32768);
  EXPECT_EQ(app("imagenet").init_batch_size(), 200);
  // max_replicas: batch_size // min_local_bsz; ncf is pinned to one GPU.
  EXPECT_EQ(c.max_replicas(2048), 64);
  EXPECT_EQ(c.max_replicas(4096), 128);
  EXPECT_EQ(app("ncf").max_replicas(32768), 1);
  EXPECT_EQ(app("bert").max_replicas(384), 96);
  EXPECT_EQ(c.max_measured_replicas(), 64);
}

TEST(AppProfile, UnknownApplicationIsAnError) {
  EXPECT_FALSE(AppProfile::is_known("resnet"));
  EXPECT_TRUE(AppProfile::is_known("yolov3"));
  EXPECT_EQ(AppProfile::known_list(), "bert, cifar10, deepspeech2, imagenet, ncf, yolov3");
  EXPECT_THROW(AppProfile::get("resnet", kProfileData), Error);
}

TEST(AppProfile, ProfilesAreLoadedOncePerProcess) {
  EXPECT_EQ(&app("cifar10"), &app("cifar10"));
  EXPECT_EQ(&AppProfile::get("bert", kProfileData), &AppProfile::get("bert", kProfileData));
}

TEST(AppProfile, BatchConfigFollowsTheAccumulationRules) {
  const auto& c = app("cifar10");
  using R = SingleReplicaAccumulation;
  // 2048 on 6 replicas: local 342 <= 1024, no accumulation.
  BatchConfig bc = c.batch_config(2048, 6, R::IfAboveInitBatch);
  EXPECT_EQ(bc.atomic_bsz, 342);
  EXPECT_EQ(bc.accum_steps, 0);
  // One replica at the initial batch size: no accumulation for a running job ...
  bc = c.batch_config(128, 1, R::IfAboveInitBatch);
  EXPECT_EQ(bc.accum_steps, 0);
  EXPECT_EQ(bc.atomic_bsz, 128);
  // ... but the Optimus predictor always accumulates on one replica.
  bc = c.batch_config(128, 1, R::Always);
  EXPECT_EQ(bc.accum_steps, 1);
  EXPECT_EQ(bc.atomic_bsz, 64);
  // Above the initial batch size on one replica: at least one accumulation step.
  bc = c.batch_config(256, 1, R::IfAboveInitBatch);
  EXPECT_EQ(bc.accum_steps, 1);
  EXPECT_EQ(bc.atomic_bsz, 128);
  // Local batch above max_local_bsz: ceil(local / max_local) - 1 accumulation steps.
  bc = c.batch_config(4096, 1, R::IfAboveInitBatch);
  EXPECT_EQ(bc.accum_steps, 3);
  EXPECT_EQ(bc.atomic_bsz, 1024);
  // bert: 384 on 16 replicas -> local 24 > 12 -> one accumulation step of 12.
  bc = app("bert").batch_config(384, 16, R::IfAboveInitBatch);
  EXPECT_EQ(bc.accum_steps, 1);
  EXPECT_EQ(bc.atomic_bsz, 12);
  // The cap: 4096 on 3 replicas -> local 1366, accum 1, atomic 683, capped at
  // int(4096 / (3 * 2)) = 682.
  bc = c.batch_config(4096, 3, R::IfAboveInitBatch);
  EXPECT_EQ(bc.accum_steps, 1);
  EXPECT_EQ(bc.atomic_bsz, 682);
  // ncf's workload jobs: 32768 on one GPU.
  bc = app("ncf").batch_config(32768, 1, R::IfAboveInitBatch);
  EXPECT_EQ(bc.accum_steps, 1);
  EXPECT_EQ(bc.atomic_bsz, 16384);
}

TEST(AppProfile, GradStatsInterpolateBetweenValidatedBatchSizes) {
  const auto& c = app("cifar10");
  // At a validated batch size: the row itself (validation-128.csv, first row).
  GradStats g = c.grad_stats(128, 0);
  EXPECT_DOUBLE_EQ(g.sqr, 8.947307535897329);
  EXPECT_DOUBLE_EQ(g.var, 5.066593295150894);
  // Between 128 and 256: linear in the batch size (reference values).
  g = c.grad_stats(192, 0);
  expect_rel(13.163382852883878, g.sqr);
  expect_rel(9.502176884548614, g.var);
  g = c.grad_stats(2052, 3);
  expect_rel(0.47163618743310987, g.sqr);
  expect_rel(3.0253963507885016, g.var);
  EXPECT_THROW(c.grad_stats(100, 0), Error);
  EXPECT_THROW(c.grad_stats(5000, 0), Error);
  EXPECT_THROW(c.grad_stats(128, 100), Error);
}

TEST(AppProfile, ProgressAtEpochIsTheMinimumOverBatchSizes) {
  const auto& c = app("cifar10");
  EXPECT_EQ(c.progress_at_epoch(0), 0.0);
  EXPECT_DOUBLE_EQ(c.progress_at_epoch(1), 390.71438596642224);  // validation-256.csv
  EXPECT_DOUBLE_EQ(c.progress_at_epoch(100), 39062.90816659533);
  EXPECT_DOUBLE_EQ(app("bert").progress_at_epoch(2), 14774.0);
  EXPECT_THROW(c.progress_at_epoch(101), Error);
}

TEST(AppProfile, OracleFiguresMatchTheReferenceOptimus) {
  const auto& c = app("cifar10");
  EXPECT_DOUBLE_EQ(c.oracle_remaining_iterations(128, 0), 38672.0);
  EXPECT_DOUBLE_EQ(c.oracle_remaining_iterations(2048, 10), 2468.0);
  expect_rel(2156.47265625, c.oracle_remaining_iterations(3000, 5));
  EXPECT_EQ(c.oracle_remaining_iterations(2048, 99), 1.0);
  // T(n) on packed placements (reference predict_step_time).
  expect_rel(0.11915867463350291, c.packed_step_time_s(128, 1));
  expect_rel(0.2687774138630561, c.packed_step_time_s(2048, 6));
  expect_rel(0.3016991853713989, c.packed_step_time_s(4096, 64));
  // 2048 on 128 replicas: atomic 16 is below every measured local batch size.
  EXPECT_TRUE(std::isinf(c.packed_step_time_s(2048, 128)));
  EXPECT_EQ(AppProfile::packed_placement(10), (std::vector<int>{4, 4, 2}));
  EXPECT_EQ(AppProfile::packed_placement(8), (std::vector<int>{4, 4}));
}

// Two unit squares: each has two valid Delaunay triangulations (its corners are cocircular) and
// f = 10xy is not linear on it, so the values tell which diagonal was chosen. Expected values
// from scipy 1.10.1 LinearNDInterpolator (triangles [1,3,0] [3,2,0] [5,3,4] [3,1,4]).
TEST(LinearNDInterpolator, ChoosesScipysTriangulationOfDegenerateGrids) {
  const std::vector<double> pts = {0, 0, 1, 0, 0, 1, 1, 1, 2, 0, 2, 1};
  std::vector<double> vals;
  for (size_t i = 0; i < pts.size(); i += 2) vals.push_back(10 * pts[i] * pts[i + 1]);
  LinearNDInterpolator f(2, pts, 1, vals);
  EXPECT_EQ(f.num_simplices(), 4);
  const double queries[][3] = {
      {0.25, 0.75, 2.5}, {0.75, 0.25, 2.5}, {1.5, 0.8, 11.0}, {1.5, 0.2, 2.0}, {2.0, 1.0, 20.0}};
  for (const auto& q : queries) {
    double out = 0;
    ASSERT_TRUE(f.evaluate(q, &out)) << q[0] << "," << q[1];
    EXPECT_NEAR(out, q[2], 1e-12) << q[0] << "," << q[1];
  }
  double out = 0;
  const double outside[] = {2.5, 0.5};
  EXPECT_FALSE(f.evaluate(outside, &out));
}

// A profile folder with one malformed cell: the Error names the file, the line and the column.
TEST(AppProfile, MalformedProfileNamesFileLineAndField) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("dmlkit-app-profile-test-" + std::to_string(::getpid()));
  const fs::path dir = root / "app-profiles" / "bert";
  fs::create_directories(dir);
  std::ofstream(dir / "placements.csv") << "placement,local_bsz,step_time,sync_time\n1,4,0.5,0.1\n1,8,abc,0.1\n";
  std::ofstream(dir / "scalability.csv") << "num_nodes,num_replicas,local_bsz,step_time,sync_time\n";
  std::ofstream(dir / "validation-8.csv") << "progress,iteration,metric,grad_sqr,grad_var\n1,1,0,1,0\n2,2,0,1,0\n";
  try {
    AppProfile::get("bert", root.string());
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_NE(e.file().find("placements.csv"), std::string::npos);
    EXPECT_EQ(e.line(), 3);
    EXPECT_EQ(e.field(), "step_time");
  }
  fs::remove_all(root);
}

}  // namespace
}  // namespace dmlkit::cluster
