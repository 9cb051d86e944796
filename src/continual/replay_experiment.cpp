// Sequential binary tasks on images with a replay buffer chosen by a sampling strategy
// (see replay_experiment.h). Runs (strategy, buffer size, seed) are spread over a thread pool.
#include "core/parallel_for.h"
#include "continual/replay_experiment.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <thread>

#include "continual/replay/strategy.h"
#include "continual/signal_noise.h"
#include "core/error.h"
#include "learn/gradient_descent.h"
#include "learn/multiclass_cnn.h"

namespace dmlkit::continual {
namespace {

using learn::Matrix;
using learn::PatchDataset;

// One task's samples as normalised pixel rows, with class ids and +-1 labels.
struct TaskData {
  Matrix x;                 // n x (rows*cols)
  std::vector<int> classes;
  std::vector<float> labels;
};

TaskData make_task(const ImageSet& set, int task, int per_class, const ReplayExperimentConfig& c) {
  const int dim = set.rows * set.cols;
  std::vector<size_t> idx;
  std::map<int, int> taken;
  for (size_t i = 0; i < set.size(); ++i) {
    const int cls = set.labels[i];
    if ((cls == 2 * task || cls == 2 * task + 1) && taken[cls] < per_class) {
      ++taken[cls];
      idx.push_back(i);
    }
  }
  TaskData t;
  t.x.resize(static_cast<Eigen::Index>(idx.size()), dim);
  for (size_t k = 0; k < idx.size(); ++k) {
    const uint8_t* px = set.pixels.data() + idx[k] * static_cast<size_t>(dim);
    for (int d = 0; d < dim; ++d)
      t.x(static_cast<Eigen::Index>(k), d) = c.normalise(px[d]);
    const int cls = set.labels[idx[k]];
    t.classes.push_back(cls);
    t.labels.push_back(cls % 2 == 0 ? 1.0f : -1.0f);
  }
  return t;
}

PatchDataset to_dataset(const Matrix& x, const std::vector<float>& labels) {
  return PatchDataset::from_patches(x, 1, labels, /*merge_duplicates=*/false);
}


// FNV-1a of a name: a stable stream key.
uint64_t name_key(const std::string& name) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char ch : name) h = (h ^ ch) * 1099511628211ULL;
  return h;
}

double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0.0 : s / static_cast<double>(v.size());
}
double std_of(const std::vector<double>& v) {
  if (v.size() < 2) return 0.0;
  const double m = mean_of(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / static_cast<double>(v.size() - 1));
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
  validate_training(1);
  if (strategies.empty()) bad("strategies", "no strategy");
  for (const auto& s : strategies) make_replay_strategy(s);
  if (buffer_sizes.empty()) bad("buffer_sizes", "no buffer size");
}

