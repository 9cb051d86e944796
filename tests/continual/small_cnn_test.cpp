// Tests of the libtorch small CNN (learn/small_cnn.h): sizes, initialisation bounds, the forward
// pass against a hand computation and against a loop-by-loop reference, masked accuracy,
// determinism (same seed, any thread), deep copies, bad input, and training on two
// Fashion-MNIST classes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <thread>

#include "continual/idx_reader.h"
#include "core/error.h"
#include "learn/small_cnn.h"

namespace dmlkit::learn {
namespace {

// ---- a plain loop reference of the forward pass, on the parameters() layout ----
using Volume = std::vector<std::vector<std::vector<double>>>;  // [channel][row][col]

struct Reference {
  SmallCnnShape s;
  std::vector<float> p;
  size_t at = 0;
  double next() { return p[at++]; }

  Volume conv_relu_pool(const Volume& in, int out_channels) {
    const int k = s.kernel, rows = static_cast<int>(in[0].size()) - k + 1,
              cols = static_cast<int>(in[0][0].size()) - k + 1;
    std::vector<double> w(static_cast<size_t>(out_channels) * in.size() * static_cast<size_t>(k * k));
    for (auto& v : w) v = next();
    std::vector<double> bias(static_cast<size_t>(out_channels));
    for (auto& v : bias) v = next();
    Volume out(static_cast<size_t>(out_channels),
               std::vector<std::vector<double>>(static_cast<size_t>(rows / 2),
                                                std::vector<double>(static_cast<size_t>(cols / 2))));
    for (int o = 0; o < out_channels; ++o)
      for (int r = 0; r < rows / 2 * 2; ++r)
        for (int c = 0; c < cols / 2 * 2; ++c) {
          double z = bias[static_cast<size_t>(o)];
          for (size_t i = 0; i < in.size(); ++i)
            for (int a = 0; a < k; ++a)
              for (int b = 0; b < k; ++b)
                z += w[((static_cast<size_t>(o) * in.size() + i) * static_cast<size_t>(k) + static_cast<size_t>(a)) *
                           static_cast<size_t>(k) +
                       static_cast<size_t>(b)] *
                     in[i][static_cast<size_t>(r + a)][static_cast<size_t>(c + b)];
          double& cell = out[static_cast<size_t>(o)][static_cast<size_t>(r / 2)][static_cast<size_t>(c / 2)];
          const double relu = std::max(0.0, z);
          cell = (r % 2 == 0 && c % 2 == 0) ? relu : std::max(cell, relu);
        }
    return out;
  }

  std::vector<double> dense(const std::vector<double>& in, int out, bool relu) {
    std::vector<double> w(static_cast<size_t>(out) * in.size());
    for (auto& v : w) v = next();
    std::vector<double> y(static_cast<size_t>(out));
    for (auto& v : y) v = next();
    for (size_t o = 0; o < y.size(); ++o) {
      for (size_t i = 0; i < in.size(); ++i) y[o] += w[o * in.size() + i] * in[i];
      if (relu) y[o] = std::max(0.0, y[o]);
    }
    return y;
  }

