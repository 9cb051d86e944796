// Cluster runs as core Results (see results.h).
#include "cluster/report/results.h"

#include <cmath>
#include <ostream>

namespace dmlkit::cluster {

std::string run_file_stem(const std::string& policy, uint64_t seed) { return policy + "-seed" + std::to_string(seed); }

void add_run_record(Results& results, const SimResult& run, const Metrics& m, uint64_t seed) {
  ResultRecord& r = results.add(run.policy, seed);
  auto& j = r.metrics;
  // Statistics over the finished jobs (and the makespan, last finish - first arrival, and the GPU
  // utilization over it) are null when none finished: never 0, which reads as perfect.
  auto over_finished = [&m](double v) { return m.finished > 0 ? nlohmann::ordered_json(v) : nlohmann::ordered_json(); };
  j["jobs"] = m.jobs;
  j["finished"] = m.finished;
  j["avg_jct_s"] = over_finished(m.avg_jct_s);
  j["median_jct_s"] = over_finished(m.median_jct_s);
  j["p95_jct_s"] = over_finished(m.p95_jct_s);
  j["p99_jct_s"] = over_finished(m.p99_jct_s);
  j["makespan_s"] = over_finished(m.makespan_s);
  j["avg_queue_s"] = over_finished(m.avg_queue_s);
  j["gpu_utilization"] = over_finished(m.gpu_utilization);
  j["preemptions"] = m.preemptions;
  j["timed_out"] = run.timed_out;
  const std::string stem = run_file_stem(run.policy, seed);
  r.files["jobs_csv"] = "jobs-" + stem + ".csv";
  r.files["rounds_csv"] = "rounds-" + stem + ".csv";
}

void write_jobs_csv(std::ostream& out, const SimResult& r) {
  CsvWriter w(out);
  w.header({"id", "name", "application", "num_gpus", "arrival_s", "first_start_s", "finish_s", "jct_s", "queued_s",
            "executed_s", "gpu_s", "preemptions", "starts"});
  auto time_or_empty = [&w](bool known, double v) { known ? w.fixed(v, 3) : w.empty(); };
  for (const auto& j : r.jobs) {
    const bool done = j.finished();
    w.integer(j.id).text(j.name).text(j.application).integer(j.num_gpus).fixed(j.arrival_s, 3);
    time_or_empty(j.first_start_s >= 0, j.first_start_s);
    time_or_empty(done, j.finish_s);
    time_or_empty(done, done ? j.jct_s() : 0.0);
    time_or_empty(done, done ? j.queued_s() : 0.0);
    w.fixed(j.executed_s, 3).fixed(j.gpu_s, 3).integer(j.preemptions).integer(j.restarts);
    w.end_row();
  }
  w.finish();
}

void write_rounds_csv(std::ostream& out, const SimResult& r) {
  CsvWriter w(out);
  w.header({"time_s", "gpus_busy", "running_jobs", "queued_jobs"});
  for (const auto& s : r.rounds) {
    w.fixed(s.time_s, 3).integer(s.gpus_busy).integer(s.running_jobs).integer(s.queued_jobs);
    w.end_row();
  }
  w.finish();
}

void write_run_detail_files(OutputDir& out, const SimResult& run, uint64_t seed) {
  const std::string stem = run_file_stem(run.policy, seed);
  out.write_streamed("jobs-" + stem + ".csv", [&](std::ostream& o) { write_jobs_csv(o, run); });
  out.write_streamed("rounds-" + stem + ".csv", [&](std::ostream& o) { write_rounds_csv(o, run); });
}

TextTable seed_summary_table(const Results& results, double round_s) {
  TextTable t({"policy", "runs", "avg_jct_s", "avg_jct_s_sd", "avg_jct_slots", "makespan_s", "makespan_s_sd",
               "finished", "jobs"});
  auto total = [](const SummaryGroup& g, const char* metric) {
    const MetricSummary* m = g.find(metric);
    return m ? std::llround(m->stats.mean * static_cast<double>(m->count)) : 0LL;
  };
  for (const auto& g : results.summary()) {
    const MetricSummary* jct = g.find("avg_jct_s");
    const MetricSummary* mk = g.find("makespan_s");
    const Summary j = jct ? jct->stats : Summary{};
    const Summary k = mk ? mk->stats : Summary{};
    // No run of the group finished a job: blank, never 0.
    auto jct_cell = [jct](double v, int digits) { return jct ? fixed(v, digits) : std::string(); };
    auto mk_cell = [mk](double v) { return mk ? fixed(v, 1) : std::string(); };
    t.add_row({g.name, std::to_string(g.runs), jct_cell(j.mean, 1), jct_cell(j.sd, 1), jct_cell(j.mean / round_s, 3),
               mk_cell(k.mean), mk_cell(k.sd), std::to_string(total(g, "finished")), std::to_string(total(g, "jobs"))});
  }
  return t;
}

}  // namespace dmlkit::cluster
