// "+class vs -class" tasks, their measured angles and the replay-size sweep (see the header).
#include "core/parallel_for.h"
#include "continual/sign_task_experiment.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <cmath>
#include <thread>

#include "continual/signal_noise.h"
#include "core/error.h"
#include "core/stats.h"
#include "learn/gradient_descent.h"

namespace dmlkit::continual {
namespace {

using learn::Matrix;
using learn::PatchDataset;

// Normalised images of class c (at most `limit`), in file order.
Matrix class_images(const ImageSet& set, int c, int limit, const SignTaskConfig& cfg) {
  const int dim = set.rows * set.cols;
  std::vector<size_t> idx;
  for (size_t i = 0; i < set.size() && static_cast<int>(idx.size()) < limit; ++i)
    if (set.labels[i] == c) idx.push_back(i);
  Matrix x(static_cast<Eigen::Index>(idx.size()), dim);
  for (size_t k = 0; k < idx.size(); ++k) {
    const uint8_t* px = set.pixels.data() + idx[k] * static_cast<size_t>(dim);
    for (int d = 0; d < dim; ++d) x(static_cast<Eigen::Index>(k), d) = cfg.normalise(px[d]);
  }
  return x;
}

// The sign task of `images` in the order `order`: the first half of `order` keeps +x (+1), the
// second half becomes -x (-1). Returns the rows in `order`'s order.
void append_sign_task(const Matrix& images, const std::vector<size_t>& order, size_t count, Matrix& x,
                      std::vector<float>& labels, float label_sign = 1.0f) {
  const Eigen::Index start = x.rows();
  x.conservativeResize(start + static_cast<Eigen::Index>(count), images.cols());
  for (size_t k = 0; k < count; ++k) {
    const bool positive = order[k] % 2 == 0;  // parity of the image index: half and half
    x.row(start + static_cast<Eigen::Index>(k)) =
        (positive ? 1.0f : -1.0f) * images.row(static_cast<Eigen::Index>(order[k]));
    labels.push_back(positive ? label_sign : -label_sign);
  }
}

std::vector<float> mean_row(const Matrix& m) {
  const Eigen::RowVectorXf v = m.colwise().mean();
  return {v.data(), v.data() + v.size()};
}

}  // namespace

void SignTaskConfig::validate() const {
  auto bad = [](const char* field, const std::string& why) { throw Error("", 0, field, why); };
  if (pairs.empty()) bad("pairs", "no task pair");
  for (const auto& [a, b] : pairs)
    if (a < 0 || a > 9 || b < 0 || b > 9 || a == b) bad("pairs", "classes must be distinct and in 0..9");
  if (replay_sizes.empty()) bad("replay_sizes", "no replay size");
  for (int r : replay_sizes)
    if (r < 0) bad("replay_sizes", "must be non-negative");
  validate_training(2);
}

SignTaskResult run_sign_task_experiment(const ImageSet& train, const ImageSet& test, const SignTaskConfig& c,
                                        const std::function<void(size_t done, size_t total)>& progress) {
  c.validate();
  const size_t Pn = c.pairs.size(), N = static_cast<size_t>(c.seeds), R = c.replay_sizes.size();
  const learn::PatchCnnShape shape = c.network_shape(train.rows * train.cols);
  const learn::GdConfig gd = c.optimiser();

  SignTaskResult result;
  result.runs.resize(Pn * N * R);
  // Class images are read (and checked) before the worker threads start: nothing throws in a worker.
  std::vector<Matrix> tr_by_class(10), te_by_class(10);
  for (const auto& [a, b] : c.pairs)
    for (int cls : {a, b}) {
      if (tr_by_class[cls].rows() > 0) continue;
      tr_by_class[cls] = class_images(train, cls, c.train_per_class, c);
      te_by_class[cls] = class_images(test, cls, c.test_per_class, c);
      if (tr_by_class[cls].rows() < 2 || te_by_class[cls].rows() < 2)
        throw Error("", 0, "pairs", "fewer than 2 training or test images of class " + std::to_string(cls));
    }
  std::vector<double> angles(Pn);
  for (size_t p = 0; p < Pn; ++p) {
    std::vector<float> mu_new = mean_row(tr_by_class[c.pairs[p].second]);
    if (c.flip_new_task)
      for (float& v : mu_new) v = -v;
    angles[p] = angle_deg(mean_row(tr_by_class[c.pairs[p].first]), mu_new);
  }
  std::mutex progress_mutex;
  size_t runs_done = 0;
  parallel_for(Pn * N, c.threads, [&](size_t job) {
    const size_t p = job / N, n = job % N;
    const auto [old_c, new_c] = c.pairs[p];
    const Matrix& old_tr = tr_by_class[old_c];
    const Matrix& new_tr = tr_by_class[new_c];
    const Matrix& old_te = te_by_class[old_c];
    const Matrix& new_te = te_by_class[new_c];
    auto identity = [](Eigen::Index rows) {
      std::vector<size_t> v(static_cast<size_t>(rows));
      for (size_t i = 0; i < v.size(); ++i) v[i] = i;
      return v;
    };
    const float new_sign = c.flip_new_task ? -1.0f : 1.0f;
    auto make = [&](const Matrix& imgs, float sign) {
      Matrix x(0, imgs.cols());
      std::vector<float> lab;
      append_sign_task(imgs, identity(imgs.rows()), static_cast<size_t>(imgs.rows()), x, lab, sign);
      return PatchDataset::from_patches(x, 1, lab, false);
    };
    const PatchDataset old_test = make(old_te, 1.0f), new_test = make(new_te, new_sign);
    const Rng base = Rng(c.seed).split(p).split(n);
    Rng r_init = base.split(1), r_gd1 = base.split(2), r_perm = base.split(3);
    learn::PatchCnn net(shape, r_init);
    learn::train_patch_cnn(c.backend, net, make(old_tr, 1.0f), gd, nullptr, r_gd1);
    const double before = 1.0 - net.error(old_test);
    // Old-task replay candidates in a seeded random order; replay size r takes the first r.
    std::vector<size_t> order = identity(old_tr.rows());
    r_perm.shuffle(order.begin(), order.end());
    for (size_t r = 0; r < R; ++r) {
      Matrix x(0, new_tr.cols());
      std::vector<float> lab;
      append_sign_task(new_tr, identity(new_tr.rows()), static_cast<size_t>(new_tr.rows()), x, lab, new_sign);
      const size_t replay = std::min(order.size(), static_cast<size_t>(c.replay_sizes[r]));
      append_sign_task(old_tr, order, replay, x, lab);
      learn::PatchCnn net2 = net;
      Rng r_gd2 = base.split(100 + r);
      learn::train_patch_cnn(c.backend, net2, PatchDataset::from_patches(x, 1, lab, false), gd, nullptr, r_gd2);
      SignTaskRun run;
      run.old_class = old_c;
      run.new_class = new_c;
      run.replay_size = c.replay_sizes[r];
      run.seed_index = static_cast<int>(n);
      run.old_accuracy_before = before;
      run.old_accuracy_after = 1.0 - net2.error(old_test);
      run.new_accuracy = 1.0 - net2.error(new_test);
      result.runs[(p * N + n) * R + r] = run;
    }
    if (progress) {
      std::lock_guard lock(progress_mutex);
      progress(++runs_done, Pn * N);
    }
  });
  for (size_t p = 0; p < Pn; ++p)
    for (size_t r = 0; r < R; ++r) {
      SignTaskPoint pt;
      pt.old_class = c.pairs[p].first;
      pt.new_class = c.pairs[p].second;
      pt.replay_size = c.replay_sizes[r];
      pt.angle_deg = angles[p];
      pt.runs = static_cast<int>(N);
      std::vector<double> acc, new_acc, before;
      for (size_t n = 0; n < N; ++n) {
        const auto& run = result.runs[(p * N + n) * R + r];
        acc.push_back(run.old_accuracy_after);
        new_acc.push_back(run.new_accuracy);
        before.push_back(run.old_accuracy_before);
      }
      // Means as core/stats.h summarize() (and so results.json's summary) computes them.
      pt.new_acc_mean = summarize(new_acc).mean;
      pt.old_acc_before_mean = summarize(before).mean;
      const Summary old_acc = summarize(acc);
      pt.old_acc_mean = old_acc.mean;
      pt.old_acc_std = old_acc.sd;
      result.points.push_back(pt);
    }
  return result;
}

}  // namespace dmlkit::continual