  // Features followed by logits of one image.
  std::pair<std::vector<double>, std::vector<double>> run(const Matrix& x, Eigen::Index row) {
    at = 0;
    Volume v(1, std::vector<std::vector<double>>(static_cast<size_t>(s.image_rows),
                                                 std::vector<double>(static_cast<size_t>(s.image_cols))));
    for (int r = 0; r < s.image_rows; ++r)
      for (int c = 0; c < s.image_cols; ++c)
        v[0][static_cast<size_t>(r)][static_cast<size_t>(c)] = x(row, r * s.image_cols + c);
    v = conv_relu_pool(v, s.conv1_channels);
    v = conv_relu_pool(v, s.conv2_channels);
    std::vector<double> flat;
    for (const auto& ch : v)
      for (const auto& line : ch) flat.insert(flat.end(), line.begin(), line.end());
    const auto f = dense(flat, s.feature_dim, true);
    return {f, dense(f, s.classes, false)};
  }
};

SmallCnnShape tiny_shape() {
  SmallCnnShape s;
  s.image_rows = 14;
  s.image_cols = 16;
  s.conv1_channels = 2;
  s.conv2_channels = 3;
  s.kernel = 3;
  s.feature_dim = 4;
  s.classes = 3;
  return s;
}

Matrix random_images(Eigen::Index n, const SmallCnnShape& s, uint64_t seed) {
  Rng rng(seed);
  Matrix x(n, s.image_rows * s.image_cols);
  for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = static_cast<float>(rng.normal(0, 1));
  return x;
}

TEST(SmallCnn, SizesOfTheDefaultNetwork) {
  const SmallCnnShape s;          // 28x28, 8 and 16 channels of 5x5, 64 features, 10 classes
  EXPECT_EQ(s.pooled_rows(), 4);  // 28 -> 24 -> 12 -> 8 -> 4
  EXPECT_EQ(s.pooled_cols(), 4);
  EXPECT_EQ(s.parameter_count(), 8u * 25 + 8 + 16u * 8 * 25 + 16 + 64u * 256 + 64 + 10u * 64 + 10);
  Rng rng(1);
  const SmallCnn net(s, rng);
  EXPECT_EQ(net.parameters().size(), s.parameter_count());
  const Matrix x = random_images(3, s, 2);
  const Matrix l = net.logits(x), f = net.features(x);
  EXPECT_EQ(l.rows(), 3);
  EXPECT_EQ(l.cols(), 10);
  EXPECT_EQ(f.rows(), 3);
  EXPECT_EQ(f.cols(), 64);
  EXPECT_GE(f.minCoeff(), 0.0f);  // after a ReLU
}

TEST(SmallCnn, InitialisationIsPyTorchDefaultBoundedPerLayer) {
  const SmallCnnShape s;
  Rng rng(3);
  const auto p = SmallCnn(s, rng).parameters();
  // (count, fan_in) of conv1.w, conv1.b, conv2.w, conv2.b, fc1.w, fc1.b, fc2.w, fc2.b
  const std::vector<std::pair<size_t, double>> layers{{200, 25},    {8, 25},   {3200, 200}, {16, 200},
                                                      {16384, 256}, {64, 256}, {640, 64},   {10, 64}};
  size_t at = 0;
  for (const auto& [count, fan_in] : layers) {
    const double bound = 1 / std::sqrt(fan_in);
    double max_abs = 0, sum = 0;
    for (size_t i = at; i < at + count; ++i) {
      max_abs = std::max(max_abs, std::abs(static_cast<double>(p[i])));
      sum += p[i];
    }
    EXPECT_LE(max_abs, bound);
    if (count >= 200) {
      EXPECT_GT(max_abs, 0.9 * bound);                 // the whole range is used
      EXPECT_LT(std::abs(sum / count), 0.15 * bound);  // centred
    }
    at += count;
  }
  EXPECT_EQ(at, p.size());
}

TEST(SmallCnn, ForwardMatchesAHandComputation) {
  // 6x6 image, 1x1 kernels, one channel each, one feature, two classes.
  SmallCnnShape s;
  s.image_rows = s.image_cols = 6;
  s.conv1_channels = s.conv2_channels = 1;
  s.kernel = 1;
  s.feature_dim = 1;
  s.classes = 2;
  Rng rng(1);
  SmallCnn net(s, rng);
  // conv1 w=1 b=0; conv2 w=-1 b=30; fc1 w=0.5 b=-1.5; fc2 w=(1,-2) b=(0.5,0)
  net.set_parameters({1, 0, -1, 30, 0.5f, -1.5f, 1, -2, 0.5f, 0});
  Matrix x(1, 36);
  for (int i = 0; i < 36; ++i) x(0, i) = static_cast<float>(i);  // pixel (r, c) = 6r + c
  // conv1 + ReLU = x; pool -> [[7,9,11],[19,21,23],[31,33,35]]; conv2 = 30 - h, ReLU ->
  // [[23,21,19],[11,9,7],[0,0,0]]; pool (2x2, floor) -> 23; fc1: 0.5*23 - 1.5 = 10; fc2: 10.5, -20.
  EXPECT_FLOAT_EQ(net.features(x)(0, 0), 10.0f);
  const Matrix l = net.logits(x);
  EXPECT_FLOAT_EQ(l(0, 0), 10.5f);
  EXPECT_FLOAT_EQ(l(0, 1), -20.0f);
  EXPECT_NEAR(net.loss(x, {1}), 30.5, 1e-4);  // -log softmax_1 = log(e^10.5 + e^-20) + 20
}

TEST(SmallCnn, ForwardMatchesALoopReference) {
  const SmallCnnShape s = tiny_shape();  // 14x16 -> 12x14 -> 6x7 -> 4x5 -> 2x2
  EXPECT_EQ(s.pooled_rows(), 2);
  EXPECT_EQ(s.pooled_cols(), 2);
  Rng rng(5);
  SmallCnn net(s, rng);
  const Matrix x = random_images(5, s, 6);
  const Matrix f = net.features(x), l = net.logits(x);
  Reference ref{s, net.parameters()};
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const auto [rf, rl] = ref.run(x, i);
    for (int j = 0; j < s.feature_dim; ++j) EXPECT_NEAR(f(i, j), rf[static_cast<size_t>(j)], 1e-4);
    for (int j = 0; j < s.classes; ++j) EXPECT_NEAR(l(i, j), rl[static_cast<size_t>(j)], 1e-4);
  }
}

TEST(SmallCnn, AccuracyMasksClassesOutsideTheAllowedSet) {
  const SmallCnnShape s = tiny_shape();
  Rng rng(7);
  const SmallCnn net(s, rng);
  const Matrix x = random_images(60, s, 8);
  const Matrix l = net.logits(x);
  std::vector<int> labels;
  for (int i = 0; i < 60; ++i) labels.push_back(i % 3);
  auto expected = [&](const std::vector<int>& allowed) {
    int right = 0;
    for (Eigen::Index i = 0; i < l.rows(); ++i) {
      int best = allowed[0];
      for (int c : allowed)
        if (l(i, c) > l(i, best)) best = c;
      right += best == labels[static_cast<size_t>(i)];
    }
    return right / 60.0;
  };
  EXPECT_DOUBLE_EQ(net.accuracy(x, labels), expected({0, 1, 2}));
  EXPECT_DOUBLE_EQ(net.accuracy(x, labels, {0, 1}), expected({0, 1}));
  // One allowed class: every image is predicted as that class.
  EXPECT_DOUBLE_EQ(net.accuracy(x, labels, {2}), 1.0 / 3.0);
  EXPECT_THROW(net.accuracy(x, labels, {3}), Error);
}

TEST(SmallCnn, SameSeedGivesIdenticalWeightsAndTrainingOnAnyThread) {
  const SmallCnnShape s = tiny_shape();
  const Matrix x = random_images(50, s, 9);
  std::vector<int> labels;
  for (int i = 0; i < 50; ++i) labels.push_back(x(i, 0) > 0 ? 1 : (x(i, 1) > 0 ? 2 : 0));
  SmallCnnSgd sgd;
  sgd.learning_rate = 0.05;
  sgd.momentum = 0.9;
  sgd.epochs = 3;
  sgd.batch_size = 8;
  auto trained = [&](uint64_t seed) {
    Rng init(seed), order(seed + 100);
    SmallCnn net(s, init);
    net.train_sgd(x, labels, sgd, order);
    return net.parameters();
  };
  Rng r1(11), r2(11), r3(12);
  EXPECT_EQ(SmallCnn(s, r1).parameters(), SmallCnn(s, r2).parameters());
  EXPECT_NE(SmallCnn(s, r1).parameters(), SmallCnn(s, r3).parameters());
  const auto a = trained(11);
  std::vector<float> b;
  std::thread worker([&] { b = trained(11); });
  worker.join();
  EXPECT_EQ(a, b);
  EXPECT_NE(a, trained(12));
  Rng init(11);
  EXPECT_NE(a, SmallCnn(s, init).parameters());  // training moved the weights
}

TEST(SmallCnn, CopiesAreDeep) {
  const SmallCnnShape s = tiny_shape();
  Rng rng(13);
  SmallCnn net(s, rng);
  const SmallCnn copy = net;
  const auto before = net.parameters();
  const Matrix x = random_images(20, s, 14);
  std::vector<int> labels(20, 1);
  SmallCnnSgd sgd;
  net.train_sgd(x, labels, sgd, rng);
  EXPECT_NE(net.parameters(), before);
  EXPECT_EQ(copy.parameters(), before);
  SmallCnn moved = std::move(net);
  net = copy;  // assigning to a moved-from network works
  EXPECT_EQ(net.parameters(), before);
  EXPECT_NE(moved.parameters(), before);
}

TEST(SmallCnn, BadInputRaisesError) {
  SmallCnnShape s = tiny_shape();
  Rng rng(15);
  SmallCnn net(s, rng);
  const Matrix x = random_images(4, s, 16);
  SmallCnnSgd sgd;
  EXPECT_THROW(net.train_sgd(x, {0, 1, 3, 0}, sgd, rng), Error);  // label >= classes
  EXPECT_THROW(net.train_sgd(x, {0, 1}, sgd, rng), Error);        // count mismatch
  EXPECT_THROW(net.logits(Matrix::Zero(2, 10)), Error);           // not a 14x16 image
  EXPECT_THROW(net.set_parameters({1, 2, 3}), Error);
  sgd.batch_size = 0;
  EXPECT_THROW(net.train_sgd(x, {0, 1, 2, 0}, sgd, rng), Error);
  s.image_rows = 9;  // 9 -> 7 -> 3 -> 1 -> 0: too small for two 3x3 convolutions
  EXPECT_THROW(SmallCnn(s, rng), Error);
  s = tiny_shape();
  s.classes = 1;
  EXPECT_THROW(s.validate(), Error);
  // A learning rate far too large makes the loss non-finite: an Error, not silent garbage.
  SmallCnnSgd wild;
  wild.learning_rate = 1e30;
  wild.epochs = 5;
  wild.batch_size = 1;
  EXPECT_THROW(net.train_sgd(x, {0, 1, 2, 0}, wild, rng), Error);
}

TEST(SmallCnn, LearnsTwoFashionMnistClasses) {
  namespace fs = std::filesystem;
  const std::string dir = continual::kFashionMnistDir;
  if (!fs::exists(dir + "/train-images-idx3-ubyte.gz")) GTEST_SKIP() << "dataset-fashion-mnist not installed";
  // Pullover (2) vs coat (4): similar garments, chance is 0.5.
  auto pick = [](const continual::ImageSet& set, int per_class, Matrix& x, std::vector<int>& y) {
    std::vector<size_t> rows;
    int taken[2] = {0, 0};
    for (size_t i = 0; i < set.size(); ++i) {
      const int c = set.labels[i] == 2 ? 0 : (set.labels[i] == 4 ? 1 : -1);
      if (c >= 0 && taken[c] < per_class) {
        ++taken[c];
        rows.push_back(i);
        y.push_back(c);
      }
    }
    x.resize(static_cast<Eigen::Index>(rows.size()), 784);
    for (size_t k = 0; k < rows.size(); ++k)
      for (int d = 0; d < 784; ++d)
        x(static_cast<Eigen::Index>(k), d) =
            static_cast<float>((set.pixels[rows[k] * 784 + static_cast<size_t>(d)] / 255.0 - 0.2860) / 0.3530);
  };
  Matrix xtr, xte;
  std::vector<int> ytr, yte;
  pick(continual::load_fashion_mnist(dir, "train"), 300, xtr, ytr);
  pick(continual::load_fashion_mnist(dir, "t10k"), 300, xte, yte);
  SmallCnnShape s;
  s.classes = 2;
  Rng init(21), order(22);
  SmallCnn net(s, init);
  const double loss_before = net.loss(xtr, ytr);
  SmallCnnSgd sgd;
  sgd.learning_rate = 0.05;
  sgd.momentum = 0.5;
  sgd.epochs = 3;
  sgd.batch_size = 10;
  net.train_sgd(xtr, ytr, sgd, order);
  EXPECT_LT(net.loss(xtr, ytr), 0.6 * loss_before);  // measured 0.698 -> 0.365
  EXPECT_GT(net.accuracy(xte, yte), 0.75);           // measured 0.838 on 600 test images
}

}  // namespace
}  // namespace dmlkit::learn
