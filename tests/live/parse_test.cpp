// Unit tests of live mode that need no Slurm: JSON parsing of squeue/sinfo output, host lists,
// GRES strings, the job comment convention, request shapes, failure classification, subprocesses.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/error.h"
#include "live/job_meta.h"
#include "live/process.h"
#include "live/replay.h"
#include "live/slurm_names.h"

namespace dmlkit::live {
namespace {

TEST(LiveParse, GpuCounts) {
  EXPECT_EQ(parse_gpu_count("gpu:4"), 4);
  EXPECT_EQ(parse_gpu_count("gres:gpu:2"), 2);
  EXPECT_EQ(parse_gpu_count("gpu:tesla:3"), 3);
  EXPECT_EQ(parse_gpu_count("gpu:3(IDX:0-2)"), 3);
  EXPECT_EQ(parse_gpu_count("gres/gpu=5"), 5);
  EXPECT_EQ(parse_gpu_count("license:2,gpu:1"), 1);
  EXPECT_EQ(parse_gpu_count(""), 0);
  EXPECT_EQ(parse_gpu_count("(null)"), 0);
}

TEST(LiveParse, HostLists) {
  EXPECT_EQ(expand_hostlist("node[1-3,7],gpu01"),
            (std::vector<std::string>{"node1", "node2", "node3", "node7", "gpu01"}));
  EXPECT_EQ(expand_hostlist("n[08-10]"), (std::vector<std::string>{"n08", "n09", "n10"}));
  EXPECT_TRUE(expand_hostlist("").empty());
  EXPECT_THROW(expand_hostlist("node[3-1]"), Error);
  EXPECT_THROW(expand_hostlist("node[a-b]"), Error);
}

TEST(LiveParse, SqueueJson) {
  const std::string text = R"json({"meta":{},"errors":[],"jobs":[
    {"job_id":7,"name":"a","job_state":"RUNNING","state_reason":"None","comment":"dmlkit:app=bert,batch=64",
     "priority":4294901759,"submit_time":100,"node_count":2,"tres_per_node":"gres:gpu:2","tres_per_job":"",
     "required_nodes":"node2,node3","restart_cnt":1,"minimum_cpus_per_node":3,"nodes":"node[2-3]","gres_detail":["gpu:2(IDX:0-1)","gpu:2(IDX:2-3)"],
     "job_resources":{"nodes":"node[2-3]","allocated_nodes":[{"nodename":"node2"},{"nodename":"node3"}]}},
    {"job_id":8,"name":"b","job_state":"PENDING","state_reason":"JobHeldUser","comment":"","priority":0,
     "submit_time":101,"node_count":1,"tres_per_node":"gres:gpu:4","gres_detail":[],"job_resources":{}}]})json";
  const auto jobs = parse_squeue_json(text);
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].id, 7);
  EXPECT_TRUE(jobs[0].active_running());
  EXPECT_EQ(jobs[0].requested_gpus(), 4);
  ASSERT_EQ(jobs[0].allocation.size(), 2u);
  EXPECT_EQ(jobs[0].allocation[1].node, "node3");
  EXPECT_EQ(jobs[0].allocation[1].gpus, 2);
  EXPECT_EQ(jobs[0].restarts, 1);
  EXPECT_EQ(jobs[0].cpus_per_node, 3);
  EXPECT_EQ(jobs[1].cpus_per_node, 1) << "absent: one CPU per node";
  EXPECT_TRUE(jobs[1].held());
  EXPECT_TRUE(jobs[1].pending());
  EXPECT_FALSE(jobs[1].finished());
  EXPECT_TRUE(jobs[1].allocation.empty());
  EXPECT_THROW(parse_squeue_json("not json"), Error);
  EXPECT_THROW(parse_squeue_json(R"({"errors":[{"error":"Unspecified error"}],"jobs":[]})"), Error);
  EXPECT_THROW(parse_squeue_json(R"({"jobs":[{"name":"x"}]})"), Error);
}

