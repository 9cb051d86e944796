// Workload readers (Pollux-style workload CSVs, the Philly trace, dmlkit traces), bundled workload
// names, and the synthetic generator. Formats and defaults: docs/cluster-workloads.md.
#include "cluster/workload/workload.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <string_view>
#include <fmt/format.h>

#include "core/data_dir.h"
#include "cluster/workload/ps_workload.h"
#include "core/csv.h"
#include "core/error.h"
#include "core/rng.h"
#include "core/table.h"

namespace dmlkit::cluster {

namespace {

// Per-GPU demand of CPU cores and memory [A]. Neither the Pollux workloads nor the Philly trace
// record them; these are typical figures for each application's input pipeline (image decoding
// and augmentation is CPU-heavy, ImageNet most of all; NCF and BERT fine-tuning are light).
// Every value stays within a default server's share per GPU (kDefaultCpusPerGpu = 8 cores,
// kDefaultMemGbPerGpu = 64 GB), so on default servers any job that fits by GPU count also fits by
// CPU and memory. A workload file may override them per job with the optional columns
// `cpus_per_gpu` and `mem_gb_per_gpu`. Keep docs/cluster-workloads.md in sync with this table.
struct AppDemand {
  std::string_view application;
  double cpus_per_gpu;
  double mem_gb_per_gpu;
};
constexpr AppDemand kAppDemands[] = {
    {"bert", 2.0, 16.0},     {"cifar10", 4.0, 8.0}, {"deepspeech2", 6.0, 24.0},
    {"imagenet", 8.0, 48.0}, {"ncf", 2.0, 32.0},    {"yolov3", 6.0, 24.0},
};
// Trace jobs (Philly, dmlkit traces without a known application, synthetic jobs).
constexpr AppDemand kTraceDemand = {"", 4.0, 16.0};

const AppDemand& demand_of(std::string_view application) {
  for (const auto& d : kAppDemands)
    if (d.application == application) return d;
  return kTraceDemand;
}

std::string data_dir_or_default(const std::string& data_dir) {
  return data_dir.empty() ? default_data_dir() : data_dir;
}

bool is_regular_file(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The bundled file for a bundled name, or "" if `name` is not of a bundled form.
std::string bundled_path(const std::string& name, const std::string& data_dir) {
  std::string_view n = name;
  if (n == "philly") return data_dir + "/traces/philly.csv";
  if (n == "tiresias-60") return data_dir + "/tiresias/60_job.csv";
  if (n.rfind("pollux-0.5-", 0) == 0 && all_digits(n.substr(11)))
    return data_dir + "/workloads/workloads-0.5/workload-" + std::string(n.substr(11)) + ".csv";
  if (n.rfind("pollux-", 0) == 0 && all_digits(n.substr(7)))
    return data_dir + "/workloads/workloads/workload-" + std::string(n.substr(7)) + ".csv";
  return "";
}

std::string bundled_names(const std::string& data_dir) {
  std::string out;
  for (const char* dir : {"workloads", "workloads-0.5"}) {
    std::vector<int> ids;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(data_dir + "/workloads/" + dir, ec)) {
      std::string stem = e.path().stem().string();
      if (stem.rfind("workload-", 0) == 0 && all_digits(stem.substr(9)) && e.path().extension() == ".csv")
        ids.push_back(std::stoi(stem.substr(9)));
    }
    std::sort(ids.begin(), ids.end());
    if (!ids.empty()) {
      std::string prefix = std::string(dir) == "workloads" ? "pollux-" : "pollux-0.5-";
      out += (out.empty() ? "" : ", ") + prefix + std::to_string(ids.front()) + ".." + std::to_string(ids.back());
    }
  }
  out += std::string(out.empty() ? "" : ", ") + "philly, tiresias-60";
  return out;
}

std::set<std::string> known_applications(const std::string& data_dir) {
  std::set<std::string> apps;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(data_dir + "/app-profiles", ec))
    if (e.is_directory()) apps.insert(e.path().filename().string());
  return apps;
}

// Days since 1970-01-01 of the proleptic Gregorian date y-m-d (d valid for m). Eras of 400 years
// (146097 days) make the leap-year rule exact; months are counted from March so that the leap
// day is the last day of the shifted year.
long days_from_civil(long y, int m, int d) {
  y -= m <= 2 ? 1 : 0;
  const long era = (y >= 0 ? y : y - 399) / 400;
  const long year_of_era = y - era * 400;                          // [0, 399]
  const int shifted_month = m > 2 ? m - 3 : m + 9;                 // March = 0
  const long day_of_year = (153 * shifted_month + 2) / 5 + d - 1;  // [0, 365]
  const long day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;  // 719468 = days from 0000-03-01 to 1970-01-01
}

bool is_leap(long y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

// "YYYY-MM-DD HH:MM:SS" (or with 'T') -> seconds since 1970-01-01 UTC; false if malformed.
bool parse_timestamp(std::string_view s, double& out_s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  if (s.size() != 19 || s[4] != '-' || s[7] != '-' || (s[10] != ' ' && s[10] != 'T') || s[13] != ':' || s[16] != ':')
    return false;
  auto num = [&](size_t pos, size_t len, int& v) {
    v = 0;
    for (size_t i = pos; i < pos + len; ++i) {
      if (s[i] < '0' || s[i] > '9') return false;
      v = v * 10 + (s[i] - '0');
    }
    return true;
  };
  int y, mo, d, h, mi, se;
  if (!num(0, 4, y) || !num(5, 2, mo) || !num(8, 2, d) || !num(11, 2, h) || !num(14, 2, mi) || !num(17, 2, se))
    return false;
  static constexpr int kMonthDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (mo < 1 || mo > 12 || d < 1) return false;
  if (d > kMonthDays[mo - 1] + (mo == 2 && is_leap(y) ? 1 : 0)) return false;
  if (h > 23 || mi > 59 || se > 60) return false;
  out_s = static_cast<double>(days_from_civil(y, mo, d)) * 86400.0 + h * 3600.0 + mi * 60.0 + se;
  return true;
}

// Row readers shared by the formats. A value in [0, max] (workload.h: kMaxTraceTime_s for times,
// kMaxDemandPerGpu for demands): a time of 1e308 s would give a run that finishes no job.
double read_nonneg(const CsvTable& t, size_t r, int col, const char* what, double max) {
  double v = 0;
  if (!parse_double(t.str(r, col), v))
    t.fail(r, col, std::string("not a number: '") + std::string(t.str(r, col)) + "'");
  if (v < 0) t.fail(r, col, std::string("negative ") + what + ": " + std::string(t.str(r, col)));
  if (v > max)
    t.fail(r, col,
           std::string(what) + " " + std::string(t.str(r, col)) + " is out of range (at most " + fixed(max, 0) + ")");
  return v;
}

int read_count(const CsvTable& t, size_t r, int col) {
  long v = 0;
  if (!parse_long(t.str(r, col), v)) t.fail(r, col, "not an integer: '" + std::string(t.str(r, col)) + "'");
  if (v < 1) t.fail(r, col, "must be at least 1, found " + std::to_string(v));
  if (v > 1000000) t.fail(r, col, "too large: " + std::to_string(v));
  return static_cast<int>(v);
}

// Optional per-job demand override columns.
struct DemandColumns {
  int cpus = -1, mem = -1;
  explicit DemandColumns(const CsvTable& t) {
    if (t.has_column("cpus_per_gpu")) cpus = t.column("cpus_per_gpu");
    if (t.has_column("mem_gb_per_gpu")) mem = t.column("mem_gb_per_gpu");
  }
  void apply(const CsvTable& t, size_t r, Job& job) const {
    const AppDemand& d = demand_of(job.application);
    job.cpus_per_gpu = d.cpus_per_gpu;
    job.mem_gb_per_gpu = d.mem_gb_per_gpu;
    if (cpus >= 0 && !t.str(r, cpus).empty())
      job.cpus_per_gpu = read_nonneg(t, r, cpus, "CPU demand", kMaxDemandPerGpu);
    if (mem >= 0 && !t.str(r, mem).empty())
      job.mem_gb_per_gpu = read_nonneg(t, r, mem, "memory demand", kMaxDemandPerGpu);
  }
};

std::string require_name(const CsvTable& t, size_t r, int col) {
  std::string_view v = t.str(r, col);
  if (v.empty()) t.fail(r, col, "empty job name");
  return std::string(v);
}

// Jobs read from a file, with the column that holds their GPU count (for oversize errors).
struct ReadJobs {
  std::vector<Job> jobs;
  std::string gpu_field;
};

ReadJobs read_pollux(const CsvTable& t, const std::string& data_dir) {
  const int c_name = t.column("name"), c_time = t.column("time"), c_app = t.column("application"),
            c_rep = t.column("num_replicas"), c_bsz = t.column("batch_size");
  const DemandColumns demand(t);
  const std::set<std::string> apps = known_applications(data_dir);
  const std::string known = fmt::to_string(fmt::join(apps, ", "));
  ReadJobs out;
  out.gpu_field = "num_replicas";
  out.jobs.reserve(t.rows());
  for (size_t r = 0; r < t.rows(); ++r) {
    Job j;
    j.kind = WorkKind::Profile;
    j.name = require_name(t, r, c_name);
    j.arrival_s = read_nonneg(t, r, c_time, "time", kMaxTraceTime_s);
    j.application = std::string(t.str(r, c_app));
    if (!apps.count(j.application))
      t.fail(r, c_app,
             "unknown application '" + j.application +
                 "' (known: " + (known.empty() ? "none in " + data_dir + "/app-profiles" : known) + ")");
    j.num_gpus = read_count(t, r, c_rep);
    j.batch_size = read_count(t, r, c_bsz);
    demand.apply(t, r, j);
    j.source_file = t.path();
    j.source_line = t.line_of(r);
    out.jobs.push_back(std::move(j));
  }
  return out;
}

// The column names of a fixed-duration trace: dmlkit's own (name,time,num_gpus,duration
// [,application]) or the Tiresias authors' simulator's (below).
struct TraceColumns {
  const char* name;
  const char* time;
  const char* gpus;
  const char* duration;
  const char* label;  // optional: the job's application label
};

ReadJobs read_duration_trace(const CsvTable& t, const TraceColumns& cols) {
  const int c_name = t.column(cols.name), c_time = t.column(cols.time), c_gpus = t.column(cols.gpus),
            c_dur = t.column(cols.duration);
  const int c_label = t.has_column(cols.label) ? t.column(cols.label) : -1;
  const DemandColumns demand(t);
  ReadJobs out;
  out.gpu_field = cols.gpus;
  out.jobs.reserve(t.rows());
  for (size_t r = 0; r < t.rows(); ++r) {
    Job j;
    j.kind = WorkKind::FixedDuration;
    j.name = require_name(t, r, c_name);
    j.arrival_s = read_nonneg(t, r, c_time, cols.time, kMaxTraceTime_s);
    j.num_gpus = read_count(t, r, c_gpus);
    j.duration_s = read_nonneg(t, r, c_dur, cols.duration, kMaxTraceTime_s);
    if (c_label >= 0) j.application = std::string(t.str(r, c_label));
    demand.apply(t, r, j);
    j.source_file = t.path();
    j.source_line = t.line_of(r);
    out.jobs.push_back(std::move(j));
  }
  return out;
}

constexpr TraceColumns kDmlkitTrace{"name", "time", "num_gpus", "duration", "application"};

ReadJobs read_philly(const CsvTable& t, const WorkloadOptions& options, const std::string& stem) {
  const int c_ts = t.column("timestamp"), c_dur = t.column("duration"), c_gpus = t.column("num_gpus");
  const bool filter_vc = !options.virtual_clusters.empty();
  const int c_vc = filter_vc ? t.column("cluster") : (t.has_column("cluster") ? t.column("cluster") : -1);
  const DemandColumns demand(t);
  const std::set<std::string_view> vcs(options.virtual_clusters.begin(), options.virtual_clusters.end());

  // Parse and validate every row (a bad row is an error even if a filter would drop it).
  struct Row {
    double ts_s;
    size_t row;
  };
  std::vector<Row> rows;
  rows.reserve(t.rows());
  double first_s = INFINITY;
  for (size_t r = 0; r < t.rows(); ++r) {
    double ts = 0;
    if (!parse_timestamp(t.str(r, c_ts), ts))
      t.fail(r, c_ts, "not a timestamp 'YYYY-MM-DD HH:MM:SS': '" + std::string(t.str(r, c_ts)) + "'");
    read_nonneg(t, r, c_dur, "duration", kMaxTraceTime_s);
    read_count(t, r, c_gpus);
    if (filter_vc && !vcs.count(t.str(r, c_vc))) continue;
    rows.push_back({ts, r});
    first_s = std::min(first_s, ts);
  }
  // Time window relative to the first submission of the filtered trace.
  ReadJobs out;
  out.gpu_field = "num_gpus";
  out.jobs.reserve(rows.size());
  double first_kept_s = INFINITY;
  for (const Row& row : rows) {
    const double rel = row.ts_s - first_s;
    if (rel < options.window_start_s) continue;
    if (options.window_end_s >= 0 && rel >= options.window_end_s) continue;
    const size_t r = row.row;
    Job j;
    j.kind = WorkKind::FixedDuration;
    j.name = stem + "-" + std::to_string(r);
    j.arrival_s = row.ts_s;  // made relative below
    j.num_gpus = read_count(t, r, c_gpus);
    j.duration_s = read_nonneg(t, r, c_dur, "duration", kMaxTraceTime_s);
    demand.apply(t, r, j);
    j.source_file = t.path();
    j.source_line = t.line_of(r);
    first_kept_s = std::min(first_kept_s, j.arrival_s);
    out.jobs.push_back(std::move(j));
  }
  for (Job& j : out.jobs) j.arrival_s -= first_kept_s;
  return out;
}

// The trace format of the Tiresias authors' simulator (SymbioticLab/Tiresias simulator/README.md;
// read by run_sim.py parse_job_file and jobs.py add_job): job_id,num_gpu,submit_time,iterations,
// model_name,duration,interval. Its scheduler uses num_gpu, submit_time and duration only;
// model_name is kept as the job's application label (a trace job: no profile is looked up).
constexpr TraceColumns kTiresiasTrace{"job_id", "submit_time", "num_gpu", "duration", "model_name"};

enum class Format { Pollux, Philly, DmlkitTrace, Tiresias };

Format detect_format(const CsvTable& t) {
  if (t.has_column("timestamp")) return Format::Philly;
  if (t.has_column("job_id") && t.has_column("num_gpu") && t.has_column("submit_time")) return Format::Tiresias;
  if (t.has_column("num_replicas") || t.has_column("batch_size")) return Format::Pollux;
  if (t.has_column("num_gpus") || t.has_column("duration")) return Format::DmlkitTrace;
  std::string header;
  for (const auto& h : t.header()) header += (header.empty() ? "" : ",") + h;
  throw Error(t.path(), 1, "",
              "unrecognised workload header '" + header +
                  "' (expected name,time,application,num_replicas,batch_size or "
                  "timestamp,duration,num_gpus,gpu_time,cluster or name,time,num_gpus,duration[,application] or "
                  "job_id,num_gpu,submit_time,iterations,model_name,duration,interval)");
}

std::string filter_description(const WorkloadOptions& o) {
  std::string s;
  if (o.window_start_s > 0 || o.window_end_s >= 0) {
    s += "time window [" + std::to_string(o.window_start_s) + ", " +
         (o.window_end_s >= 0 ? std::to_string(o.window_end_s) : std::string("end")) + ") s";
  }
  if (!o.virtual_clusters.empty()) {
    s += s.empty() ? "" : ", ";
    s += "virtual clusters";
    for (const auto& vc : o.virtual_clusters) s += " " + vc;
  }
  if (o.drop_oversized) s += std::string(s.empty() ? "" : ", ") + "dropping jobs larger than the cluster";
  return s;
}

}  // namespace

std::string resolve_workload_path(const std::string& name_or_path, const std::string& data_dir) {
  const std::string dir = data_dir_or_default(data_dir);
  if (name_or_path.empty()) throw Error("empty workload name");
  const std::string bundled = bundled_path(name_or_path, dir);
  if (!bundled.empty() && is_regular_file(bundled)) return bundled;
  if (is_regular_file(name_or_path)) return name_or_path;
  throw Error(name_or_path, 0, "",
              "no such workload file and not a bundled workload (bundled: " + bundled_names(dir) + ")");
}

Workload load_workload(const std::string& name_or_path, const WorkloadOptions& options) {
  const std::string dir = data_dir_or_default(options.data_dir);
  const std::string path = resolve_workload_path(name_or_path, dir);
  if (options.window_start_s < 0) throw Error("workload time window: negative start");
  if (options.window_end_s >= 0 && options.window_end_s <= options.window_start_s)
    throw Error("workload time window: end must be after start");
  const CsvTable table = CsvTable::read(path);
  const bool bundled = !bundled_path(name_or_path, dir).empty() && path != name_or_path;
  const std::string stem = std::filesystem::path(path).stem().string();
  if (is_ps_workload_header(table.header())) {
    Workload w = load_ps_workload(path);  // parameter-server jobs (docs/optimus.md)
    if (bundled) w.name = name_or_path;
    return w;
  }

  ReadJobs read;
  switch (detect_format(table)) {
    case Format::Pollux:
      read = read_pollux(table, dir);
      break;
    case Format::Philly:
      read = read_philly(table, options, bundled ? name_or_path : stem);
      break;
    case Format::DmlkitTrace:
      read = read_duration_trace(table, kDmlkitTrace);
      break;
    case Format::Tiresias:
      read = read_duration_trace(table, kTiresiasTrace);
      break;
  }

  Workload w;
  w.name = bundled ? name_or_path : stem;
  w.path = path;
  w.jobs.reserve(read.jobs.size());
  for (Job& j : read.jobs) {
    if (options.cluster_gpus > 0 && j.num_gpus > options.cluster_gpus) {
      if (options.drop_oversized) {
        ++w.dropped_oversized;
        continue;
      }
      throw Error(path, j.source_line, read.gpu_field,
                  "job '" + j.name + "' needs " + std::to_string(j.num_gpus) + " GPUs but the cluster has " +
                      std::to_string(options.cluster_gpus) + " (use --drop-oversized to drop such jobs)");
    }
    w.jobs.push_back(std::move(j));
  }
  if (w.jobs.empty()) {
    const std::string filters = filter_description(options);
    throw Error(path, 0, "",
                "workload has no jobs" + (filters.empty() ? std::string() : " after filtering (" + filters + ")"));
  }
  std::stable_sort(w.jobs.begin(), w.jobs.end(), [](const Job& a, const Job& b) { return a.arrival_s < b.arrival_s; });
  for (size_t i = 0; i < w.jobs.size(); ++i) w.jobs[i].id = static_cast<int>(i);
  return w;
}

Workload synthetic_workload(const SyntheticSpec& spec, uint64_t seed) {
  const std::string src = "synthetic workload";
  if (spec.num_jobs < 1) throw Error(src, 0, "num_jobs", "must be at least 1");
  if (!(spec.arrival_rate_per_s > 0) || !std::isfinite(spec.arrival_rate_per_s))
    throw Error(src, 0, "arrival_rate_per_s", "must be a positive number");
  if (spec.gpu_choices.empty()) throw Error(src, 0, "gpu_choices", "must not be empty");
  if (spec.gpu_choices.size() != spec.gpu_weights.size())
    throw Error(src, 0, "gpu_weights", "needs one weight per GPU choice");
  double weight_sum = 0;
  for (size_t i = 0; i < spec.gpu_choices.size(); ++i) {
    if (spec.gpu_choices[i] < 1) throw Error(src, 0, "gpu_choices", "every GPU count must be at least 1");
    if (!(spec.gpu_weights[i] >= 0) || !std::isfinite(spec.gpu_weights[i]))
      throw Error(src, 0, "gpu_weights", "weights must be finite and non-negative");
    weight_sum += spec.gpu_weights[i];
  }
  if (!(weight_sum > 0)) throw Error(src, 0, "gpu_weights", "weights must not all be zero");
  if (!(spec.duration_median_s > 0) || !std::isfinite(spec.duration_median_s))
    throw Error(src, 0, "duration_median_s", "must be a positive number");
  if (!(spec.duration_sigma >= 0) || !std::isfinite(spec.duration_sigma))
    throw Error(src, 0, "duration_sigma", "must be a non-negative number");

  // Independent streams, so that changing the job mix does not move the arrival times.
  const Rng root(seed);
  Rng arrivals = root.split(1), sizes = root.split(2), durations = root.split(3);
  Workload w;
  w.name = "synthetic-" + std::to_string(seed);
  w.jobs.reserve(spec.num_jobs);
  double t = 0;
  for (int i = 0; i < spec.num_jobs; ++i) {
    if (i > 0) t += arrivals.exponential(spec.arrival_rate_per_s);
    Job j;
    j.id = i;
    j.name = "synthetic-" + std::to_string(i);
    j.arrival_s = t;
    j.kind = WorkKind::FixedDuration;
    double u = sizes.uniform() * weight_sum;
    size_t k = 0;
    while (k + 1 < spec.gpu_choices.size() && (u >= spec.gpu_weights[k] || spec.gpu_weights[k] == 0)) {
      u -= spec.gpu_weights[k];
      ++k;
    }
    // Floating-point leftovers can land on a zero-weight tail entry: fall back to the last
    // choice with a positive weight.
    while (spec.gpu_weights[k] == 0) --k;
    j.num_gpus = spec.gpu_choices[k];
    j.duration_s = spec.duration_median_s * std::exp(spec.duration_sigma * durations.normal(0.0, 1.0));
    j.cpus_per_gpu = kTraceDemand.cpus_per_gpu;
    j.mem_gb_per_gpu = kTraceDemand.mem_gb_per_gpu;
    w.jobs.push_back(std::move(j));
  }
  return w;
}

}  // namespace dmlkit::cluster
