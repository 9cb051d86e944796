// Sequential two-class tasks on images with a replay buffer chosen by a sampling strategy
// (see replay_experiment.h): task-il on the ReLU^q head with pixel features, class-il on the small
// CNN with its backbone features. Runs (strategy, buffer size, seed) are spread over a thread
// pool; each run writes only its own slot and draws only from its own Rng streams.
#include "core/parallel_for.h"
#include "continual/replay_experiment.h"

#include <algorithm>
#include <mutex>
#include <cmath>
#include <exception>
#include <map>
#include <optional>

#include "continual/replay/strategy.h"
#include "continual/signal_noise.h"
#include "core/error.h"
#include "core/stats.h"
#include "learn/gradient_descent.h"

namespace dmlkit::continual {
namespace {

using learn::Matrix;
using learn::PatchDataset;

// One task's samples as normalised pixel rows, with class ids and +-1 labels.
struct TaskData {
  Matrix x;  // n x (rows*cols)
  std::vector<int> classes;
  std::vector<float> labels;
};

// Task `task` = classes pair.first (label +1, class-il class 2*task) and pair.second (label -1,
// class 2*task+1), the first `per_class` images of each.
TaskData make_task(const ImageSet& set, int task, std::pair<int, int> pair, int per_class,
                   const ReplayExperimentConfig& c) {
  const int dim = set.rows * set.cols;
  std::vector<size_t> idx;
  std::map<int, int> taken;
  for (size_t i = 0; i < set.size(); ++i) {
    const int cls = set.labels[i];
    if ((cls == pair.first || cls == pair.second) && taken[cls] < per_class) {
      ++taken[cls];
      idx.push_back(i);
    }
  }
  TaskData t;
  t.x.resize(static_cast<Eigen::Index>(idx.size()), dim);
  for (size_t k = 0; k < idx.size(); ++k) {
    const uint8_t* px = set.pixels.data() + idx[k] * static_cast<size_t>(dim);
    for (int d = 0; d < dim; ++d) t.x(static_cast<Eigen::Index>(k), d) = c.normalise(px[d]);
    const bool first = set.labels[idx[k]] == pair.first;
    t.classes.push_back(first ? 2 * task : 2 * task + 1);
    t.labels.push_back(first ? 1.0f : -1.0f);
  }
  return t;
}

PatchDataset to_dataset(const Matrix& x, const std::vector<float>& labels) {
  return PatchDataset::from_patches(x, 1, labels, /*merge_duplicates=*/false);
}

// A task's data followed by the buffer's (the training set of one task).
TaskData with_buffer(const TaskData& task, const TaskData& buffer) {
  TaskData all;
  all.x.resize(task.x.rows() + buffer.x.rows(), task.x.cols());
  all.x << task.x, buffer.x;
  all.classes = task.classes;
  all.classes.insert(all.classes.end(), buffer.classes.begin(), buffer.classes.end());
  all.labels = task.labels;
  all.labels.insert(all.labels.end(), buffer.labels.begin(), buffer.labels.end());
  return all;
}

// Mammoth's fill_buffer: every class already in the buffer keeps its first k rows, then the rows
// `chosen` (by the strategy) of the new task follow.
TaskData refill_buffer(const TaskData& buffer, size_t k, const TaskData& task, const std::vector<size_t>& chosen) {
  std::map<int, size_t> kept;
  std::vector<Eigen::Index> keep_rows;
  for (size_t i = 0; i < buffer.classes.size(); ++i)
    if (kept[buffer.classes[i]]++ < k) keep_rows.push_back(static_cast<Eigen::Index>(i));
  TaskData out;
  out.x.resize(static_cast<Eigen::Index>(keep_rows.size() + chosen.size()), task.x.cols());
  Eigen::Index row = 0;
  for (Eigen::Index i : keep_rows) {
    out.x.row(row++) = buffer.x.row(i);
    out.classes.push_back(buffer.classes[static_cast<size_t>(i)]);
    out.labels.push_back(buffer.labels[static_cast<size_t>(i)]);
  }
  for (size_t i : chosen) {
    out.x.row(row++) = task.x.row(static_cast<Eigen::Index>(i));
    out.classes.push_back(task.classes[i]);
    out.labels.push_back(task.labels[i]);
  }
  return out;
}

// FNV-1a of a name: a stable stream key.
uint64_t name_key(const std::string& name) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char ch : name) h = (h ^ ch) * 1099511628211ULL;
  return h;
}

