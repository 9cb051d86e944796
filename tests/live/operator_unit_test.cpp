// The operator features of `cluster serve` without Slurm (issue 36, items 3 and 4): what a scope
// manages, squeue/sinfo's partition, account, user and GPU type, a dry run and an account scope on
// the fake Slurm, the Prometheus text and the status page (escaped).
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "cluster/policy.h"
#include "core/error.h"
#include "live/controller.h"
#include "live/dry_run_backend.h"
#include "live/fake_slurm.h"
#include "live/job_scope.h"
#include "live/live_metrics.h"
#include "live/process.h"
#include "live/slurm_names.h"
#include "live/timed_backend.h"

namespace dmlkit::live {
namespace {

namespace cl = dmlkit::cluster;

SlurmJob job_in(const std::string& partition, const std::string& account, const std::string& user) {
  SlurmJob j;
  j.partition = partition;
  j.account = account;
  j.user = user;
  return j;
}

TEST(LiveScope, ManagesOnlyJobsWhosePartitionsAccountAndUserAreListed) {
  JobScope everything;
  EXPECT_TRUE(everything.manages(job_in("any", "", "bob")));
  JobScope scope{{"gpu-a", "gpu-b"}, {"research"}, {}};
  EXPECT_TRUE(scope.manages(job_in("gpu-a", "research", "bob")));
  EXPECT_TRUE(scope.manages(job_in("gpu-a,gpu-b", "research", "bob")));
  EXPECT_FALSE(scope.manages(job_in("gpu-a,cpu", "research", "bob"))) << "it may run outside our partitions";
  EXPECT_FALSE(scope.manages(job_in("cpu", "research", "bob")));
  EXPECT_FALSE(scope.manages(job_in("gpu-a", "teaching", "bob")));
  EXPECT_FALSE(scope.manages(job_in("gpu-a", "", "bob")));
  JobScope users{{}, {}, {"alice"}};
  EXPECT_TRUE(users.manages(job_in("x", "y", "alice")));
  EXPECT_FALSE(users.manages(job_in("x", "y", "bob")));
  SlurmNode n;
  n.partitions = {"cpu", "gpu-b"};
  EXPECT_TRUE(scope.covers(n));
  n.partitions = {"cpu"};
  EXPECT_FALSE(scope.covers(n));
  EXPECT_TRUE(users.covers(n));
  EXPECT_EQ(scope.describe(), "partition gpu-a,gpu-b, account research");
  EXPECT_EQ(everything.describe(), "every job");
}

TEST(LiveScope, RefusesNamesThatAreNotSlurmNames) {
  EXPECT_NO_THROW(check_scope_names("--partition", {"gpu-a", "p_1.x"}));
  EXPECT_THROW(check_scope_names("--partition", {""}), Error);
  EXPECT_THROW(check_scope_names("--user", {"a b"}), Error);
  try {
    check_scope_names("--account", {"x;rm"});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--account"), std::string::npos) << e.what();
  }
}

TEST(LiveParse, JobPartitionAccountUserAndNodePartitionsAndGpuType) {
  const auto jobs = parse_squeue_json(
      R"({"jobs":[{"job_id":7,"job_state":"PENDING","partition":"gpu-a","account":"research","user_name":"alice"}]})");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].partition, "gpu-a");
  EXPECT_EQ(jobs[0].account, "research");
  EXPECT_EQ(jobs[0].user, "alice");
  const auto nodes = parse_sinfo_json(R"json({"nodes":[{"name":"n1","state":"idle","gres":"gpu:a100:4",
      "gres_used":"gpu:a100:1(IDX:0)","partitions":["gpu-a","all"]}]})json");
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_EQ(nodes[0].partitions, (std::vector<std::string>{"gpu-a", "all"}));
  EXPECT_EQ(nodes[0].gpu_type, "a100");
  EXPECT_EQ(nodes[0].gpus, 4);
  EXPECT_EQ(parse_gpu_type("gpu:4"), "");
  EXPECT_EQ(parse_gpu_type("gres:gpu:v100:2"), "v100");
  EXPECT_EQ(parse_gpu_type("license:2"), "");
}

struct FakeRig {
  FakeSlurm slurm;
  ControllerOptions options;
  std::ostringstream log;
  FakeRig() {
    slurm.add_nodes(2, 4);
    options.policy_name = "fifo";
    options.round_s = 1;
    options.poll_s = 0.5;
    options.log = &log;
  }
  int64_t submit(int gpus, const std::string& account = "") {
    JobRequest q;
    q.gpus_per_node = gpus;
    q.account = account;
    q.script = "job.sh";
    const int64_t id = slurm.submit(q);
    slurm.set_run_time(id, 3);
    return id;
  }
  // A command about job `id` among the history's entries from `from` on ("place 3 node1 gpu:4", ...).
  bool touched(int64_t id, size_t from = 0) const {
    const auto& h = slurm.history();
    return std::any_of(h.begin() + static_cast<std::ptrdiff_t>(std::min(from, h.size())), h.end(),
                       [&](const std::string& line) {
                         std::istringstream words(line);
                         std::string command, job;
                         words >> command >> job;
                         return command != "submit" && job == std::to_string(id);
                       });
  }
};