TEST(LiveParse, SinfoJson) {
  const std::string text = R"json({"nodes":[
    {"name":"node1","state":"idle","state_flags":[],"gres":"gpu:4","gres_used":"gpu:0"},
    {"name":"node2","state":"mixed","state_flags":["DRAIN"],"gres":"gpu:4","gres_used":"gpu:1(IDX:0)"},
    {"name":"node3","state":"down","state_flags":["NOT_RESPONDING"],"gres":"gpu:4","gres_used":"gpu:0"}]})json";
  const auto nodes = parse_sinfo_json(text);
  ASSERT_EQ(nodes.size(), 3u);
  EXPECT_TRUE(nodes[0].usable());
  EXPECT_FALSE(nodes[1].usable());
  EXPECT_FALSE(nodes[2].usable());
  EXPECT_EQ(nodes[1].gpus_used, 1);
  EXPECT_THROW(parse_sinfo_json(R"({"nodes":[{"state":"idle"}]})"), Error);
}

TEST(LiveJobMeta, RoundTripAndBadValues) {
  JobMeta m;
  m.application = "cifar10";
  m.batch_size = 2048;
  m.gpus = 6;
  m.duration_s = 12.5;
  m.name = "cifar10-0";
  const JobMeta back = parse_job_meta(format_job_meta(m));
  EXPECT_EQ(back.application, "cifar10");
  EXPECT_EQ(back.batch_size, 2048);
  EXPECT_EQ(back.gpus, 6);
  EXPECT_DOUBLE_EQ(back.duration_s, 12.5);
  EXPECT_EQ(back.name, "cifar10-0");
  std::string problem;
  const JobMeta bad = parse_job_meta("dmlkit:app=$(rm -rf /),batch=abc,gpus=-1,zzz", &problem);
  EXPECT_TRUE(bad.application.empty());
  EXPECT_EQ(bad.batch_size, 0);
  EXPECT_EQ(bad.gpus, 0);
  EXPECT_NE(problem.find("batch"), std::string::npos);
  EXPECT_TRUE(parse_job_meta("my own comment").application.empty());
}

TEST(LiveReplay, RequestShapes) {
  EXPECT_EQ(request_shape(3, 4, 4), (std::pair<int, int>{1, 3}));
  EXPECT_EQ(request_shape(6, 4, 4), (std::pair<int, int>{2, 3}));
  EXPECT_EQ(request_shape(16, 4, 4), (std::pair<int, int>{4, 4}));
  EXPECT_EQ(request_shape(7, 4, 8), (std::pair<int, int>{7, 1}));
  EXPECT_EQ(request_shape(7, 4, 4), (std::pair<int, int>{0, 0}));
  EXPECT_EQ(request_shape(32, 4, 4), (std::pair<int, int>{0, 0}));
}

TEST(LiveClient, ClassifiesFailures) {
  ProcessResult r;
  r.started = true;
  r.exit_code = 1;
  r.err = "sinfo: error: Munge encode failed: Failed to access \"/x.sock\"";
  EXPECT_EQ(classify_slurm_failure(r), SlurmError::Kind::Auth);
  r.err = "squeue: error: Unable to contact slurm controller (connect failure)";
  EXPECT_EQ(classify_slurm_failure(r), SlurmError::Kind::Unreachable);
  r.err = "scontrol: error: Invalid job id specified";
  EXPECT_EQ(classify_slurm_failure(r), SlurmError::Kind::Command);
  r.err.clear();
  r.timed_out = true;
  EXPECT_EQ(classify_slurm_failure(r), SlurmError::Kind::Unreachable);
}

TEST(LiveClient, OperatorRightsFromTheConfig) {
  const std::string no_db =
      "SlurmUser               = slurm(64030)\nAccountingStorageType   = accounting_storage/none\n";
  EXPECT_EQ(operator_rights_problem(no_db, 0), "");      // root
  EXPECT_EQ(operator_rights_problem(no_db, 64030), "");  // SlurmUser
  const std::string refused = operator_rights_problem(no_db, 1000);
  EXPECT_NE(refused.find("operator rights"), std::string::npos) << refused;
  EXPECT_NE(refused.find("slurm(64030)"), std::string::npos) << refused;
  // With an accounting database Slurm decides at the first update.
  EXPECT_EQ(
      operator_rights_problem("SlurmUser = slurm(64030)\nAccountingStorageType = accounting_storage/slurmdbd\n", 1000),
      "");
}