// Old-task accuracy, average forgetting and last-task accuracy from run.accuracy.
void summarise(ReplayRun& run) {
  const auto& fin = run.accuracy.back();
  const size_t tasks = run.accuracy.size();
  std::vector<double> old_acc, forget;
  for (size_t j = 0; j + 1 < tasks; ++j) {
    old_acc.push_back(fin[j]);
    double best = 0;
    for (size_t i = j; i + 1 < tasks; ++i) best = std::max(best, run.accuracy[i][j]);
    forget.push_back(best - fin[j]);
  }
  run.old_task_accuracy = summarize(old_acc).mean;
  run.average_forgetting = summarize(forget).mean;
  run.last_task_accuracy = fin.back();
}

}  // namespace

Scenario parse_scenario(const std::string& name) {
  if (name == "task-il") return Scenario::task_il;
  if (name == "class-il") return Scenario::class_il;
  throw Error("", 0, "scenario", "unknown scenario '" + name + "' (expected task-il or class-il)");
}

void ReplayExperimentConfig::validate() const {
  auto bad = [](const char* field, const std::string& why) { throw Error("", 0, field, why); };
  if (tasks < 2 || tasks > 5) bad("tasks", "must be between 2 and 5");
  if (!task_classes.empty()) {
    if (static_cast<int>(task_classes.size()) != tasks)
      bad("task_classes", std::to_string(task_classes.size()) + " class pairs for " + std::to_string(tasks) + " tasks");
    std::vector<int> seen;
    for (const auto& [a, b] : task_classes)
      for (int cls : {a, b}) {
        if (cls < 0 || cls > 255) bad("task_classes", "class " + std::to_string(cls) + " outside [0, 255]");
        if (std::find(seen.begin(), seen.end(), cls) != seen.end())
          bad("task_classes", "class " + std::to_string(cls) + " appears in two tasks (or twice in one)");
        seen.push_back(cls);
      }
  }
  validate_training(1);
  if (strategies.empty()) bad("strategies", "no strategy");
  for (const auto& s : strategies) make_replay_strategy(s);
  if (buffer_sizes.empty()) bad("buffer_sizes", "no buffer size");
  // A buffer larger than every training image of the run could never be filled.
  const size_t images = 2 * static_cast<size_t>(train_per_class) * static_cast<size_t>(tasks);
  for (size_t b : buffer_sizes)
    if (b > images)
      bad("buffer_sizes", std::to_string(b) + " exceeds the " + std::to_string(images) +
                              " training images of the run (2 classes x --train-per-class x --tasks)");
  if (scenario == Scenario::class_il) {
    if (backend != learn::TrainBackend::torch)
      bad("backend", "class-il trains a libtorch CNN; the eigen backend exists for the task-il head only");
    if (!(cnn_learning_rate > 0) || !std::isfinite(cnn_learning_rate)) bad("cnn_learning_rate", "must be positive");
    if (cnn_batch_size < 1) bad("cnn_batch_size", "must be at least 1");
    if (!(cnn_momentum >= 0 && cnn_momentum < 1)) bad("cnn_momentum", "must be in [0, 1)");
    cnn_shape(28, 28).validate();  // channel, kernel and feature sizes; the image size is checked on the data
  }
}

