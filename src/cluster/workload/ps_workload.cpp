// PS-job workloads: DL2's generator and the PS job CSV; see ps_workload.h.
// DL2 demands (spec 1.3): servers of 8 CPU "slots" and 2 GPUs (DL2's 8 GPU slots, 4 per GPU); a GPU
// worker takes 2 CPU slots and 1 GPU, a CPU worker and every PS 2 CPU slots; no memory/bandwidth.
#include "cluster/workload/ps_workload.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <sstream>

#include "cluster/model/harmony_job.h"
#include "cluster/model/ps_job.h"
#include "cluster/workload/ps_job_of_type.h"
#include "core/csv.h"
#include "core/error.h"
#include "core/output_dir.h"
#include "core/rng.h"

namespace dmlkit::cluster {

// The file's header has an unquoted comma inside its second column name, so it is read by hand:
// each data line is `max,"n n n ..."`.
std::vector<int> google_arrival_pattern(const std::string& data_dir, int max_per_slot) {
  const std::string path = data_dir + "/dl2-measurements/google_arrival_patterns.csv";
  std::istringstream in(read_text_file(path));
  std::string line;
  long lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (lineno == 1) {
      if (line.rfind("max_arrivals_per_slot,", 0) != 0) throw Error(path, 1, "max_arrivals_per_slot", "missing column");
      continue;
    }
    if (line.empty() || line == "\r") continue;
    const size_t comma = line.find(',');
    long max = 0;
    if (comma == std::string::npos || !parse_long(std::string_view(line).substr(0, comma), max))
      throw Error(path, lineno, "max_arrivals_per_slot", "not an integer");
    if (max != max_per_slot) continue;
    std::string body = line.substr(comma + 1);
    body.erase(std::remove(body.begin(), body.end(), '"'), body.end());
    std::istringstream cells(body);
    std::vector<int> out;
    std::string tok;
    while (cells >> tok) {
      long v = 0;
      if (!parse_long(tok, v) || v < 0) throw Error(path, lineno, "pattern", "bad arrival count '" + tok + "'");
      out.push_back(static_cast<int>(v));
    }
    if (out.empty()) throw Error(path, lineno, "pattern", "empty pattern");
    return out;
  }
  throw Error(path, 0, "max_arrivals_per_slot",
              "no Google arrival pattern for " + std::to_string(max_per_slot) + " arrivals per slot");
}

void fill_ps_job(Job& job, int type, double epochs, int user_ps, int user_workers, PsTrainingMode mode,
                 const std::string& demands, double loss_noise_sd, double threshold, uint64_t seed) {
  const PsJobType& t = ps_job_types().at(type);
  auto spec = std::make_shared<PsJobSpec>();
  spec->type = type;
  spec->mode = mode;
  if (demands == "dl2") {
    spec->worker = TaskDemand{2, t.gpu_worker ? 1 : 0, 0, 0};
    spec->ps = TaskDemand{2, 0, 0, 0};
  } else if (demands == "testbed") {
    spec->worker = t.testbed_worker;
    spec->ps = t.testbed_ps;
  } else {
    throw Error("PS workload: unknown demand set '" + demands + "' (known: dl2, testbed)");
  }
  spec->total_epochs = epochs;
  spec->user_ps = user_ps;
  spec->user_workers = user_workers;
  spec->eval_every_epochs = epochs / t.loss_evals;
  make_loss_curve(t.loss_evals, t.loss_floor, loss_noise_sd, threshold, *spec);
  spec->seed = seed;
  job.kind = WorkKind::ParameterServer;
  job.application = t.name;
  job.num_gpus = std::max(1, user_workers * spec->worker.gpus);
  job.ps = std::move(spec);
}

