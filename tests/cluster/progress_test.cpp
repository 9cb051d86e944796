// Tests of the job progress models: fixed-duration trace replay, and the profile model against
// job completion times of the Pollux reference simulator's Job.step (re-run with Python on the
// bundled profiles), its accumulation rules, gain formula, epoch boundaries and rounding.
#include "cluster/speed/progress_model.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "cluster/speed/app_profile.h"
#include "cluster/speed/fixed_duration_progress.h"
#include "cluster/speed/profile_progress.h"
#include "core/error.h"

namespace dmlkit::cluster {
namespace {

const std::string kProgressData = std::string(DMLKIT_SOURCE_DIR) + "/data";

Placement on_servers(std::initializer_list<int> gpus) {
  Placement p;
  int server = 0;
  for (int g : gpus) p.push_back(Slice{server++, g});
  return p;
}

Job profile_job(const std::string& app, int batch_size, int num_gpus = 1) {
  Job j;
  j.kind = WorkKind::Profile;
  j.application = app;
  j.batch_size = batch_size;
  j.num_gpus = num_gpus;
  j.source_file = "workload.csv";
  j.source_line = 7;
  return j;
}

ProfileProgress make_profile(const std::string& app, int batch_size, bool pollux,
                             const std::string& data = kProgressData) {
  ProgressOptions o;
  o.data_dir = data;
  o.pollux_semantics = pollux;
  return ProfileProgress(profile_job(app, batch_size), AppProfile::get(app, data), o);
}

// Runs the job in ticks of `tick_s` on `placement` from time 0 and returns its completion time.
double run_to_completion(ProfileProgress& p, const Placement& placement, double tick_s) {
  p.on_placement(placement);
  double t = 0;
  for (int i = 0; i < 1000000 && !p.finished(); ++i) t += p.advance(tick_s);
  return t;
}

// ---------------------------------------------------------------------------------------------
// Fixed duration

Job progress_trace_job(int gpus, double duration_s) {
  Job j;
  j.kind = WorkKind::FixedDuration;
  j.num_gpus = gpus;
  j.duration_s = duration_s;
  return j;
}

TEST(FixedDurationProgress, LinearScalingCappedAtTheRequest) {
  FixedDurationProgress p(progress_trace_job(2, 100), ProgressOptions{});  // 200 GPU-seconds
  EXPECT_TRUE(std::isinf(p.time_to_finish_s()));
  EXPECT_EQ(p.advance(50), 50);  // stopped: time passes, no work
  EXPECT_DOUBLE_EQ(p.remaining_gpu_s(), 200);
  p.on_placement(on_servers({1}));
  EXPECT_DOUBLE_EQ(p.time_to_finish_s(), 200);
  EXPECT_EQ(p.advance(60), 60);
  EXPECT_DOUBLE_EQ(p.remaining_gpu_s(), 140);
  p.on_placement(on_servers({4}));  // more than requested: no faster than 2 GPUs
  EXPECT_DOUBLE_EQ(p.time_to_finish_s(), 70);
  p.on_placement({});  // preempted: the work done is kept
  EXPECT_EQ(p.advance(1000), 1000);
  EXPECT_DOUBLE_EQ(p.remaining_gpu_s(), 140);
  p.on_placement(on_servers({1, 1}));
  EXPECT_DOUBLE_EQ(p.advance(100), 70);  // finishes 70 s into the interval
  EXPECT_TRUE(p.finished());
  EXPECT_EQ(p.advance(10), 0);
}

TEST(FixedDurationProgress, OracleAnswers) {
  FixedDurationProgress p(progress_trace_job(4, 100), ProgressOptions{});
  EXPECT_DOUBLE_EQ(p.remaining_time_s(4), 100);
  EXPECT_DOUBLE_EQ(p.remaining_time_s(8), 100);
  EXPECT_DOUBLE_EQ(p.remaining_time_s(2), 200);
  EXPECT_TRUE(std::isinf(p.remaining_time_s(0)));
  EXPECT_DOUBLE_EQ(p.step_time_s(1), 400);
  EXPECT_EQ(p.remaining_iterations(), 0);
  EXPECT_EQ(p.max_gpus(), 4);
}

TEST(FixedDurationProgress, AdvancingByTimeToFinishFinishes) {
  FixedDurationProgress p(progress_trace_job(3, 1234.567), ProgressOptions{});
  p.on_placement(on_servers({2}));
  p.advance(17.3);
  const double rest = p.time_to_finish_s();
  EXPECT_NEAR(p.advance(rest), rest, 1e-9);
  EXPECT_TRUE(p.finished());
}

TEST(FixedDurationProgress, ExtraServerSlowdownIsOffByDefaultAndConfigurable) {
  FixedDurationProgress plain(progress_trace_job(4, 100), ProgressOptions{});
  EXPECT_DOUBLE_EQ(plain.rate_on(on_servers({2, 2})), 4);
  ProgressOptions o;
  o.extra_server_slowdown = 0.5;
  o.gpus_per_server = 4;
  FixedDurationProgress slow(progress_trace_job(4, 100), o);
  EXPECT_DOUBLE_EQ(slow.rate_on(on_servers({4})), 4);           // fits one server
  EXPECT_DOUBLE_EQ(slow.rate_on(on_servers({2, 2})), 4 / 1.5);  // one extra server
  EXPECT_DOUBLE_EQ(slow.rate_on(on_servers({1, 1, 1, 1})), 4 / 2.5);
  FixedDurationProgress eight(progress_trace_job(8, 100), o);
  EXPECT_DOUBLE_EQ(eight.rate_on(on_servers({4, 4})), 8);  // needs two servers anyway
}

// ---------------------------------------------------------------------------------------------
// make_job_progress

TEST(MakeJobProgress, DispatchesOnKindAndRejectsUnknownApplications) {
  ProgressOptions o;
  o.data_dir = kProgressData;
  EXPECT_NE(dynamic_cast<FixedDurationProgress*>(make_job_progress(progress_trace_job(1, 10), o).get()), nullptr);
  EXPECT_NE(dynamic_cast<ProfileProgress*>(make_job_progress(profile_job("cifar10", 2048), o).get()), nullptr);
  try {
    make_job_progress(profile_job("resnet50", 256), o);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), "workload.csv");
    EXPECT_EQ(e.line(), 7);
    EXPECT_EQ(e.field(), "application");
    EXPECT_NE(std::string(e.what()).find("resnet50"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("cifar10"), std::string::npos);
  }
  try {
    make_job_progress(profile_job("cifar10", 64), o);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "batch_size");
  }
}