std::vector<std::pair<int, int>> ReplayExperimentConfig::class_pairs() const {
  if (!task_classes.empty()) return task_classes;
  std::vector<std::pair<int, int>> pairs;
  for (int t = 0; t < tasks; ++t) pairs.emplace_back(2 * t, 2 * t + 1);
  return pairs;
}

learn::SmallCnnShape ReplayExperimentConfig::cnn_shape(int rows, int cols) const {
  learn::SmallCnnShape s;
  s.image_rows = rows;
  s.image_cols = cols;
  s.conv1_channels = cnn_conv1_channels;
  s.conv2_channels = cnn_conv2_channels;
  s.kernel = cnn_kernel;
  s.feature_dim = cnn_feature_dim;
  s.classes = 2 * tasks;
  return s;
}

ReplayExperimentResult run_replay_experiment(const ImageSet& train, const ImageSet& test,
                                             const ReplayExperimentConfig& c,
                                             const std::function<void(size_t done, size_t total)>& progress) {
  c.validate();
  std::vector<TaskData> tr, te;
  const auto pairs = c.class_pairs();
  for (int t = 0; t < c.tasks; ++t) {
    const auto pair = pairs[static_cast<size_t>(t)];
    tr.push_back(make_task(train, t, pair, c.train_per_class, c));
    te.push_back(make_task(test, t, pair, c.test_per_class, c));
    for (const TaskData* d : {&tr.back(), &te.back()})
      for (int cls : {2 * t, 2 * t + 1})
        if (std::find(d->classes.begin(), d->classes.end(), cls) == d->classes.end())
          throw Error("", 0, "tasks",
                      "task " + std::to_string(t) + ": no " + (d == &tr.back() ? "training" : "test") +
                          " image of class " + std::to_string(cls == 2 * t ? pair.first : pair.second));
  }
  ReplayExperimentResult result;
  // Angle between consecutive tasks' signed mean directions.
  auto direction = [](const TaskData& t) {
    Eigen::RowVectorXf d = Eigen::RowVectorXf::Zero(t.x.cols());
    for (Eigen::Index i = 0; i < t.x.rows(); ++i) d += t.labels[static_cast<size_t>(i)] * t.x.row(i);
    return std::vector<float>(d.data(), d.data() + d.size());
  };
  for (int t = 0; t + 1 < c.tasks; ++t)
    result.task_angles_deg.push_back(angle_deg(direction(tr[t]), direction(tr[t + 1])));

  std::vector<PatchDataset> test_sets;
  for (const auto& t : te) test_sets.push_back(to_dataset(t.x, t.labels));
  const learn::PatchCnnShape shape = c.network_shape(static_cast<int>(tr[0].x.cols()));
  const learn::GdConfig gd = c.optimiser();

  const bool class_il = c.scenario == Scenario::class_il;
  const learn::SmallCnnShape cnn_shape = c.cnn_shape(train.rows, train.cols);
  if (class_il) cnn_shape.validate();  // before the worker threads: an image too small is an Error
  learn::SmallCnnSgd cnn_sgd;
  cnn_sgd.learning_rate = c.cnn_learning_rate;
  cnn_sgd.momentum = c.cnn_momentum;
  cnn_sgd.epochs = c.epochs;
  cnn_sgd.batch_size = c.cnn_batch_size;

  const size_t S = c.strategies.size(), B = c.buffer_sizes.size(), N = static_cast<size_t>(c.seeds);
  result.runs.resize(S * B * N);
  std::vector<std::exception_ptr> failures(S * B * N);
  std::mutex progress_mutex;
  size_t runs_done = 0;
  parallel_for(S * B * N, c.threads, [&](size_t job) {
    try {
      const size_t s = job / (B * N), b = (job / N) % B, n = job % N;
      const auto strategy = make_replay_strategy(c.strategies[s]);
      const size_t capacity = c.buffer_sizes[b];
      // The network initialisation and the data order depend on the seed only, so strategies and
      // buffer sizes are compared on the same initial weights and task-0 training.
      const Rng base = Rng(c.seed).split(n);
      std::optional<learn::PatchCnn> net;  // task-il
      std::optional<learn::SmallCnn> cnn;  // class-il
      if (class_il) {
        Rng r_init = base.split(2);
        cnn.emplace(cnn_shape, r_init);
      } else {
        Rng r_init = base.split(1);
        net.emplace(shape, r_init);
      }
      TaskData buffer;
      buffer.x.resize(0, shape.patch_len);
      ReplayRun run;
      run.strategy = c.strategies[s];
      run.buffer_size = capacity;
      run.seed_index = static_cast<int>(n);
      for (int t = 0; t < c.tasks; ++t) {
        Rng r_gd = base.split(100 + static_cast<uint64_t>(t));
        const TaskData data = with_buffer(tr[t], buffer);
        std::vector<double> acc;
        if (class_il) {
          cnn->train_sgd(data.x, data.classes, cnn_sgd, r_gd);
          std::vector<int> seen_classes;
          for (int k = 0; k < 2 * (t + 1); ++k) seen_classes.push_back(k);
          for (int j = 0; j <= t; ++j) acc.push_back(cnn->accuracy(te[j].x, te[j].classes, seen_classes));
        } else {
          learn::train_patch_cnn(c.backend, *net, to_dataset(data.x, data.labels), gd, nullptr, r_gd);
          for (int j = 0; j <= t; ++j) acc.push_back(1.0 - net->error(test_sets[static_cast<size_t>(j)]));
        }
        run.accuracy.push_back(acc);
        if (t + 1 == c.tasks) break;                                   // the buffer after the last task is never used
        const size_t k = capacity / static_cast<size_t>(2 * (t + 1));  // per class seen
        // Keyed by strategy name and buffer size (not list position): a run's draws do not depend on
        // which other strategies or sizes are in the same command.
        Rng r_sel = Rng(c.seed)
                        .split(n)
                        .split(1000 + static_cast<uint64_t>(t))
                        .split(name_key(c.strategies[s]))
                        .split(capacity);
        // class-il: the CNN's backbone features after training on task t; task-il: pixels.
        std::vector<size_t> chosen;
        if (k > 0)
          chosen = class_il ? strategy->select(cnn->features(tr[t].x), tr[t].classes, k * 2, r_sel)
                            : strategy->select(tr[t].x, tr[t].classes, k * 2, r_sel);
        buffer = refill_buffer(buffer, k, tr[t], chosen);
      }
      summarise(run);
      result.runs[job] = std::move(run);
      if (progress) {
        std::lock_guard lock(progress_mutex);
        progress(++runs_done, S * B * N);
      }
    } catch (...) {
      failures[job] = std::current_exception();  // rethrown below, on the calling thread
    }
  });
  for (const auto& f : failures)
    if (f) std::rethrow_exception(f);
  for (size_t s = 0; s < S; ++s)
    for (size_t b = 0; b < B; ++b) {
      std::vector<double> oa, fg, la;
      for (size_t n = 0; n < N; ++n) {
        const auto& r = result.runs[(s * B + b) * N + n];
        oa.push_back(r.old_task_accuracy);
        fg.push_back(r.average_forgetting);
        la.push_back(r.last_task_accuracy);
      }
      ReplayPoint p;
      p.strategy = c.strategies[s];
      p.buffer_size = c.buffer_sizes[b];
      p.runs = static_cast<int>(N);
      const Summary old_acc = summarize(oa), forgetting = summarize(fg);
      p.old_acc_mean = old_acc.mean;
      p.old_acc_std = old_acc.sd;
      p.forgetting_mean = forgetting.mean;
      p.forgetting_std = forgetting.sd;
      p.last_acc_mean = summarize(la).mean;
      result.points.push_back(p);
    }
  return result;
}

}  // namespace dmlkit::continual
