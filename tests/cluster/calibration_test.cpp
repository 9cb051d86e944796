// Sim-to-real calibration in the simulator (cluster/sim/calibration.h): the cluster-manager
// latencies add exactly where a live run pays them, and a bad calibration file is refused with the
// file and the field named.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cluster/policy.h"
#include "cluster/sim/calibration.h"
#include "cluster/sim/simulator.h"
#include "cluster/workload/workload.h"
#include "core/error.h"
#include "trace_job.h"

namespace dmlkit::cluster {
namespace {

Workload calibration_workload_of(std::vector<Job> jobs) {
  Workload w;
  w.name = "test";
  w.jobs = std::move(jobs);
  return w;
}

// Job 0 on server 0, stopped between stop_from_s and stop_until_s (one preemption).
class StopPolicy : public Policy {
 public:
  double stop_from_s = 1e18, stop_until_s = 1e18;
  void schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) override {
    for (size_t i = 0; i < jobs.size(); ++i) {
      if (view.now_s >= stop_from_s && view.now_s < stop_until_s)
        out[i].clear();
      else
        out[i] = Placement{{0, jobs[i].job->num_gpus}};
    }
  }
};

SimConfig config() {
  SimConfig c;
  c.round_s = 60;
  c.restart_delay_s = 30;
  return c;
}

TEST(SimCalibration, StartAndRestartLatenciesArePaidLikeTheRestartDelay) {
  const auto cluster = ClusterSpec::homogeneous(1, 4);
  const auto w = calibration_workload_of({trace_job(0, 0, 2, 300)});
  StopPolicy policy;
  policy.stop_from_s = 120;
  policy.stop_until_s = 240;
  SimConfig c = config();
  c.start_latency_s = 7;
  c.restart_latency_s = 11;
  const SimResult r = simulate(cluster, w, "stop", policy, c);
  // Runs 0..120: 30 s delay + 7 s start latency, then 83 s of work; waits 120..240; restarts:
  // 30 s delay + 11 s restart latency + the 217 s of work left.
  EXPECT_DOUBLE_EQ(r.jobs[0].finish_s, 240 + 30 + 11 + 217);
  EXPECT_EQ(r.jobs[0].preemptions, 1);
  // A job never preempted pays the start latency once and no restart latency.
  StopPolicy never;
  const SimResult one = simulate(cluster, w, "stop", never, c);
  EXPECT_DOUBLE_EQ(one.jobs[0].finish_s, 30 + 7 + 300);
  // With the first start's restart delay off, the start latency is still paid.
  SimConfig free_first = c;
  free_first.charge_first_start = false;
  EXPECT_DOUBLE_EQ(simulate(cluster, w, "stop", never, free_first).jobs[0].finish_s, 7 + 300);
}

TEST(SimCalibration, ArrivalLatencyDelaysTheJobButItsJctCountsFromItsArrival) {
  const auto cluster = ClusterSpec::homogeneous(1, 4);
  const auto w = calibration_workload_of({trace_job(0, 10, 2, 100), trace_job(1, 50, 2, 100)});
  StopPolicy policy;
  SimConfig base = config();
  base.schedule_on_events = true;
  const SimResult r0 = simulate(cluster, w, "stop", policy, base);
  SimConfig c = base;
  c.arrival_latency_s = 5;
  const SimResult r = simulate(cluster, w, "stop", policy, c);
  ASSERT_EQ(r.jobs.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_DOUBLE_EQ(r.jobs[i].arrival_s, w.jobs[i].arrival_s);  // the workload's arrival
    EXPECT_DOUBLE_EQ(r.jobs[i].first_start_s, r0.jobs[i].first_start_s + 5);
    EXPECT_DOUBLE_EQ(r.jobs[i].jct_s(), r0.jobs[i].jct_s() + 5);
  }
  EXPECT_DOUBLE_EQ(r.makespan_s, r0.makespan_s + 5);
  c.arrival_latency_s = -1;
  EXPECT_THROW(simulate(cluster, w, "stop", policy, c), Error);
}

TEST(SimCalibration, FileRoundTripsAndConvertsAtTheTimeScale) {
  Calibration cal;
  cal.time_scale = 0.01;
  cal.arrival = latency_stat({0.1, 0.3});
  cal.start = latency_stat({0.5, 0.7, 0.9});
  cal.completion = latency_stat({0.2});
  cal.preemption = latency_stat({0.05});
  // No restart samples: restarts use the start latency.
  EXPECT_EQ(cal.restart.samples, 0);
  EXPECT_DOUBLE_EQ(cal.start.mean_s, 0.7);
  EXPECT_DOUBLE_EQ(cal.start.p50_s, 0.7);
  EXPECT_DOUBLE_EQ(cal.start.max_s, 0.9);
  const auto path = (std::filesystem::temp_directory_path() / "dmlkit-calibration-test.json").string();
  std::ofstream(path) << calibration_json(cal);
  const Calibration back = read_calibration(path);
  EXPECT_DOUBLE_EQ(back.time_scale, 0.01);
  EXPECT_DOUBLE_EQ(back.start.mean_s, 0.7);
  EXPECT_EQ(back.start.samples, 3);
  SimConfig c;
  apply_calibration(c, back);
  EXPECT_NEAR(c.arrival_latency_s, 20, 1e-9);  // 0.2 wall s / 0.01
  EXPECT_NEAR(c.start_latency_s, 90, 1e-9);    // (0.7 start + 0.2 completion) / 0.01
  EXPECT_NEAR(c.restart_latency_s, 70, 1e-9);  // the start latency, no restart samples
  apply_calibration(c, back, 0.05);            // predicting a run at another time scale
  EXPECT_NEAR(c.start_latency_s, 18, 1e-9);
  std::filesystem::remove(path);
}

TEST(SimCalibration, BadFilesNameTheFileAndTheField) {
  const auto path = (std::filesystem::temp_directory_path() / "dmlkit-calibration-bad.json").string();
  auto field_of = [&](const std::string& text) -> std::string {
    std::ofstream(path) << text;
    try {
      (void)read_calibration(path);
    } catch (const Error& e) {
      EXPECT_EQ(e.file(), path);
      return e.field().empty() ? "<file>" : e.field();
    }
    return "<accepted>";
  };
  Calibration ok;
  ok.time_scale = 0.01;
  const std::string good = calibration_json(ok);
  EXPECT_EQ(field_of(good), "<accepted>");
  EXPECT_EQ(field_of("{not json"), "<file>");
  EXPECT_EQ(field_of("{\"schema\": \"other\"}"), "schema");
  auto edit = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    const auto at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  };
  EXPECT_EQ(field_of(edit("\"schema_version\": 1", "\"schema_version\": 2")), "schema_version");
  EXPECT_EQ(field_of(edit("\"time_scale\": 0.01", "\"time_scale\": 0")), "time_scale");
  EXPECT_EQ(field_of(edit("\"time_scale\": 0.01", "\"time_scale\": \"fast\"")), "time_scale");
  EXPECT_EQ(field_of(edit("\"mean_s\": 0.0", "\"mean_s\": -1")), "latencies_wall_s.arrival.mean_s");
  EXPECT_EQ(field_of(edit("\"start\": {", "\"begin\": {")), "latencies_wall_s.start");
  std::filesystem::remove(path);
  try {
    (void)read_calibration(path);
    ADD_FAILURE() << "a missing file was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), path);
  }
}

}  // namespace
}  // namespace dmlkit::cluster