// ---------------------------------------------------------------------------------------------
// Profile model

// Completion times of single jobs run alone from t = 0 in 60 s ticks (no restart delay), from a
// Python re-run of the reference Job.step / update_local_bsz on the same profiles.
TEST(ProfileProgress, CompletionTimesMatchTheReference) {
  struct Case {
    const char* app;
    int batch_size;
    Placement placement;
    double jct_s;
    int atomic_bsz, accum_steps;
  };
  const Case cases[] = {
      {"cifar10", 128, on_servers({1}), 4000, 128, 0},
      {"bert", 384, on_servers({4, 4, 4, 4}), 1324, 12, 1},
      {"ncf", 32768, on_servers({1}), 47, 16384, 1},
      {"yolov3", 64, on_servers({2, 2}), 24851, 8, 1},
      {"imagenet", 3200, on_servers({4, 4, 4, 4, 4, 4}), 31805, 134, 0},
      {"deepspeech2", 320, on_servers({4, 2}), 4142, 54, 0},
      {"cifar10", 2048, on_servers({4, 4, 3, 1, 4}), 562, 128, 0},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.app) + " " + std::to_string(c.batch_size));
    ProfileProgress p = make_profile(c.app, c.batch_size, true);
    EXPECT_EQ(run_to_completion(p, c.placement, 60), c.jct_s);
    EXPECT_EQ(p.atomic_bsz(), c.atomic_bsz);
    EXPECT_EQ(p.accum_steps(), c.accum_steps);
    EXPECT_EQ(p.epoch(), AppProfile::get(c.app, kProgressData).max_epochs());
  }
}