void fill_harmony_job(Job& job, int harmony_type, double epochs, int user_ps, int user_workers, PsTrainingMode mode,
                      double loss_noise_sd, double threshold, uint64_t seed) {
  const HarmonyJobType& h = harmony_job_types().at(harmony_type);
  const int basis = find_ps_job_type(h.basis);
  if (basis < 0) throw Error("harmony job type '" + h.name + "': unknown basis type '" + h.basis + "'");
  fill_ps_job(job, basis, epochs, user_ps, user_workers, mode, "dl2", loss_noise_sd, threshold, seed);
  auto spec = std::make_shared<PsJobSpec>(*job.ps);
  spec->harmony_type = harmony_type;
  spec->worker = h.worker;
  spec->ps = h.ps;
  job.application = h.name;
  job.num_gpus = std::max(1, user_workers * spec->worker.gpus);
  job.ps = std::move(spec);
}

Workload ps_workload(const PsWorkloadSpec& s, uint64_t seed, const std::string& data_dir) {
  if (s.num_jobs < 1) throw Error("PS workload: num_jobs must be at least 1");
  if (!(s.slot_s > 0)) throw Error("PS workload: slot_s must be positive");
  if (!(s.max_num_epochs > 0)) throw Error("PS workload: max_num_epochs must be positive");
  if (!(s.epoch_jitter >= 0 && s.epoch_jitter < 1)) throw Error("PS workload: epoch_jitter must be in [0, 1)");
  if (s.max_arrivals_per_slot < 1) throw Error("PS workload: max_arrivals_per_slot must be at least 1");
  if (s.user_workers_min < 1 || s.user_workers_max < s.user_workers_min)
    throw Error("PS workload: need 1 <= user_workers_min <= user_workers_max");
  if (!(s.user_ps_per_worker > 0)) throw Error("PS workload: user_ps_per_worker must be positive");
  if (!(s.async_fraction >= 0 && s.async_fraction <= 1)) throw Error("PS workload: async_fraction must be in [0, 1]");
  if (!(s.allreduce_fraction >= 0 && s.allreduce_fraction <= 1))
    throw Error("PS workload: allreduce_fraction must be in [0, 1]");
  const bool harmony = s.catalogue == "harmony";
  if (!harmony && s.catalogue != "dl2")
    throw Error("PS workload: unknown catalogue '" + s.catalogue + "' (known: dl2, harmony)");
  std::vector<int> types;
  for (const auto& name : s.types) {
    const int t = harmony ? find_harmony_job_type(name) : find_ps_job_type(name);
    if (t < 0)
      throw Error("PS workload: unknown job type '" + name + "'" +
                  (harmony ? " (known Harmony types: " + harmony_job_type_names() + ")" : std::string()));
    types.push_back(t);
  }
  const int num_types = static_cast<int>(harmony ? harmony_job_types().size() : ps_job_types().size());
  if (types.empty())
    for (int t = 0; t < num_types; ++t) types.push_back(t);

  Rng root(seed);
  Rng arrivals_rng = root.split(1), types_rng = root.split(2), jobs_rng = root.split(3);
  // Arrival slots, one per job, non-decreasing.
  std::vector<long> slots;
  if (s.arrivals == "google" || s.arrivals == "uniform" || s.arrivals == "poisson") {
    std::vector<int> pattern;
    if (s.arrivals == "google") pattern = google_arrival_pattern(data_dir, s.max_arrivals_per_slot);
    const long offset = arrivals_rng.uniform_int(0, 4);
    for (long t = 0; static_cast<int>(slots.size()) < s.num_jobs; ++t) {
      long n = s.max_arrivals_per_slot;
      if (s.arrivals == "google") {
        n = std::min<long>(s.max_arrivals_per_slot, pattern[(t + offset) % pattern.size()]);
      } else if (s.arrivals == "poisson") {
        // Knuth's method (small means).
        const double limit = std::exp(-static_cast<double>(s.max_arrivals_per_slot));
        double prod = arrivals_rng.uniform();
        n = 0;
        while (prod > limit) {
          ++n;
          prod *= arrivals_rng.uniform();
        }
      }
      for (long k = 0; k < n && static_cast<int>(slots.size()) < s.num_jobs; ++k) slots.push_back(t);
      if (t > 1000000) throw Error("PS workload: the arrival pattern never produces jobs");
    }
  } else if (s.arrivals == "window") {
    if (s.window_slots < 1) throw Error("PS workload: window_slots must be at least 1");
    for (int i = 0; i < s.num_jobs; ++i) slots.push_back(arrivals_rng.uniform_int(0, s.window_slots - 1));
    std::sort(slots.begin(), slots.end());
  } else {
    throw Error("PS workload: unknown arrival pattern '" + s.arrivals + "' (known: google, uniform, poisson, window)");
  }

  Workload w;
  w.name = "ps-" + s.arrivals + "-" + std::to_string(s.num_jobs);
  w.path = "(generated)";
  for (int i = 0; i < s.num_jobs; ++i) {
    const int type = types[types_rng.uniform_int(0, static_cast<int64_t>(types.size()) - 1)];
    Rng r = jobs_rng.split(static_cast<uint64_t>(i));
    const double jitter = s.epoch_jitter > 0 ? r.uniform(-s.epoch_jitter, s.epoch_jitter) : 0.0;
    const double fraction = harmony ? harmony_job_types()[type].epoch_fraction : ps_job_types()[type].epoch_fraction;
    const double epochs = fraction * s.max_num_epochs * (1.0 + jitter);
    const int uw = static_cast<int>(r.uniform_int(s.user_workers_min, s.user_workers_max));
    const int up = std::max(1, static_cast<int>(std::lround(uw * s.user_ps_per_worker)));
    const PsTrainingMode mode = r.uniform() < s.async_fraction ? PsTrainingMode::Async : PsTrainingMode::Sync;
    Job j;
    j.id = i;
    j.name = "ps" + std::to_string(i) + "-" + (harmony ? harmony_job_types()[type].name : ps_job_types()[type].name);
    j.arrival_s = static_cast<double>(slots[i]) * s.slot_s;
    if (harmony) {
      fill_harmony_job(j, type, epochs, up, uw, mode, s.loss_noise_sd, s.convergence_threshold, r.next());
      // Drawn only when asked for, so traces without all-reduce jobs stay as they were.
      if (s.allreduce_fraction > 0 && r.uniform() < s.allreduce_fraction) {
        auto spec = std::make_shared<PsJobSpec>(*j.ps);
        spec->allreduce = true;
        spec->user_ps = 0;
        spec->mode = PsTrainingMode::Sync;
        j.ps = std::move(spec);
        j.name = "ar" + j.name.substr(2);
      }
    } else
      fill_ps_job(j, type, epochs, up, uw, mode, s.demands, s.loss_noise_sd, s.convergence_threshold, r.next());
    j.source_file = w.name;
    j.source_line = i + 1;
    w.jobs.push_back(std::move(j));
  }
  return w;
}

