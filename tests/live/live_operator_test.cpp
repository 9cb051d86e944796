// What an operator runs, tested as the program (issue 36, "Live mode (operators)"): a replay with a
// relative --out started from another working folder, Ctrl-C on a replay, `cluster serve`
// --dry-run and --partition on a two-partition lab, and a scrape of its Prometheus metrics.
#include <gtest/gtest.h>

#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "live_helpers.h"

namespace dmlkit::live::test {
namespace {

namespace fs = std::filesystem;

// `dmlkit ARGS...` started from `folder` (a shell `cd`, then exec), with the lab's SLURM_CONF.
ProcessResult run_dmlkit_in(const SlurmLab& lab, const std::string& folder, const std::vector<std::string>& args,
                            double timeout_s) {
  std::string cmd = "cd '" + folder + "' && exec '" DMLKIT_BINARY "'";
  for (const auto& a : args) cmd += " '" + a + "'";  // test-controlled arguments, no quotes inside
  return run_process({"/bin/sh", "-c", cmd}, {{"SLURM_CONF", lab.conf()}}, timeout_s);
}

std::string write_workload(const SlurmLab& lab, const std::string& name, const std::string& csv) {
  const std::string path = lab.dir() + "/" + name;
  std::ofstream(path) << csv;
  return path;
}

// Jobs whose name starts with `prefix`, by id.
std::map<int64_t, SlurmJob> jobs_named(ClusterBackend& slurm, const std::string& prefix) {
  std::map<int64_t, SlurmJob> out;
  for (const auto& [id, j] : jobs_by_id(slurm))
    if (j.name.rfind(prefix, 0) == 0) out[id] = j;
  return out;
}

// A TCP port free on 127.0.0.1 right now (the kernel's choice for port 0).
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
    port = ntohs(addr.sin_port);
  ::close(fd);
  return port;
}

// sbatch -p PARTITION of a sleep job, not held by the lab unless its partition is managed.
int64_t submit_to_partition(const SlurmLab& lab, const std::string& partition, const std::string& name,
                            double seconds) {
  const ProcessResult r =
      run_process({"sbatch", "--parsable", "-p", partition, "-N", "1", "--gres=gpu:2", "--job-name=" + name, "-o",
                   "/dev/null", "--chdir=" + lab.dir(), sleep_script(lab), std::to_string(seconds)},
                  {{"SLURM_CONF", lab.conf()}}, 20);
  EXPECT_TRUE(r.ok()) << r.err;
  return r.ok() ? std::stoll(r.out) : -1;
}

int decisions_about(const std::string& log_path, int64_t id) {
  std::ifstream in(log_path);
  int n = 0;
  for (std::string line; std::getline(in, line);)
    n += line.find("\"job\":" + std::to_string(id) + ",") != std::string::npos;
  return n;
}

TEST(LiveOperator, ReplayWithARelativeOutFromAnotherFolderCompletesEveryJob) {
  DMLKIT_LIVE_LAB(lab, 2, 2);
  const std::string workload =
      write_workload(lab, "two.csv", "name,time,num_gpus,duration\nrel-a,0,2,100\nrel-b,0,2,100\n");
  const std::string folder = lab.dir() + "/elsewhere";
  fs::create_directories(folder);
  const ProcessResult r =
      run_dmlkit_in(lab, folder,
                    {"cluster", "replay", "--slurm", "--workload", workload, "--policy", "fifo", "--time-scale", "0.02",
                     "--round", "20", "--out", "out/replay", "--max-wall", "90", "--format", "json"},
                    150);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(fs::exists(folder + "/out/replay/results.json")) << r.err;
  SlurmClient slurm(lab.client_options());
  const auto jobs = jobs_named(slurm, "dmlkit-rel-");
  ASSERT_EQ(jobs.size(), 2u) << r.err;
  for (const auto& [id, j] : jobs) EXPECT_EQ(j.state, "COMPLETED") << "job " << id << " (" << j.name << ")\n" << r.err;
  const auto doc = nlohmann::json::parse(std::ifstream(folder + "/out/replay/results.json"));
  EXPECT_GT(doc["records"][0]["metrics"]["real_avg_jct_s"].get<double>(), 0) << r.err;
}

TEST(LiveOperator, SigintOnAReplayCancelsEveryJobItSubmitted) {
  DMLKIT_LIVE_LAB(lab, 2, 2);
  // Four 2-GPU jobs of ~200 wall s on 4 GPUs: two run, two wait held when Ctrl-C comes.
  const std::string workload = write_workload(
      lab, "long.csv",
      "name,time,num_gpus,duration\nint-a,0,2,10000\nint-b,0,2,10000\nint-c,0,2,10000\nint-d,0,2,10000\n");
  const std::string out = lab.dir() + "/interrupted";
  BackgroundProcess replay({DMLKIT_BINARY, "cluster", "replay", "--slurm", "--slurm-conf", lab.conf(), "--workload",
                            workload, "--policy", "fifo", "--time-scale", "0.02", "--round", "20", "--out", out},
                           lab.dir() + "/replay.pid", 120);
  SlurmClient slurm(lab.client_options());
  const bool started = wait_for(
      [&] {
        const auto jobs = jobs_named(slurm, "dmlkit-int-");
        int running = 0;
        for (const auto& [id, j] : jobs) running += j.active_running();
        return jobs.size() == 4 && running >= 1;
      },
      60);
  ASSERT_TRUE(started) << "the replay did not submit and start its jobs";
  ASSERT_TRUE(replay.signal(SIGINT));
  const ProcessResult& r = replay.wait();
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_NE(r.err.find("stopped by SIGINT"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out + "/results.json")) << "an interrupted replay writes no results";
  auto all_cancelled = [&] {
    const auto jobs = jobs_named(slurm, "dmlkit-int-");
    return jobs.size() == 4 &&
           std::all_of(jobs.begin(), jobs.end(), [](const auto& kv) { return kv.second.state == "CANCELLED"; });
  };
  EXPECT_TRUE(wait_for(all_cancelled, 20)) << r.err;
  for (const auto& [id, j] : jobs_named(slurm, "dmlkit-int-"))
    EXPECT_EQ(j.state, "CANCELLED") << "job " << id << " (" << j.name << ")\n" << r.err;
}

TEST(LiveOperator, ServeDryRunLogsEachDecisionOnceAndChangesNothing) {
  DMLKIT_LIVE_LAB(lab, 2, 2);
  SlurmClient slurm(lab.client_options());
  const int64_t id = submit_sleep(slurm, lab, 1, 2, 2, "dmlkit:name=dry-a");
  const std::string log = lab.dir() + "/dry.jsonl", state = lab.dir() + "/dry-state.json";
  const ProcessResult r = run_dmlkit_in(lab, lab.dir(),
                                        {"cluster", "serve", "--slurm", "--policy", "fifo", "--dry-run", "--round", "1",
                                         "--poll", "0.3", "--max-wall", "5", "--decision-log", log, "--state", state},
                                        60);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(logged_decisions(log, "place"), 1) << "decided once, logged once, though ~5 rounds ran\n" << r.err;
  EXPECT_EQ(decisions_about(log, id), 1) << r.err;
  std::ifstream in(log);
  std::string line;
  std::getline(in, line);
  EXPECT_NE(line.find("\"dry_run\":true"), std::string::npos) << line;
  EXPECT_NE(r.err.find("[dry run]"), std::string::npos) << r.err;
  const SlurmJob job = jobs_by_id(slurm).at(id);
  EXPECT_TRUE(job.pending() && job.held()) << "a dry run applies nothing: " << job.state << "/" << job.reason;
  EXPECT_FALSE(fs::exists(state)) << "a dry run writes no state file";
}

TEST(LiveOperator, ServeWithAPartitionNeverTouchesJobsOfAnotherPartition) {
  DMLKIT_LIVE_LAB_PARTITIONS(lab, 2, 2, 2);  // main: node1 (jobs enter held); other: node2 (Slurm's)
  SlurmClient slurm(lab.client_options());
  // `other`: one job runs on node2, the next waits for it, pending and not held (Slurm's queue).
  const int64_t running = submit_to_partition(lab, "other", "other-0", 8);
  ASSERT_TRUE(wait_for([&] { return jobs_by_id(slurm).at(running).active_running(); }, 30));
  const int64_t waiting = submit_to_partition(lab, "other", "other-1", 1);
  const SlurmJob w = jobs_by_id(slurm).at(waiting);
  ASSERT_TRUE(w.pending() && !w.held()) << w.state << "/" << w.reason;
  const int64_t mine = submit_sleep(slurm, lab, 1, 2, 2, "dmlkit:name=part-m");
  const std::string log = lab.dir() + "/part.jsonl";
  const ProcessResult r = run_dmlkit_in(
      lab, lab.dir(),
      {"cluster", "serve", "--slurm", "--policy", "fifo", "--partition", "main", "--round", "1", "--poll", "0.3",
       "--until-idle", "--max-wall", "40", "--decision-log", log, "--state", lab.dir() + "/part-state.json"},
      90);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("manages partition main"), std::string::npos) << r.err;
  EXPECT_EQ(decisions_about(log, running), 0) << r.err;
  EXPECT_EQ(decisions_about(log, waiting), 0) << "a pending job of another partition is not held\n" << r.err;
  ASSERT_EQ(decisions_about(log, mine), 1) << r.err;
  std::ifstream in(log);
  std::string line;
  std::getline(in, line);
  EXPECT_NE(line.find("\"placement\":\"node1:2\""), std::string::npos) << "only main's node is shown: " << line;
  EXPECT_EQ(jobs_by_id(slurm).at(mine).state, "COMPLETED") << r.err;
  EXPECT_TRUE(wait_for([&] { return jobs_by_id(slurm).at(waiting).state == "COMPLETED"; }, 30))
      << "Slurm runs the other partition's job itself";
}