TEST(ProfileProgress, OneGpuJobTrainsMaxEpochs) {
  const auto& app = AppProfile::get("cifar10", kProgressData);
  ProfileProgress p = make_profile("cifar10", 128, false);
  p.on_placement(on_servers({1}));
  int last_epoch = 0;
  double t = 0;
  while (!p.finished()) {
    t += p.advance(600);
    EXPECT_GE(p.epoch(), last_epoch);
    last_epoch = p.epoch();
  }
  EXPECT_EQ(p.epoch(), 100);
  EXPECT_DOUBLE_EQ(p.progress(), app.progress_at_epoch(100));
  // Exact (unrounded) semantics: the sum of the exact epoch times, close to the rounded 4000 s.
  EXPECT_NEAR(t, 4000, 50);
}

TEST(ProfileProgress, GoodputIsGainOverIterationTime) {
  const auto& app = AppProfile::get("cifar10", kProgressData);
  ProfileProgress p = make_profile("cifar10", 2048, true);
  p.on_placement(on_servers({4, 2}));  // 6 replicas: local 342, no accumulation
  ASSERT_EQ(p.atomic_bsz(), 342);
  ASSERT_EQ(p.batch_size(), 2052);
  const StepSyncTime st = app.step_sync_time(std::vector<int>{4, 2}, 342);
  EXPECT_DOUBLE_EQ(p.step_s(), st.step_s);
  const GradStats g = app.grad_stats(2052, 0);
  const double scale = 2052.0 / 128.0;
  const double gain = (g.var + g.sqr) / (g.var / scale + g.sqr);
  EXPECT_GT(gain, 1.0);
  EXPECT_LT(gain, scale);
  EXPECT_DOUBLE_EQ(p.goodput(), gain / st.step_s);
  // With accumulation the iteration time is step + (step - sync) * accum_steps.
  ProfileProgress q = make_profile("cifar10", 256, true);
  q.on_placement(on_servers({1}));
  ASSERT_EQ(q.accum_steps(), 1);
  const StepSyncTime s1 = app.step_sync_time(std::vector<int>{1}, 128);
  const GradStats g1 = app.grad_stats(256, 0);
  const double gain1 = (g1.var + g1.sqr) / (g1.var / 2.0 + g1.sqr);
  EXPECT_DOUBLE_EQ(q.goodput(), gain1 / (s1.step_s + (s1.step_s - s1.sync_s)));
}

TEST(ProfileProgress, EpochBoundariesComeFromTheProgressCurve) {
  const auto& app = AppProfile::get("cifar10", kProgressData);
  ProfileProgress p = make_profile("cifar10", 128, false);
  p.on_placement(on_servers({1}));
  const double first = app.progress_at_epoch(1) / p.goodput();
  EXPECT_EQ(p.advance(first / 2), first / 2);
  EXPECT_EQ(p.epoch(), 0);
  EXPECT_NEAR(p.progress(), app.progress_at_epoch(1) / 2, 1e-9);
  p.advance(first / 2);
  EXPECT_EQ(p.epoch(), 1);
  EXPECT_DOUBLE_EQ(p.progress(), app.progress_at_epoch(1));
  // Preemption keeps epoch and progress; a stopped job does not progress.
  p.on_placement({});
  EXPECT_EQ(p.advance(60), 60);
  EXPECT_EQ(p.epoch(), 1);
  EXPECT_TRUE(std::isinf(p.time_to_finish_s()));
}