bool is_ps_workload_header(const std::vector<std::string>& header) {
  return std::find(header.begin(), header.end(), "type") != header.end() &&
         std::find(header.begin(), header.end(), "epochs") != header.end();
}

Job ps_job_of_type(const std::string& type_name, double epochs, int user_ps, int user_workers, PsTrainingMode mode,
                   uint64_t seed) {
  const int type = find_ps_job_type(type_name);
  const int htype = type < 0 ? find_harmony_job_type(type_name) : -1;
  if (type < 0 && htype < 0) {
    std::string known;
    for (const auto& ty : ps_job_types()) known += (known.empty() ? "" : ", ") + ty.name;
    throw Error("unknown job type '" + type_name + "' (known: " + known + "; Harmony: " + harmony_job_type_names() + ")");
  }
  Job j;
  if (htype >= 0)
    fill_harmony_job(j, htype, epochs, user_ps, user_workers, mode, 0.01, 0.05, seed);
  else
    fill_ps_job(j, type, epochs, user_ps, user_workers, mode, "testbed", 0.01, 0.05, seed);
  return j;
}

Workload load_ps_workload(const std::string& path) {
  const CsvTable t = CsvTable::read(path);
  const int c_name = t.column("name"), c_time = t.column("time"), c_type = t.column("type");
  const int c_epochs = t.column("epochs"), c_ps = t.column("ps"), c_workers = t.column("workers");
  auto opt = [&](const char* name) { return t.has_column(name) ? t.column(name) : -1; };
  const int c_mode = opt("mode");
  const char* demand_cols[] = {"worker_cpus", "worker_gpus", "worker_mem_gb", "worker_net_gbps",
                               "ps_cpus",     "ps_mem_gb",   "ps_net_gbps"};
  int c_dem[7];
  for (int k = 0; k < 7; ++k) c_dem[k] = opt(demand_cols[k]);
  Workload w;
  w.path = path;
  w.name = std::filesystem::path(path).stem().string();
  for (size_t r = 0; r < t.rows(); ++r) {
    Job j;
    j.name = std::string(t.str(r, c_name));
    j.arrival_s = t.num(r, c_time);
    if (j.arrival_s < 0) t.fail(r, c_time, "negative arrival time");
    const std::string type_name(t.str(r, c_type));
    const int type = find_ps_job_type(type_name);
    const int htype = type < 0 ? find_harmony_job_type(type_name) : -1;
    if (type < 0 && htype < 0) {
      std::string known;
      for (const auto& ty : ps_job_types()) known += (known.empty() ? "" : ", ") + ty.name;
      t.fail(r, c_type,
             "unknown job type '" + type_name + "' (known: " + known + "; Harmony: " + harmony_job_type_names() + ")");
    }
    const double epochs = t.num(r, c_epochs);
    if (!(epochs > 0)) t.fail(r, c_epochs, "must be positive");
    const long ps = t.integer(r, c_ps), workers = t.integer(r, c_workers);
    if (ps < 1 || ps > 1000) t.fail(r, c_ps, "must be in [1, 1000]");
    if (workers < 1 || workers > 1000) t.fail(r, c_workers, "must be in [1, 1000]");
    PsTrainingMode mode = PsTrainingMode::Sync;
    if (c_mode >= 0) {
      const auto m = t.str(r, c_mode);
      if (m == "async")
        mode = PsTrainingMode::Async;
      else if (m != "sync" && !m.empty())
        t.fail(r, c_mode, "expected sync or async");
    }
    if (htype >= 0)
      fill_harmony_job(j, htype, epochs, static_cast<int>(ps), static_cast<int>(workers), mode, 0.01, 0.05,
                       0x9E3779B97F4A7C15ULL * (r + 1));
    else
      fill_ps_job(j, type, epochs, static_cast<int>(ps), static_cast<int>(workers), mode, "testbed", 0.01, 0.05,
                  0x9E3779B97F4A7C15ULL * (r + 1));
    auto spec = std::make_shared<PsJobSpec>(*j.ps);
    double* fields[] = {&spec->worker.cpus, nullptr,          &spec->worker.mem_gb, &spec->worker.net_gbps,
                        &spec->ps.cpus,     &spec->ps.mem_gb, &spec->ps.net_gbps};
    for (int k = 0; k < 7; ++k) {
      if (c_dem[k] < 0 || t.str(r, c_dem[k]).empty()) continue;
      const double v = t.num(r, c_dem[k]);
      if (v < 0) t.fail(r, c_dem[k], "negative demand");
      if (k == 1) {
        if (v != std::floor(v)) t.fail(r, c_dem[k], "GPU demand must be a whole number");
        spec->worker.gpus = static_cast<int>(v);
      } else {
        *fields[k] = v;
      }
    }
    validate_ps_job(*spec, path, t.line_of(r));
    j.num_gpus = std::max(1, spec->user_workers * spec->worker.gpus);
    j.ps = std::move(spec);
    j.source_file = path;
    j.source_line = t.line_of(r);
    w.jobs.push_back(std::move(j));
  }
  std::stable_sort(w.jobs.begin(), w.jobs.end(), [](const Job& a, const Job& b) { return a.arrival_s < b.arrival_s; });
  for (size_t i = 0; i < w.jobs.size(); ++i) w.jobs[i].id = static_cast<int>(i);
  return w;
}

}  // namespace dmlkit::cluster