TEST(LiveOperator, ServeExposesPrometheusMetricsAndAnEscapedStatusPage) {
  DMLKIT_LIVE_LAB(lab, 2, 2);
  SlurmClient slurm(lab.client_options());
  JobRequest q;
  q.name = "<i>esc</i>";  // a job name with markup: shown escaped
  q.nodes = 1;
  q.gpus_per_node = 2;
  q.script = sleep_script(lab);
  q.script_args = {"120"};  // cancelled when the lab goes down
  q.work_dir = lab.dir();
  slurm.submit(q);
  const int port = free_port();
  ASSERT_GT(port, 0);
  BackgroundProcess serve({DMLKIT_BINARY, "cluster", "serve", "--slurm", "--slurm-conf", lab.conf(), "--policy", "fifo",
                           "--round", "1", "--poll", "0.3", "--max-wall", "90", "--metrics-port", std::to_string(port),
                           "--state", lab.dir() + "/metrics-state.json"},
                          lab.dir() + "/serve.pid", 120);
  httplib::Client http("127.0.0.1", port);
  std::string metrics, content_type;
  const bool running = wait_for(
      [&] {
        const auto res = http.Get("/metrics");
        if (!res || res->status != 200) return false;
        metrics = res->body;
        content_type = res->get_header_value("Content-Type");
        return metrics.find("dmlkit_live_running_jobs 1\n") != std::string::npos;
      },
      60);
  ASSERT_TRUE(running) << metrics;
  EXPECT_EQ(content_type.rfind("text/plain; version=0.0.4", 0), 0u) << content_type;
  for (const char* expected :
       {"# TYPE dmlkit_live_queue_jobs gauge\n", "dmlkit_live_queue_jobs 0\n", "dmlkit_live_gpus{type=\"untyped\"} 4\n",
        "dmlkit_live_gpus_busy{type=\"untyped\"} 2\n", "dmlkit_live_decisions_total{action=\"place\"} 1\n",
        "# TYPE dmlkit_live_decision_latency_seconds histogram\n", "dmlkit_live_decision_latency_seconds_count ",
        "dmlkit_live_slurm_call_seconds_bucket{call=\"poll\",le=\"+Inf\"} ",
        "dmlkit_live_slurm_call_errors_total{call=\"place\"} 0\n", "dmlkit_live_preemptions_total 0\n",
        "dmlkit_live_restarts_total 0\n"})
    EXPECT_NE(metrics.find(expected), std::string::npos) << expected << "\n" << metrics;
  std::string page;
  EXPECT_TRUE(wait_for(
      [&] {
        const auto res = http.Get("/");
        page = res && res->status == 200 ? res->body : "";
        return page.find("<svg") != std::string::npos;
      },
      20))
      << page;
  EXPECT_NE(page.find("&lt;i&gt;esc&lt;/i&gt;"), std::string::npos) << page;
  EXPECT_EQ(page.find("<i>esc"), std::string::npos) << "markup from Slurm reached the page raw";
  EXPECT_NE(page.find("running"), std::string::npos) << page;
  EXPECT_NE(page.find("node"), std::string::npos) << page;
  ASSERT_TRUE(serve.signal(SIGTERM));
  const ProcessResult& r = serve.wait();
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

}  // namespace
}  // namespace dmlkit::live::test