ReplayExperimentResult run_replay_experiment(const ImageSet& train, const ImageSet& test,
                                             const ReplayExperimentConfig& c) {
  c.validate();
  std::vector<TaskData> tr, te;
  for (int t = 0; t < c.tasks; ++t) {
    tr.push_back(make_task(train, t, c.train_per_class, c));
    te.push_back(make_task(test, t, c.test_per_class, c));
    if (tr.back().classes.empty() || te.back().classes.empty())
      throw Error("", 0, "tasks", "task " + std::to_string(t) + " has no images of classes " + std::to_string(2 * t) +
                                      " and " + std::to_string(2 * t + 1));
  }
  ReplayExperimentResult result;
  // Angle between consecutive tasks' signed mean directions.
  auto direction = [](const TaskData& t) {
    Eigen::RowVectorXf d = Eigen::RowVectorXf::Zero(t.x.cols());
    for (Eigen::Index i = 0; i < t.x.rows(); ++i) d += t.labels[static_cast<size_t>(i)] * t.x.row(i);
    return std::vector<float>(d.data(), d.data() + d.size());
  };
  for (int t = 0; t + 1 < c.tasks; ++t) result.task_angles_deg.push_back(angle_deg(direction(tr[t]), direction(tr[t + 1])));

  std::vector<PatchDataset> test_sets;
  for (const auto& t : te) test_sets.push_back(to_dataset(t.x, t.labels));
  const learn::PatchCnnShape shape = c.network_shape(static_cast<int>(tr[0].x.cols()));
  const learn::GdConfig gd = c.optimiser();

  const size_t S = c.strategies.size(), B = c.buffer_sizes.size(), N = static_cast<size_t>(c.seeds);
  result.runs.resize(S * B * N);
  parallel_for(S * B * N, c.threads, [&](size_t job) {
    const size_t s = job / (B * N), b = (job / N) % B, n = job % N;
    const auto strategy = make_replay_strategy(c.strategies[s]);
    const size_t capacity = c.buffer_sizes[b];
    // The network initialisation and the data order depend on the seed only, so strategies and
    // buffer sizes are compared on the same initial weights and task-0 training.
    const Rng base = Rng(c.seed).split(n);
    Rng r_init = base.split(1);
    const bool class_il = c.scenario == Scenario::class_il;
    learn::PatchCnn net(shape, r_init);
    learn::MulticlassShape mshape;
    mshape.input_len = shape.patch_len;
    mshape.classes = 2 * c.tasks;
    mshape.filters_per_class = c.filters_per_class;
    mshape.power_q = c.power_q;
    mshape.output_scale = shape.output_scale;
    Rng r_init_multi = base.split(2);
    learn::MulticlassCnn multi(mshape, r_init_multi);
    Matrix buf_x(0, shape.patch_len);
    std::vector<int> buf_cls;
    std::vector<float> buf_lab;
    ReplayRun run;
    run.strategy = c.strategies[s];
    run.buffer_size = capacity;
    run.seed_index = static_cast<int>(n);
    for (int t = 0; t < c.tasks; ++t) {
      Rng r_gd = base.split(100 + static_cast<uint64_t>(t));
      Matrix x(tr[t].x.rows() + buf_x.rows(), shape.patch_len);
      x << tr[t].x, buf_x;
      std::vector<double> acc;
      if (class_il) {
        std::vector<int> cls = tr[t].classes;
        cls.insert(cls.end(), buf_cls.begin(), buf_cls.end());
        multi.train_sgd(x, cls, c.learning_rate, c.epochs, c.batch_size, r_gd);
        std::vector<int> seen_classes;
        for (int k = 0; k < 2 * (t + 1); ++k) seen_classes.push_back(k);
        for (int j = 0; j <= t; ++j) acc.push_back(multi.accuracy(te[j].x, te[j].classes, seen_classes));
      } else {
        std::vector<float> lab = tr[t].labels;
        lab.insert(lab.end(), buf_lab.begin(), buf_lab.end());
        learn::train_gradient_descent(net, to_dataset(x, lab), gd, nullptr, r_gd);
        for (int j = 0; j <= t; ++j) acc.push_back(1.0 - net.error(test_sets[static_cast<size_t>(j)]));
      }
      run.accuracy.push_back(acc);
      // Buffer update (fill_buffer): old classes truncated to k, new classes chosen by the strategy.
      const size_t seen = static_cast<size_t>(2 * (t + 1));
      const size_t k = capacity / seen;
      std::map<int, size_t> kept;
      std::vector<Eigen::Index> keep_rows;
      for (size_t i = 0; i < buf_cls.size(); ++i)
        if (kept[buf_cls[i]]++ < k) keep_rows.push_back(static_cast<Eigen::Index>(i));
      // Keyed by strategy name and buffer size (not list position): a run's draws do not depend on
      // which other strategies or sizes are in the same command.
      Rng r_sel = Rng(c.seed).split(n).split(1000 + static_cast<uint64_t>(t)).split(name_key(c.strategies[s])).split(capacity);
      const auto chosen = strategy->select(tr[t].x, tr[t].classes, k * 2, r_sel);
      Matrix nx(static_cast<Eigen::Index>(keep_rows.size() + chosen.size()), shape.patch_len);
      std::vector<int> ncls;
      std::vector<float> nlab;
      Eigen::Index row = 0;
      for (Eigen::Index i : keep_rows) {
        nx.row(row++) = buf_x.row(i);
        ncls.push_back(buf_cls[static_cast<size_t>(i)]);
        nlab.push_back(buf_lab[static_cast<size_t>(i)]);
      }
      for (size_t i : chosen) {
        nx.row(row++) = tr[t].x.row(static_cast<Eigen::Index>(i));
        ncls.push_back(tr[t].classes[i]);
        nlab.push_back(tr[t].labels[i]);
      }
      buf_x = std::move(nx);
      buf_cls = std::move(ncls);
      buf_lab = std::move(nlab);
    }
    const auto& fin = run.accuracy.back();
    std::vector<double> old_acc, forget;
    for (int j = 0; j + 1 < c.tasks; ++j) {
      old_acc.push_back(fin[static_cast<size_t>(j)]);
      double best = 0;
      for (int i = j; i + 1 < c.tasks; ++i) best = std::max(best, run.accuracy[static_cast<size_t>(i)][static_cast<size_t>(j)]);
      forget.push_back(best - fin[static_cast<size_t>(j)]);
    }
    run.old_task_accuracy = mean_of(old_acc);
    run.average_forgetting = mean_of(forget);
    run.last_task_accuracy = fin.back();
    result.runs[job] = std::move(run);
  });
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
      p.old_acc_mean = mean_of(oa);
      p.old_acc_std = std_of(oa);
      p.forgetting_mean = mean_of(fg);
      p.forgetting_std = std_of(fg);
      p.last_acc_mean = mean_of(la);
      result.points.push_back(p);
    }
  return result;
}

}  // namespace dmlkit::continual