TEST(LiveServeDryRun, DecidesLogsEachDecisionOnceAndChangesNothing) {
  FakeRig rig;
  const int64_t a = rig.submit(4), b = rig.submit(4);
  rig.options.dry_run = true;
  DryRunBackend dry(rig.slurm);
  auto policy = cl::make_policy("fifo", {});
  Controller c(dry, *policy, rig.options);
  c.start();
  const double end = rig.slurm.now_s() + 10;  // ~10 rounds
  c.run([&] { return rig.slurm.now_s() >= end; });
  ASSERT_EQ(c.decisions().size(), 2u) << rig.log.str();
  for (const auto& d : c.decisions()) EXPECT_EQ(d.action, "place");
  EXPECT_FALSE(rig.touched(a) || rig.touched(b)) << "a dry run changes nothing in Slurm";
  EXPECT_TRUE(rig.slurm.job(a)->held() && rig.slurm.job(b)->held());
  EXPECT_NE(rig.log.str().find("[dry run] "), std::string::npos) << rig.log.str();
}

TEST(LiveServeScope, JobsOfAnotherAccountAreNeverTouchedNorShownToThePolicy) {
  FakeRig rig;
  const int64_t mine = rig.submit(4, "research");
  const int64_t theirs = rig.submit(4, "teaching");
  rig.slurm.release(theirs);  // its owner released it: pending, not held, Slurm's to start
  rig.options.scope.accounts = {"research"};
  const size_t before = rig.slurm.history().size();
  auto policy = cl::make_policy("fifo", {});
  Controller c(rig.slurm, *policy, rig.options);
  c.start();
  int most_jobs_shown = 0;
  const double end = rig.slurm.now_s() + 30;
  c.run([&] {
    most_jobs_shown = std::max(most_jobs_shown, static_cast<int>(c.tracked_jobs()));
    return rig.slurm.now_s() >= end;
  });
  EXPECT_EQ(rig.slurm.job(mine)->state, "COMPLETED") << rig.log.str();
  EXPECT_EQ(rig.slurm.job(theirs)->state, "COMPLETED") << "Slurm ran it on its own";
  EXPECT_FALSE(rig.touched(theirs, before)) << rig.log.str();
  EXPECT_EQ(most_jobs_shown, 1);
  for (const auto& d : c.decisions()) EXPECT_EQ(d.slurm_id, mine) << rig.log.str();
}

LiveSnapshot sample_snapshot() {
  LiveSnapshot s;
  s.policy = "tiresias";
  s.scope = "partition gpu-a";
  s.started_wall_s = 1.7e9;
  s.wall_s = 1.7e9 + 60;
  s.queued_jobs = 2;
  s.running_jobs = 1;
  s.gpus_total_by_type = {{"a100", 8}, {kUntypedGpu, 4}};
  s.gpus_busy_by_type = {{"a100", 3}};
  s.rounds = 2;
  s.decisions_by_action = {{"place", 3}, {"preempt", 1}};
  s.decision_latency.add(0.0004);
  s.decision_latency.add(0.02);
  s.slurm_calls["poll"].latency.add(0.3);
  s.slurm_calls["place"].errors = 2;
  s.preemptions = 1;
  s.restarts = 1;
  ManagedJob j;
  j.slurm_id = 12;
  j.name = "<script>alert(1)</script>";
  j.status = "running";
  j.placement = "node1:2";
  j.gpus = 2;
  s.jobs = {j};
  Decision d;
  d.slurm_id = 12;
  d.job_name = "<img src=x onerror=alert(1)>";
  d.action = "place";
  d.note = "a \"quoted\" & <tagged> note";
  d.wall_s = s.wall_s;
  s.last_decisions = {d};
  s.history = {{s.wall_s - 1, 2, 12, 1, 2}, {s.wall_s, 3, 12, 1, 2}};
  return s;
}

