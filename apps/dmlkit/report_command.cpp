// `dmlkit report DIR` (issue 20): re-renders a run's report.html from its results folder alone
// (results.json and the detail CSVs it names), e.g. after dmlkit's report code changed. Covers the
// cluster family's workload runs (`cluster simulate`, `cluster compare` without --experiment);
// any other command is a one-line error naming the ones covered.
#include <filesystem>
#include <ostream>

#include <nlohmann/json.hpp>

#include "cluster/report/report.h"
#include "cluster/sim/metrics.h"
#include "core/csv.h"
#include "core/error.h"
#include "core/output_dir.h"
#include "core/provenance.h"
#include "core/table.h"
#include "dmlkit/commands.h"

namespace dmlkit::app {
namespace {

namespace cl = dmlkit::cluster;
namespace fs = std::filesystem;
using nlohmann::json;

double number_or(const json& j, const char* key, double fallback) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : fallback;
}

// One policy's run, from its record and its jobs/rounds CSVs (docs/results-schema.md, "cluster").
cl::SimResult run_from_record(const json& rec, const fs::path& dir, int total_gpus) {
  cl::SimResult r;
  r.policy = rec.at("name").get<std::string>();
  r.total_gpus = total_gpus;
  const json& m = rec.at("metrics");
  r.makespan_s = number_or(m, "makespan_s", 0);
  r.timed_out = m.value("timed_out", false);
  const json& files = rec.value("files", json::object());
  if (!files.contains("jobs_csv") || !files.contains("rounds_csv"))
    throw Error((dir / "results.json").string(), 0, "files", "record '" + r.policy + "' names no jobs_csv/rounds_csv");
  const CsvTable jobs = CsvTable::read((dir / files["jobs_csv"].get<std::string>()).string());
  const int id = jobs.column("id"), name = jobs.column("name"), app = jobs.column("application"),
            gpus = jobs.column("num_gpus"), arrival = jobs.column("arrival_s"), start = jobs.column("first_start_s"),
            finish = jobs.column("finish_s"), executed = jobs.column("executed_s"), gpu_s = jobs.column("gpu_s"),
            preempt = jobs.column("preemptions"), starts = jobs.column("starts");
  auto time_or = [&](size_t row, int col) { return jobs.str(row, col).empty() ? -1.0 : jobs.num(row, col); };
  for (size_t i = 0; i < jobs.rows(); ++i) {
    cl::JobRecord j;
    j.id = static_cast<int>(jobs.integer(i, id));
    j.name = std::string(jobs.str(i, name));
    j.application = std::string(jobs.str(i, app));
    j.num_gpus = static_cast<int>(jobs.integer(i, gpus));
    j.arrival_s = jobs.num(i, arrival);
    j.first_start_s = time_or(i, start);
    j.finish_s = time_or(i, finish);
    j.executed_s = jobs.num(i, executed);
    j.gpu_s = jobs.num(i, gpu_s);
    j.preemptions = static_cast<int>(jobs.integer(i, preempt));
    j.restarts = static_cast<int>(jobs.integer(i, starts));
    r.jobs.push_back(std::move(j));
  }
  const CsvTable rounds = CsvTable::read((dir / files["rounds_csv"].get<std::string>()).string());
  const int t = rounds.column("time_s"), busy = rounds.column("gpus_busy"), running = rounds.column("running_jobs"),
            queued = rounds.column("queued_jobs");
  for (size_t i = 0; i < rounds.rows(); ++i)
    r.rounds.push_back({rounds.num(i, t), static_cast<int>(rounds.integer(i, busy)),
                        static_cast<int>(rounds.integer(i, running)), static_cast<int>(rounds.integer(i, queued))});
  return r;
}

// The metrics as results.json holds them (full precision), not recomputed from the rounded CSVs.
cl::Metrics metrics_from_record(const json& rec) {
  const json& m = rec.at("metrics");
  cl::Metrics x;
  x.jobs = static_cast<size_t>(number_or(m, "jobs", 0));
  x.finished = static_cast<size_t>(number_or(m, "finished", 0));
  x.avg_jct_s = number_or(m, "avg_jct_s", 0);
  x.median_jct_s = number_or(m, "median_jct_s", 0);
  x.p95_jct_s = number_or(m, "p95_jct_s", 0);
  x.p99_jct_s = number_or(m, "p99_jct_s", 0);
  x.makespan_s = number_or(m, "makespan_s", 0);
  x.avg_queue_s = number_or(m, "avg_queue_s", 0);
  x.gpu_utilization = number_or(m, "gpu_utilization", 0);
  x.preemptions = static_cast<long>(number_or(m, "preemptions", 0));
  return x;
}

std::string cluster_report_from(const json& res, const fs::path& dir) {
  const json& in = res.at("inputs");
  cl::ReportInfo info;
  info.workload = in.value("workload", "");
  info.cluster = in.value("cluster", "") + " (" + std::to_string(in.value("cluster_servers", 0)) + " servers)";
  info.profile = in.value("profile", "");
  if (in.contains("seeds") && !in["seeds"].empty()) info.seed = in["seeds"][0].get<uint64_t>();
  const json round = in.value("round_s", json());
  info.extra = {{"Round length", round.is_number() ? fixed(round.get<double>(), 0) + " s" : "none (events only)"},
                {"Restart delay", fixed(number_or(in, "restart_delay_s", 0), 0) + " s"},
                {"Placement", in.value("placement", "")}};
  for (const auto& [k, v] : in.value("policy_params", json::object()).items())
    info.extra.push_back({"Policy knob " + k, v.is_string() ? v.get<std::string>() : v.dump()});
  if (res.contains("invocation") && res["invocation"].contains("command_line"))
    info.extra.push_back({"Run as", res["invocation"]["command_line"].get<std::string>()});
  std::vector<cl::SimResult> runs;
  std::vector<cl::Metrics> metrics;
  for (const auto& rec : res.at("records")) {
    runs.push_back(run_from_record(rec, dir, in.value("cluster_gpus", 0)));
    metrics.push_back(metrics_from_record(rec));
  }
  if (runs.empty()) throw Error((dir / "results.json").string(), 0, "records", "no record to report");
  return cl::cluster_report_html(info, runs, metrics);
}

}  // namespace

void add_report_command(CLI::App& app, Context& ctx) {
  auto& dir = ctx.make<std::string>();
  auto* cmd = app.add_subcommand("report", "Re-render a run's report.html from its results folder (results.json and "
                                           "the CSVs it names); covers cluster simulate and cluster compare");
  cmd->add_option("DIR", dir, "The results folder (as written by --out)")->required();
  cmd->callback([&] {
    ctx.run = [&] {
      const fs::path folder(dir);
      const std::string path = (folder / "results.json").string();
      json res;
      try {
        res = json::parse(read_file(path));
      } catch (const json::exception& e) {
        throw Error(path, 0, "", std::string("not valid JSON: ") + e.what());
      }
      const std::string command = res.value("command", "");
      if (command != "cluster simulate" && command != "cluster compare")
        throw Error(path, 0, "command",
                    "'" + command + "': dmlkit report re-renders cluster simulate and cluster compare runs only");
      if (res.contains("inputs") && res["inputs"].contains("experiment"))
        throw Error(path, 0, "command", "an --experiment run: dmlkit report re-renders workload runs only");
      const std::string html = cluster_report_from(res, folder);
      write_file_atomic((folder / "report.html").string(), html);
      ctx.out << "report: " << fs::absolute(folder / "report.html").lexically_normal().string() << "\n";
      return 0;
    };
  });
}

}  // namespace dmlkit::app
