// Sim-to-real calibration measured by a replay, on the fake Slurm (no daemons, virtual time): a
// start latency injected into the fake is measured back, and the simulator given the measured
// calibration predicts the replay's JCTs where the uncalibrated one does not.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cluster/model/cluster_spec.h"
#include "cluster/policy.h"
#include "cluster/sim/calibration.h"
#include "cluster/sim/simulator.h"
#include "cluster/workload/workload.h"
#include "core/data_dir.h"
#include "live/fake_slurm.h"
#include "live/replay.h"

namespace dmlkit::live {
namespace {

namespace cl = dmlkit::cluster;
namespace fs = std::filesystem;

struct ReplayRig {
  FakeSlurm slurm;
  fs::path dir;
  ReplayOptions ro;
  std::ostringstream log;
  ReplayRig(const std::string& tag, const std::string& csv) {
    dir = fs::temp_directory_path() / ("dmlkit-calib-" + tag + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir / "w.csv") << csv;
    slurm.add_nodes(2, 4);
    slurm.set_done_file_jobs(true);
    ro.workload = (dir / "w.csv").string();
    ro.time_scale = 0.01;
    ro.round_s = 60;
    ro.restart_delay_s = 30;
    ro.poll_s = 0.1;
    ro.work_dir = (dir / "work").string();
    ro.max_wall_s = 120;
    ro.log = &log;
  }
  ~ReplayRig() { fs::remove_all(dir); }
  // The simulator on the replay's jobs and cluster, with `config`.
  cl::SimResult simulate(const cl::SimConfig& config) const {
    cl::WorkloadOptions wo;
    wo.data_dir = default_data_dir();
    const cl::Workload w = cl::load_workload(ro.workload, wo);
    auto policy = cl::make_policy(ro.policy, ro.policy_options);
    return cl::simulate(cl::ClusterSpec::homogeneous(2, 4), w, ro.policy, *policy, config);
  }
};

double avg_jct(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

TEST(LiveCalibration, AnInjectedStartLatencyIsMeasuredBackAndThenPredicted) {
  // Three jobs; the third needs both nodes and waits for the first two.
  ReplayRig rig("start", "name,time,num_gpus,duration\na,0,4,1500\nb,300,4,1500\nc,600,8,1000\n");
  rig.ro.policy = "fifo";
  rig.slurm.set_start_delay(1.5);  // wall seconds from release to RUNNING: 150 model s at 0.01
  const ReplayResult r = run_replay(rig.slurm, rig.ro);
  for (const auto& j : rig.slurm.jobs()) rig.log << "job " << j.id << " " << j.state << " " << j.reason << "\n";
  for (const auto& h : rig.slurm.history()) rig.log << h << "\n";
  ASSERT_TRUE(r.complete) << rig.log.str();
  const cl::Calibration cal = replay_calibration(r, rig.ro);
  EXPECT_EQ(cal.start.samples, 3);
  // Released at a poll, started at the first tick 1.5 s later, seen at the poll after: 1.5-1.7 s.
  EXPECT_GE(cal.start.mean_s, 1.5);
  EXPECT_LE(cal.start.mean_s, 1.7);
  EXPECT_EQ(cal.restart.samples, 0);  // fifo never restarts
  EXPECT_EQ(cal.arrival.samples, 3);
  EXPECT_LE(cal.arrival.max_s, 0.25);    // submitted at the first poll after the arrival, seen at the next
  EXPECT_EQ(cal.completion.samples, 3);
  EXPECT_LE(cal.completion.max_s, 0.25);  // done file at a poll, COMPLETED at the next tick, seen after
  EXPECT_DOUBLE_EQ(cal.time_scale, 0.01);

  // The simulator without and with the calibration, against the replay's real JCTs.
  cl::SimConfig plain;
  plain.round_s = rig.ro.round_s;
  plain.restart_delay_s = rig.ro.restart_delay_s;
  plain.data_dir = default_data_dir();
  cl::SimConfig calibrated = plain;
  cl::apply_calibration(calibrated, cal);
  const cl::SimResult s0 = rig.simulate(plain);
  const cl::SimResult s1 = rig.simulate(calibrated);
  std::vector<double> real, before, after;
  for (size_t i = 0; i < r.jobs.size(); ++i) {
    ASSERT_GT(r.jobs[i].real_jct_s, 0) << rig.log.str();
    EXPECT_NEAR(r.jobs[i].sim_jct_s, s0.jobs[i].jct_s(), 1e-6);  // the replay's own simulation
    real.push_back(r.jobs[i].real_jct_s);
    before.push_back(s0.jobs[i].jct_s());
    after.push_back(s1.jobs[i].jct_s());
    EXPECT_LT(std::abs(after[i] - real[i]), std::abs(before[i] - real[i])) << r.jobs[i].name;
  }
  const double gap_before = (avg_jct(real) - avg_jct(before)) / avg_jct(before);
  const double gap_after = (avg_jct(real) - avg_jct(after)) / avg_jct(after);
  EXPECT_GT(gap_before, 0.08) << "the injected latency makes the real run slower";
  EXPECT_LT(std::abs(gap_after), 0.02) << "calibrated: within 2%";
}

TEST(LiveCalibration, RestartAndPreemptionLatenciesAreMeasuredOnPreemption) {
  // Tiresias preempts the 8-GPU job for the two 4-GPU jobs and places it again afterwards.
  ReplayRig rig("restart", "name,time,num_gpus,duration\nbig,0,8,800\nsmall-1,150,4,100\nsmall-2,160,4,100\n");
  rig.ro.policy = "tiresias";
  rig.ro.policy_options.params["tiresias.queues"] = "2";
  rig.ro.policy_options.params["tiresias.thresholds"] = "500";
  rig.ro.round_s = 20;
  rig.ro.restart_delay_s = 10;
  rig.slurm.set_start_delay(1.0);
  const ReplayResult r = run_replay(rig.slurm, rig.ro);
  ASSERT_TRUE(r.complete) << rig.log.str();
  ASSERT_GE(r.jobs[0].real_restarts, 2) << rig.log.str();
  const cl::Calibration cal = replay_calibration(r, rig.ro);
  EXPECT_GE(cal.restart.samples, 1) << rig.log.str();
  EXPECT_GE(cal.restart.mean_s, 1.0);  // at least the injected delay (plus the requeue settle)
  EXPECT_GE(cal.preemption.samples, 1) << rig.log.str();
  EXPECT_LE(cal.preemption.max_s, 0.25);  // requeuehold frees at once in the fake, seen at the next poll
  EXPECT_EQ(cal.start.samples, 3);
  // Each run of the real timeline is inside the replay, and the big job's runs do not overlap.
  const auto& runs = r.jobs[0].real_runs;
  ASSERT_GE(runs.size(), 2u);
  for (size_t i = 0; i + 1 < runs.size(); ++i) EXPECT_LE(runs[i].end_s, runs[i + 1].start_s);
  for (const auto& run : runs) EXPECT_EQ(run.gpus, 8);
}

// A job whose script fails is retried up to --max-retries times; the replay reports it failed
// (and the run incomplete) and the other job is unaffected.
TEST(LiveCalibration, AReplayRetriesAFailingJobThenReportsItFailed) {
  ReplayRig rig("fail", "name,time,num_gpus,duration\na,0,4,500\nb,0,4,500\n");
  rig.ro.policy = "fifo";
  rig.ro.max_retries = 1;
  rig.ro.max_wall_s = 60;
  rig.slurm.fail_runs_of("dmlkit-a", 1000);  // a's script exits non-zero every time
  const ReplayResult r = run_replay(rig.slurm, rig.ro);
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(r.failed, 1) << rig.log.str();
  ASSERT_EQ(r.jobs.size(), 2u);
  EXPECT_EQ(r.jobs[0].real_state, "FAILED");
  EXPECT_LT(r.jobs[0].real_jct_s, 0);
  EXPECT_EQ(r.jobs[0].real_restarts, 2) << rig.log.str();  // the first run and one retry
  EXPECT_EQ(r.jobs[1].real_state, "COMPLETED");
  EXPECT_GT(r.jobs[1].real_jct_s, 0);
  EXPECT_NE(rig.log.str().find("after 1 retry (--max-retries 1); reported as failed"), std::string::npos)
      << rig.log.str();
}


// Every Slurm call is timed (live/timed_backend.h): a fake whose calls cost known wall times has
// them measured back, with the raw samples; the latencies a calibration gives the fake are those.
TEST(LiveCalibration, CommandLatenciesAreMeasuredAndGivenBackToTheFake) {
  ReplayRig rig("cmd", "name,time,num_gpus,duration\na,0,4,1500\nb,300,4,1500\nc,600,8,1000\n");
  rig.ro.policy = "fifo";
  FakeLatencies f;
  f.poll.value_s = 0.3;
  f.place.value_s = 0.2;
  f.release.value_s = 0.1;
  f.submit.value_s = 0.25;
  f.start.value_s = 1.0;
  rig.slurm.set_latencies(f);
  const ReplayResult r = run_replay(rig.slurm, rig.ro);
  ASSERT_TRUE(r.complete) << rig.log.str();
  const cl::Calibration cal = replay_calibration(r, rig.ro);
  EXPECT_NEAR(cal.poll.mean_s, 0.3, 1e-6);  // the virtual clock sits at 1e9 s: float rounding
  EXPECT_GT(cal.poll.samples, 10);
  EXPECT_NEAR(cal.place.mean_s, 0.2, 1e-6);
  EXPECT_NEAR(cal.release.mean_s, 0.1, 1e-6);
  EXPECT_NEAR(cal.submit.mean_s, 0.25, 1e-6);
  EXPECT_EQ(cal.place.samples, 3);
  EXPECT_EQ(cal.place.samples_s.size(), 3u);
  EXPECT_EQ(cal.requeue.samples, 0);  // fifo never preempts
  // Started 1 s after its release (measured from when release returned, 0.1 s later), seen at
  // the next poll: within a poll cycle and the round's other calls.
  EXPECT_GE(cal.start.mean_s, 0.9);
  EXPECT_LE(cal.start.mean_s, 1.8);
  const FakeLatencies back = fake_latencies(cal, cl::CalibrationStatistic::Mean, rig.ro.poll_s, 1);
  EXPECT_NEAR(back.place.value_s, 0.2, 1e-6);
  EXPECT_NEAR(back.start.offset_s, rig.ro.poll_s + 0.3, 1e-6);  // one poll cycle is the fake's own
  EXPECT_TRUE(back.start.samples_s.empty());
  const FakeLatencies drawn = fake_latencies(cal, cl::CalibrationStatistic::Sample, rig.ro.poll_s, 1);
  EXPECT_EQ(drawn.place.samples_s.size(), 3u);
}

}  // namespace
}  // namespace dmlkit::live
