// Parameter-server jobs (Harmony's world: user-given worker and PS counts, placed once by a
// placement policy) through the live controller, on the fake Slurm: the comment carries the job's
// type and counts, the controller rebuilds the same job, the policy sees its tasks, Slurm gets the
// nodes of its workers, and a replay runs them to completion where the simulator does.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "cluster/model/ps_job.h"
#include "cluster/workload/ps_job_of_type.h"
#include "core/data_dir.h"
#include "live/controller.h"
#include "live/fake_slurm.h"
#include "live/job_meta.h"
#include "live/replay.h"

namespace dmlkit::live {
namespace {

namespace cl = dmlkit::cluster;
namespace fs = std::filesystem;

TEST(LivePsJobs, TheCommentCarriesAPsJobsTypeCountsEpochsAndSeed) {
  JobMeta m;
  m.ps_type = "ctc";
  m.workers = 3;
  m.ps = 2;
  m.epochs = 40.25;
  m.seed = 18446744073709551615ULL;  // 20 digits: seeds of CSV rows use the whole range
  m.name = "ctc-1";
  std::string problem;
  const JobMeta back = parse_job_meta(format_job_meta(m), &problem);
  EXPECT_EQ(problem, "");
  EXPECT_EQ(back.ps_type, "ctc");
  EXPECT_EQ(back.workers, 3);
  EXPECT_EQ(back.ps, 2);
  EXPECT_DOUBLE_EQ(back.epochs, 40.25);
  EXPECT_FALSE(back.async);
  EXPECT_EQ(back.seed, 18446744073709551615ULL);
  // Hostile values are ignored and reported, never thrown.
  const JobMeta bad = parse_job_meta("dmlkit:ps_type=a;rm,workers=0,ps=x,epochs=-1,mode=fast,seed=18446744073709551616",
                                     &problem);
  EXPECT_EQ(bad.ps_type, "");
  EXPECT_EQ(bad.workers, 0);
  EXPECT_EQ(bad.seed, 0u);
  EXPECT_NE(problem.find("seed"), std::string::npos);
}

// A Harmony job submitted with its comment is shown to a placement policy as that PS job; the
// policy's task placement becomes the Slurm node list of its workers, and the policy sees the
// tasks (workers and PSs per server) while it runs.
TEST(LivePsJobs, APlacementPolicyPlacesAHarmonyJobsWorkersOnTheNodesItChose) {
  FakeSlurm slurm;
  slurm.add_nodes(3, 4);
  JobMeta m;
  m.ps_type = "resnext-110";
  m.workers = 3;
  m.ps = 2;
  m.epochs = 5;
  m.seed = 7;
  m.name = "resnext-0";
  JobRequest q;
  q.name = "resnext-0";
  q.nodes = 1;
  q.gpus_per_node = 3;
  q.comment = format_job_meta(m);
  const int64_t id = slurm.submit(q);
  cl::PolicyOptions po;
  auto policy = cl::make_policy("lif-line", po);
  ControllerOptions co;
  co.policy_name = "lif-line";
  co.round_s = 60;
  co.time_scale = 1;
  co.poll_s = 1;
  co.data_dir = default_data_dir();
  std::ostringstream log;
  co.log = &log;
  Controller c(slurm, *policy, co);
  c.start();
  c.run([&] { return slurm.now_s() > 1.0e9 + 5; });
  const SlurmJob* j = slurm.job(id);
  ASSERT_NE(j, nullptr);
  ASSERT_TRUE(j->active_running()) << log.str();
  int gpus = 0;
  Alloc alloc;
  for (const auto& a : j->allocation) {
    gpus += a.gpus;
    alloc.emplace_back(a.node, a.gpus);
  }
  EXPECT_EQ(gpus, 3);  // one GPU per worker, three workers
  const cl::Placement tasks = c.placement_of(id, alloc);
  int workers = 0, ps = 0, task_gpus = 0;
  for (const auto& s : tasks) {
    workers += s.workers;
    ps += s.ps;
    task_gpus += s.gpus;
  }
  EXPECT_EQ(workers, 3) << log.str();
  EXPECT_EQ(ps, 2) << log.str();
  EXPECT_EQ(task_gpus, 3);
  // Every node Slurm runs it on holds workers of the policy's placement.
  std::set<std::string> worker_nodes;
  for (const auto& s : tasks)
    if (s.workers > 0) worker_nodes.insert("node" + std::to_string(s.server + 1));
  for (const auto& a : j->allocation) EXPECT_TRUE(worker_nodes.count(a.node)) << a.node << "\n" << log.str();
  // Placed once: nothing but one place decision.
  ASSERT_EQ(c.decisions().size(), 1u) << log.str();
  EXPECT_EQ(c.decisions()[0].action, "place");
}

// A replay of three Harmony jobs on the fake Slurm: every job completes; with no latencies and
// placements Slurm can express, the real JCTs follow the simulator's.
TEST(LivePsJobs, AReplayOfHarmonyJobsCompletesAsSimulated) {
  const fs::path dir = fs::temp_directory_path() / ("dmlkit-live-ps-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "w.csv") << "name,time,type,epochs,ps,workers\n"
                                  "ctc-0,0,ctc,2,1,2\n"
                                  "resnext-1,100,resnext-110,3,1,1\n"
                                  "vgg-2,200,vgg-16,1,1,4\n";
  FakeSlurm slurm;
  slurm.add_nodes(3, 4);
  slurm.set_done_file_jobs(true);
  ReplayOptions ro;
  ro.workload = (dir / "w.csv").string();
  ro.policy = "lif-line";
  ro.time_scale = 0.01;
  ro.round_s = 60;
  ro.restart_delay_s = 30;
  ro.poll_s = 0.1;
  ro.work_dir = (dir / "work").string();
  ro.max_wall_s = 300;
  std::ostringstream log;
  ro.log = &log;
  const ReplayResult r = run_replay(slurm, ro);
  fs::remove_all(dir);
  ASSERT_TRUE(r.complete) << log.str();
  ASSERT_EQ(r.jobs.size(), 3u);
  int places = 0;
  for (const auto& d : r.decisions) places += d.action == "place";
  EXPECT_EQ(places, 3) << log.str();  // placed once each, never moved
  for (const auto& j : r.jobs) {
    EXPECT_EQ(j.real_state, "COMPLETED") << j.name;
    EXPECT_EQ(j.real_restarts, 1) << j.name;
    ASSERT_GT(j.sim_jct_s, 0);
    // Polls and rounds add tens of model seconds; the speed is the simulator's.
    EXPECT_NEAR(j.real_jct_s, j.sim_jct_s, 0.1 * j.sim_jct_s + 120) << j.name << "\n" << log.str();
  }
}

}  // namespace
}  // namespace dmlkit::live