TEST(LiveMetrics, PrometheusTextHasEveryFamilyWithCumulativeBuckets) {
  const std::string t = prometheus_text(sample_snapshot());
  for (const char* expected :
       {"# TYPE dmlkit_live_queue_jobs gauge\ndmlkit_live_queue_jobs 2\n", "dmlkit_live_running_jobs 1\n",
        "dmlkit_live_gpus{type=\"a100\"} 8\n", "dmlkit_live_gpus_busy{type=\"a100\"} 3\n",
        "dmlkit_live_gpus_busy{type=\"untyped\"} 0\n", "dmlkit_live_decisions_total{action=\"place\"} 3\n",
        "dmlkit_live_decisions_total{action=\"move\"} 0\n", "dmlkit_live_decisions_total{action=\"preempt\"} 1\n",
        "dmlkit_live_decision_latency_seconds_bucket{le=\"0.001\"} 1\n",
        "dmlkit_live_decision_latency_seconds_bucket{le=\"0.025\"} 2\n",
        "dmlkit_live_decision_latency_seconds_bucket{le=\"+Inf\"} 2\n",
        "dmlkit_live_decision_latency_seconds_count 2\n",
        "dmlkit_live_slurm_call_seconds_bucket{call=\"poll\",le=\"0.25\"} 0\n",
        "dmlkit_live_slurm_call_seconds_bucket{call=\"poll\",le=\"0.5\"} 1\n",
        "dmlkit_live_slurm_call_errors_total{call=\"place\"} 2\n", "dmlkit_live_preemptions_total 1\n",
        "dmlkit_live_restarts_total 1\n", "dmlkit_live_rounds_total 2\n",
        "dmlkit_live_info{policy=\"tiresias\",scope=\"partition gpu-a\",dry_run=\"false\"} 1\n"})
    EXPECT_NE(t.find(expected), std::string::npos) << expected << "\n" << t;
  // Every sample line belongs to a family declared with # TYPE before it.
  std::istringstream in(t);
  std::set<std::string> declared;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# TYPE ", 0) == 0) declared.insert(line.substr(7, line.find(' ', 7) - 7));
    if (line.empty() || line[0] == '#') continue;
    std::string name = line.substr(0, line.find_first_of("{ "));
    for (const char* suffix : {"_bucket", "_sum", "_count"})
      if (!declared.count(name) && name.size() > std::string(suffix).size() &&
          name.compare(name.size() - std::string(suffix).size(), std::string::npos, suffix) == 0)
        name = name.substr(0, name.size() - std::string(suffix).size());
    EXPECT_TRUE(declared.count(name)) << line;
  }
}

TEST(LiveMetrics, LabelValuesAreEscaped) {
  LiveSnapshot s = sample_snapshot();
  s.policy = "a\"b\\c\nd";
  const std::string t = prometheus_text(s);
  EXPECT_NE(t.find("policy=\"a\\\"b\\\\c\\nd\""), std::string::npos) << t;
}

TEST(LiveMetrics, StatusPageEscapesEveryStringFromSlurm) {
  const std::string page = status_page_html(sample_snapshot());
  EXPECT_EQ(page.find("<script>"), std::string::npos) << page;
  EXPECT_EQ(page.find("<img"), std::string::npos) << page;
  EXPECT_EQ(page.find("<tagged>"), std::string::npos) << page;
  EXPECT_NE(page.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos) << page;
  EXPECT_NE(page.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos) << page;
  EXPECT_NE(page.find("<svg"), std::string::npos) << "the utilisation chart";
  EXPECT_NE(page.find("node1:2"), std::string::npos);
  EXPECT_NE(page.find("partition gpu-a"), std::string::npos);
}

TEST(LiveMetrics, TimedBackendCountsFailedCallsAndKeepsHistogramsOnly) {
  FakeSlurm fake;
  fake.add_nodes(1, 4);
  TimedBackend timed(fake, /*keep_samples=*/false);
  timed.snapshot();
  fake.fail_next("hold");
  EXPECT_THROW(timed.hold(99), SlurmError);
  EXPECT_EQ(timed.call_stats().at("poll").latency.count, 1u);
  EXPECT_EQ(timed.call_stats().at("poll").errors, 0);
  EXPECT_EQ(timed.call_stats().at("hold").errors, 1);
  EXPECT_TRUE(timed.samples("poll").empty());
}

// A socket listening on a kernel-chosen port of 127.0.0.1 while the object lives.
struct Listener {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  int port = 0;
  Listener() {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 && ::listen(fd, 1) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
      port = ntohs(addr.sin_port);
  }
  ~Listener() { ::close(fd); }
};

// Refused before Slurm is contacted: one line, exit status 2.
TEST(LiveCli, ServeRefusesABadScopeNameOrMetricsPortInOneLine) {
  Listener busy;
  ASSERT_GT(busy.port, 0);
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--partition", "gpu a"}, "--partition"},
      {{"--account", "x;y"}, "--account"},
      {{"--user", ""}, "--user"},
      {{"--metrics-port", "70000"}, "--metrics-port"},
      {{"--metrics-port", std::to_string(busy.port)}, "cannot listen on 127.0.0.1:" + std::to_string(busy.port)}};
  for (const auto& [args, expected] : cases) {
    std::vector<std::string> argv = {DMLKIT_BINARY, "cluster", "serve", "--slurm", "--slurm-conf", "/nonexistent.conf"};
    argv.insert(argv.end(), args.begin(), args.end());
    const ProcessResult r = run_process(argv, {}, 30);
    EXPECT_EQ(r.exit_code, 2) << args.front() << ": " << r.err;
    EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

}  // namespace
}  // namespace dmlkit::live