TEST(LiveProcess, ArgumentsAreNotInterpretedByAShell) {
  const ProcessResult r = run_process({"printf", "%s|", "a b", "$(echo x);true"}, {{"DMLKIT_T", "1"}}, 10);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.out, "a b|$(echo x);true|");
  const ProcessResult env = run_process({"sh", "-c", "printf %s \"$DMLKIT_T\""}, {{"DMLKIT_T", "v"}}, 10);
  EXPECT_EQ(env.out, "v");
  const ProcessResult slow = run_process({"sleep", "30"}, {}, 0.3);
  EXPECT_TRUE(slow.timed_out);
  EXPECT_FALSE(slow.ok());
  const ProcessResult missing = run_process({"/nonexistent/tool"}, {}, 5);
  EXPECT_FALSE(missing.started);
}

}  // namespace
}  // namespace dmlkit::live

namespace dmlkit::live {
namespace {

// Bad command lines are one-line errors with exit status 2 (no Slurm needed to get there).
TEST(LiveCli, BadInputIsAOneLineErrorWithStatus2) {
  const ProcessResult no_backend = run_process({DMLKIT_BINARY, "cluster", "serve", "--policy", "fifo"}, {}, 30);
  EXPECT_EQ(no_backend.exit_code, 2);
  EXPECT_NE(no_backend.err.find("--slurm"), std::string::npos) << no_backend.err;
  const ProcessResult bad_policy =
      run_process({DMLKIT_BINARY, "cluster", "serve", "--slurm", "--policy", "no-such-policy"}, {}, 30);
  EXPECT_EQ(bad_policy.exit_code, 2);
  EXPECT_NE(bad_policy.err.find("unknown policy"), std::string::npos) << bad_policy.err;
  const ProcessResult bad_scale =
      run_process({DMLKIT_BINARY, "cluster", "replay", "--slurm", "--time-scale", "0", "--out", "/tmp/unused"}, {}, 30);
  EXPECT_EQ(bad_scale.exit_code, 2);
  EXPECT_NE(bad_scale.err.find("--time-scale"), std::string::npos) << bad_scale.err;
  const ProcessResult no_state =
      run_process({DMLKIT_BINARY, "cluster", "status", "--slurm", "--state", "/nonexistent/state.json"}, {}, 30);
  EXPECT_EQ(no_state.exit_code, 2);
  EXPECT_NE(no_state.err.find("/nonexistent/state.json"), std::string::npos) << no_state.err;
  EXPECT_EQ(std::count(no_state.err.begin(), no_state.err.end(), '\n'), 1) << no_state.err;
  // The fake backend and its calibration.
  for (const std::vector<std::string>& bad : {std::vector<std::string>{"--fake", "8y4"},
                                              {"--fake", "0x4"},
                                              {"--fake", "8x4", "--slurm"},
                                              {"--slurm", "--calibration", "/nonexistent/c.json"},
                                              {"--fake", "2x4", "--calibration", "/nonexistent/c.json"},
                                              {"--fake", "2x4", "--calibration-statistic", "mode"},
                                              {"--fake", "2x4", "--unexpressible", "shrink"}}) {
    std::vector<std::string> argv = {DMLKIT_BINARY, "cluster", "replay", "--out", "/tmp/unused-replay-out"};
    argv.insert(argv.end(), bad.begin(), bad.end());
    const ProcessResult r = run_process(argv, {}, 30);
    EXPECT_EQ(r.exit_code, 2) << bad.back() << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  const ProcessResult bad_mode =
      run_process({DMLKIT_BINARY, "cluster", "serve", "--slurm", "--unexpressible", "later"}, {}, 30);
  EXPECT_EQ(bad_mode.exit_code, 2);
  EXPECT_EQ(bad_mode.err, "dmlkit: --unexpressible: expected wait or narrow, got 'later'\n");
  // A per-event draw is the fake's; the simulator refuses it.
  const ProcessResult sample = run_process({DMLKIT_BINARY, "cluster", "simulate", "--workload", "pollux-6", "--jobs",
                                            "2", "--calibration-statistic", "sample", "--out", "/tmp/unused-sim-out"},
                                           {}, 30);
  EXPECT_EQ(sample.exit_code, 2) << sample.err;
  EXPECT_NE(sample.err.find("replay --fake"), std::string::npos) << sample.err;
}

}  // namespace
}  // namespace dmlkit::live
