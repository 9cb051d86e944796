// Cluster runs as core Results (see results.h).
#include "cluster/report/results.h"

#include <cmath>

namespace dmlkit::cluster {

namespace {

std::string num(double v) { return fixed(v, 3); }

}  // namespace

std::string run_file_stem(const std::string& policy, uint64_t seed) { return policy + "-seed" + std::to_string(seed); }

void add_run_record(Results& results, const SimResult& run, const Metrics& m, uint64_t seed) {
  ResultRecord& r = results.add(run.policy, seed);
  auto& j = r.metrics;
  j["jobs"] = m.jobs;
  j["finished"] = m.finished;
  j["avg_jct_s"] = m.avg_jct_s;
  j["median_jct_s"] = m.median_jct_s;
  j["p95_jct_s"] = m.p95_jct_s;
  j["p99_jct_s"] = m.p99_jct_s;
  j["makespan_s"] = m.makespan_s;
  j["avg_queue_s"] = m.avg_queue_s;
  j["gpu_utilization"] = m.gpu_utilization;
  j["preemptions"] = m.preemptions;
  j["timed_out"] = run.timed_out;
  const std::string stem = run_file_stem(run.policy, seed);
  r.files["jobs_csv"] = "jobs-" + stem + ".csv";
  r.files["rounds_csv"] = "rounds-" + stem + ".csv";
}

TextTable jobs_table(const SimResult& r) {
  TextTable t({"id", "name", "application", "num_gpus", "arrival_s", "first_start_s", "finish_s", "jct_s", "queued_s",
               "executed_s", "gpu_s", "preemptions", "restarts"});
  for (const auto& j : r.jobs) {
    const bool done = j.finished();
    t.add_row({std::to_string(j.id), j.name, j.application, std::to_string(j.num_gpus), num(j.arrival_s),
               j.first_start_s >= 0 ? num(j.first_start_s) : "", done ? num(j.finish_s) : "",
               done ? num(j.jct_s()) : "", done ? num(j.queued_s()) : "", num(j.executed_s), num(j.gpu_s),
               std::to_string(j.preemptions), std::to_string(j.restarts)});
  }
  return t;
}

TextTable rounds_table(const SimResult& r) {
  TextTable t({"time_s", "gpus_busy", "running_jobs", "queued_jobs"});
  for (const auto& s : r.rounds)
    t.add_row(
        {num(s.time_s), std::to_string(s.gpus_busy), std::to_string(s.running_jobs), std::to_string(s.queued_jobs)});
  return t;
}

void write_run_detail_files(OutputDir& out, const SimResult& run, uint64_t seed) {
  const std::string stem = run_file_stem(run.policy, seed);
  out.write("jobs-" + stem + ".csv", jobs_table(run).to_csv());
  out.write("rounds-" + stem + ".csv", rounds_table(run).to_csv());
}

TextTable seed_summary_table(const Results& results, double round_s) {
  TextTable t({"policy", "avg_jct_s", "jct_sd_s", "avg_jct_slots", "makespan_s", "makespan_sd_s", "finished"});
  auto total = [](const SummaryGroup& g, const char* metric) {
    const MetricSummary* m = g.find(metric);
    return m ? std::llround(m->stats.mean * static_cast<double>(m->count)) : 0LL;
  };
  for (const auto& g : results.summary()) {
    const MetricSummary* jct = g.find("avg_jct_s");
    const MetricSummary* mk = g.find("makespan_s");
    const Summary j = jct ? jct->stats : Summary{};
    const Summary k = mk ? mk->stats : Summary{};
    t.add_row({g.name, fixed(j.mean, 1), fixed(j.sd, 1), fixed(j.mean / round_s, 3), fixed(k.mean, 1), fixed(k.sd, 1),
               std::to_string(total(g, "finished")) + "/" + std::to_string(total(g, "jobs"))});
  }
  return t;
}

}  // namespace dmlkit::cluster
