// Angle sweep: task-1 training per seed, then every (seed, angle) job trains each variant on task 2;
// jobs are spread over a small pool of threads, each writing only its own result slots.
#include "core/parallel_for.h"
#include "continual/angle_sweep.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <sstream>
#include <thread>

#include "core/error.h"
#include "core/stats.h"
#include "learn/gradient_descent.h"
#include "learn/patch_cnn_batch.h"

namespace dmlkit::continual {
namespace {

using learn::PatchCnn;
using learn::PatchDataset;

// Per-seed task-1 state shared read-only by that seed's angle jobs.
struct TaskOne {
  PatchDataset train, test;
  PatchCnn net;
  learn::Matrix fisher;
  double train_error = 0, test_error = 0;
  bool diverged = false;
};

uint64_t angle_key(double angle) { return static_cast<uint64_t>(std::llround(angle * 1000.0)) + 1000000; }

learn::PatchCnnShape shape_of(const AngleSweepConfig& c) {
  learn::PatchCnnShape s;
  s.patch_len = c.data.patch_len;
  s.filters_per_class = c.filters_per_class;
  s.power_q = c.power_q;
  return s;
}

}  // namespace

const std::vector<Variant>& all_variants() {
  static const std::vector<Variant> v = {Variant::cl, Variant::replay, Variant::ewc, Variant::ewc_replay};
  return v;
}

std::string variant_name(Variant v) {
  switch (v) {
    case Variant::cl:
      return "cl";
    case Variant::replay:
      return "replay";
    case Variant::ewc:
      return "ewc";
    case Variant::ewc_replay:
      return "ewc-replay";
  }
  return "?";
}

Variant parse_variant(const std::string& name) {
  for (Variant v : all_variants())
    if (variant_name(v) == name) return v;
  throw Error("", 0, "variant", "unknown variant '" + name + "' (expected cl, replay, ewc, ewc-replay)");
}

bool AngleSweepConfig::has_ewc() const {
  return std::find(variants.begin(), variants.end(), Variant::ewc) != variants.end() ||
         std::find(variants.begin(), variants.end(), Variant::ewc_replay) != variants.end();
}

void AngleSweepConfig::validate() const {
  data.validate();
  auto bad = [](const char* field, const std::string& why) { throw Error("", 0, field, why); };
  if (filters_per_class < 1) bad("filters_per_class", "must be at least 1");
  if (power_q < 1) bad("power_q", "must be at least 1");
  if (!(learning_rate > 0) || !std::isfinite(learning_rate)) bad("learning_rate", "must be positive");
  if (epochs < 0) bad("epochs", "must be non-negative");
  if (!(replay_fraction >= 0 && replay_fraction < 1)) bad("replay_fraction", "must be in [0, 1)");
  if (!(ewc_lambda >= 0) || !std::isfinite(ewc_lambda)) bad("ewc_lambda", "must be non-negative");
  if (!(harmful_error > 0 && harmful_error <= 1)) bad("harmful_error", "must be in (0, 1]");
  if (angles_deg.empty()) bad("angles", "no angle to sweep");
  if (variants.empty()) bad("variants", "no variant to run");
  if (seeds < 1) bad("runs", "must be at least 1");
  if (threads < 1) bad("threads", "must be at least 1");
  if (chunk_models < 1) bad("chunk_models", "must be at least 1");
}

std::vector<double> parse_angles(const std::string& text) {
  auto num = [&](const std::string& s) {
    try {
      size_t used = 0;
      const double v = std::stod(s, &used);
      if (used != s.size() || !std::isfinite(v)) throw std::invalid_argument(s);
      return v;
    } catch (const std::exception&) {
      throw Error("", 0, "angles", "not a number: '" + s + "' in '" + text + "'");
    }
  };
  std::vector<double> out;
  if (text.find(':') != std::string::npos) {
    std::vector<std::string> parts;
    std::stringstream ss(text);
    for (std::string p; std::getline(ss, p, ':');) parts.push_back(p);
    if (parts.size() != 3) throw Error("", 0, "angles", "expected start:stop:step, got '" + text + "'");
    const double a = num(parts[0]), b = num(parts[1]), step = num(parts[2]);
    if (!(step > 0) || b < a) throw Error("", 0, "angles", "need step > 0 and stop >= start in '" + text + "'");
    const long count = static_cast<long>(std::floor((b - a) / step + 1e-9)) + 1;
    if (count > 100000) throw Error("", 0, "angles", "too many angles in '" + text + "'");
    for (long i = 0; i < count; ++i) out.push_back(a + static_cast<double>(i) * step);
  } else {
    std::stringstream ss(text);
    for (std::string p; std::getline(ss, p, ',');) out.push_back(num(p));
  }
  if (out.empty()) throw Error("", 0, "angles", "no angle in '" + text + "'");
  for (double a : out)
    if (a < 0 || a > 180) throw Error("", 0, "angles", "angle outside [0, 180]: " + std::to_string(a));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::optional<double> critical_angle(const std::vector<double>& angles, const std::vector<double>& errors,
                                     double threshold) {
  for (size_t i = 0; i < angles.size() && i < errors.size(); ++i) {
    if (errors[i] >= threshold) {
      if (i == 0) return angles[0];
      const double e0 = errors[i - 1], e1 = errors[i];
      const double t = e1 > e0 ? (threshold - e0) / (e1 - e0) : 1.0;
      return angles[i - 1] + t * (angles[i] - angles[i - 1]);
    }
  }
  return std::nullopt;
}

AngleSweepResult run_angle_sweep(const AngleSweepConfig& config, const SweepProgress& progress) {
  config.validate();
  const size_t S = static_cast<size_t>(config.seeds), A = config.angles_deg.size(), V = config.variants.size();
  std::mutex progress_mutex;
  size_t networks_done = 0;
  const size_t networks_total = S * (1 + A * V);
  auto networks_finished = [&](size_t count) {
    if (!progress) return;
    std::lock_guard<std::mutex> lock(progress_mutex);
    networks_done += count;
    progress(networks_done, networks_total);
  };
  const auto shape = shape_of(config);
  const bool need_fisher = config.has_ewc();
  learn::GdConfig gd;
  gd.learning_rate = config.learning_rate;
  gd.epochs = config.epochs;
  const auto mu1 = task_signal(config.data, 0.0);
  // Trains jobs[i] (network, data, penalty) with full-batch gradient descent on the chosen backend.
  auto train_all = [&](const std::vector<learn::PatchCnnTrainJob>& jobs) {
    if (config.backend == TrainBackend::torch) {
      learn::BatchTrainConfig bc;
      bc.chunk_models = config.chunk_models;
      bc.threads = config.threads;
      bc.on_chunk_done = networks_finished;
      return learn::train_full_batch_torch(jobs, gd, bc);
    }
    std::vector<learn::GdResult> res(jobs.size());
    parallel_for(jobs.size(), config.threads, [&](size_t i) {
      Rng unused(0);  // full batch: gradient descent draws nothing
      res[i] = learn::train_gradient_descent(*jobs[i].net, *jobs[i].data, gd, jobs[i].penalty, unused);
      networks_finished(1);
    });
    return res;
  };

  // Phase 1: task 1 for every seed.
  std::vector<std::optional<TaskOne>> ones(S);
  parallel_for(S, config.threads, [&](size_t s) {
    const Rng base = Rng(config.seed).split(s);
    Rng r_train = base.split(1), r_test = base.split(2), r_init = base.split(3);
    PatchDataset train = generate_task(config.data, mu1, config.data.train_per_task, r_train);
    PatchDataset test = generate_task(config.data, mu1, config.data.test_per_task, r_test);
    ones[s] = TaskOne{std::move(train), std::move(test), PatchCnn(shape, r_init), {}, 0, 0, false};
  });
  {
    std::vector<learn::PatchCnnTrainJob> jobs;
    for (auto& one : ones) jobs.push_back({&one->net, &one->train, nullptr});
    const auto res = train_all(jobs);
    for (size_t s = 0; s < S; ++s) ones[s]->diverged = res[s].diverged;
  }
  parallel_for(S, config.threads, [&](size_t s) {
    TaskOne& one = *ones[s];
    one.train_error = one.net.error(one.train);
    one.test_error = one.net.error(one.test);
    if (need_fisher) one.fisher = learn::fisher_diagonal(config.backend, one.net, one.train, config.fisher);
  });

  // Phase 2: every (seed, angle) pair gets its task-2 data and replay mix, then every variant
  // starts from that seed's task-1 network.
  struct TaskTwo {
    PatchDataset train, mix;
    Rng r_test{0};
  };
  std::vector<TaskTwo> twos(S * A);
  parallel_for(S * A, config.threads, [&](size_t job) {
    const size_t s = job / A, a = job % A;
    const TaskOne& one = *ones[s];
    const double angle = config.angles_deg[a];
    const Rng base = Rng(config.seed).split(s).split(angle_key(angle));
    Rng r_train = base.split(1), r_replay = base.split(3);
    const auto mu2 = task_signal(config.data, angle);
    PatchDataset train2 = generate_task(config.data, mu2, config.data.train_per_task, r_train);
    // Replay mix: the first n - k task-2 samples plus k task-1 samples drawn without replacement.
    const size_t n2 = train2.size();
    const size_t k =
        std::min(one.train.size(), static_cast<size_t>(std::llround(config.replay_fraction * static_cast<double>(n2))));
    std::vector<size_t> keep2(n2 - std::min(k, n2));
    for (size_t i = 0; i < keep2.size(); ++i) keep2[i] = i;
    std::vector<size_t> pool(one.train.size());
    for (size_t i = 0; i < pool.size(); ++i) pool[i] = i;
    pool.resize(r_replay.sample_prefix(pool.begin(), pool.end(), k));
    PatchDataset mix = PatchDataset::concat(train2.subset(keep2), one.train.subset(pool));
    twos[job] = TaskTwo{std::move(train2), std::move(mix), base.split(2)};
  });
  std::vector<learn::QuadraticPenalty> ewc;
  for (const auto& one : ones) ewc.push_back({one->net.weights(), one->fisher, config.ewc_lambda, config.ewc_step});
  std::vector<PatchCnn> nets;
  nets.reserve(S * A * V);
  std::vector<learn::PatchCnnTrainJob> jobs;
  for (size_t job = 0; job < S * A; ++job) {
    const size_t s = job / A;
    for (size_t v = 0; v < V; ++v) {
      const Variant variant = config.variants[v];
      const bool replay = variant == Variant::replay || variant == Variant::ewc_replay;
      const bool use_ewc = variant == Variant::ewc || variant == Variant::ewc_replay;
      nets.push_back(ones[s]->net);
      jobs.push_back({&nets.back(), replay ? &twos[job].mix : &twos[job].train, use_ewc ? &ewc[s] : nullptr});
    }
  }
  const auto trained = train_all(jobs);

  AngleSweepResult result;
  result.runs.resize(S * A * V);
  parallel_for(S * A, config.threads, [&](size_t job) {
    const size_t s = job / A, a = job % A;
    const TaskOne& one = *ones[s];
    const double angle = config.angles_deg[a];
    Rng r_test = twos[job].r_test;
    const PatchDataset test2 =
        generate_task(config.data, task_signal(config.data, angle), config.data.test_per_task, r_test);
    for (size_t v = 0; v < V; ++v) {
      const PatchCnn& net = nets[job * V + v];
      SweepRun run;
      run.variant = config.variants[v];
      run.angle_deg = angle;
      run.seed_index = static_cast<int>(s);
      run.task1_error_before = one.test_error;
      run.task1_error_after = net.error(one.test);
      run.task2_error = net.error(test2);
      run.diverged = trained[job * V + v].diverged || one.diverged;
      result.runs[job * V + v] = run;
    }
  });

  for (const auto& one : ones) {
    result.task1_train_error_mean += one->train_error / config.seeds;
    result.task1_test_error_mean += one->test_error / config.seeds;
  }
  for (size_t v = 0; v < V; ++v) {
    VariantSummary sum;
    sum.variant = config.variants[v];
    std::vector<double> means;
    for (size_t a = 0; a < A; ++a) {
      SweepPoint pt;
      pt.variant = config.variants[v];
      pt.angle_deg = config.angles_deg[a];
      std::vector<double> errs;
      double t2 = 0, fg = 0;
      for (int s = 0; s < config.seeds; ++s) {
        const SweepRun& run = result.runs[(static_cast<size_t>(s) * A + a) * V + v];
        errs.push_back(run.task1_error_after);
        t2 += run.task2_error;
        fg += run.task1_error_after - run.task1_error_before;
        if (run.diverged) ++pt.diverged_runs;
      }
      pt.runs = static_cast<int>(errs.size());
      const Summary err = summarize(errs);
      const double mean = err.mean;
      pt.error_mean = err.mean;
      pt.error_std = err.sd;
      pt.error_min = err.min;
      pt.error_max = err.max;
      pt.task2_error_mean = t2 / static_cast<double>(errs.size());
      pt.forgetting_mean = fg / static_cast<double>(errs.size());
      means.push_back(mean);
      sum.max_error_mean = std::max(sum.max_error_mean, mean);
      result.points.push_back(pt);
    }
    sum.critical_angle_deg = critical_angle(config.angles_deg, means, config.harmful_error);
    result.summary.push_back(sum);
  }
  return result;
}

}  // namespace dmlkit::continual