TEST(ProfileProgress, AdvancingByTimeToFinishFinishes) {
  for (bool pollux : {false, true}) {
    ProfileProgress p = make_profile("deepspeech2", 320, pollux);
    p.on_placement(on_servers({4, 2}));
    p.advance(123);
    const double rest = p.time_to_finish_s();
    EXPECT_GT(rest, 0);
    p.advance(rest);
    EXPECT_TRUE(p.finished()) << (pollux ? "pollux" : "default");
  }
}

TEST(ProfileProgress, OracleAnswers) {
  ProfileProgress p = make_profile("cifar10", 128, true);
  EXPECT_DOUBLE_EQ(p.step_time_s(1), 0.11915867463350291);  // reference predict_step_time
  EXPECT_DOUBLE_EQ(p.remaining_iterations(), 38672);
  EXPECT_EQ(p.max_gpus(), 4);  // 128 // 32
  EXPECT_EQ(make_profile("cifar10", 2048, true).max_gpus(), 64);
  EXPECT_EQ(make_profile("ncf", 32768, true).max_gpus(), 1);
  EXPECT_EQ(make_profile("bert", 384, true).max_gpus(), 64);  // 96, capped at the data's 64
  EXPECT_EQ(make_profile("yolov3", 64, true).max_gpus(), 16);
  // remaining_time_s from the start on a packed placement equals the time to finish there.
  ProfileProgress q = make_profile("imagenet", 3200, false);
  const double predicted = q.remaining_time_s(8);
  q.on_placement(on_servers({4, 4}));
  EXPECT_NEAR(predicted, q.time_to_finish_s(), 1e-9 * predicted);
  EXPECT_TRUE(std::isinf(q.remaining_time_s(0)));
}

TEST(ProfileProgress, LargeServersAreSplitInTheDefaultProfileOnly) {
  ProfileProgress d = make_profile("cifar10", 2048, false);
  d.on_placement(Placement{Slice{0, 8}});
  ProfileProgress e = make_profile("cifar10", 2048, false);
  e.on_placement(on_servers({4, 4}));
  EXPECT_DOUBLE_EQ(d.step_s(), e.step_s());
  ProfileProgress strict = make_profile("cifar10", 2048, true);
  EXPECT_THROW(strict.on_placement(Placement{Slice{0, 8}}), Error);
}

// A hand-made profile where both epoch crossings fall on exactly x.5 seconds: the reference's
// Python round() rounds them to even (2.5 -> 2), the default profile keeps them exact.
TEST(ProfileProgress, PolluxRoundingIsHalfToEven) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("dmlkit-progress-test-" + std::to_string(::getpid()));
  const fs::path dir = root / "app-profiles" / "bert";  // bert: 2 epochs
  fs::create_directories(dir);
  std::ofstream(dir / "placements.csv") << "placement,local_bsz,step_time,sync_time\n1,4,1.0,0.0\n1,16,1.0,0.0\n";
  std::ofstream(dir / "scalability.csv") << "num_nodes,num_replicas,local_bsz,step_time,sync_time\n";
  for (const char* b : {"8", "16"}) {
    std::ofstream(dir / (std::string("validation-") + b + ".csv"))
        << "progress,iteration,metric,grad_sqr,grad_var\n2.5,2,0.5,1.0,0.0\n5.0,5,0.6,1.0,0.0\n";
  }
  ProfileProgress rounded = make_profile("bert", 8, true, root.string());
  rounded.on_placement(on_servers({1}));
  EXPECT_DOUBLE_EQ(rounded.goodput(), 1.0);
  EXPECT_EQ(rounded.advance(60), 4.0);  // round(2.5) + round(2.5) = 2 + 2
  EXPECT_TRUE(rounded.finished());
  ProfileProgress exact = make_profile("bert", 8, false, root.string());
  exact.on_placement(on_servers({1}));
  EXPECT_DOUBLE_EQ(exact.advance(60), 5.0);
  EXPECT_TRUE(exact.finished());
  fs::remove_all(root);
}

}  // namespace
}  // namespace dmlkit::cluster
