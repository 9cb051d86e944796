// Tests of the multi-class ReLU^q head: logits by hand, gradient by finite differences, masked
// accuracy and SGD.
#include <gtest/gtest.h>

#include <cmath>

#include "learn/multiclass_cnn.h"

namespace dmlkit::learn {
namespace {

MulticlassCnn tiny() {
  MulticlassShape s;
  s.input_len = 2;
  s.classes = 3;
  s.filters_per_class = 1;
  s.power_q = 2;
  s.output_scale = 0.5f;
  Matrix w(3, 2);
  w << 1, 0,   // class 0
      0, 1,    // class 1
      -1, 1;   // class 2
  return MulticlassCnn(s, w);
}

TEST(MulticlassCnn, LogitsMatchHandComputation) {
  Matrix x(2, 2);
  x << 2, 1,  // <w,x> = 2, 1, -1 -> relu^2 * 0.5 = 2, 0.5, 0
      -1, 3;  // -1, 3, 4 -> 0, 4.5, 8
  const Matrix l = tiny().logits(x);
  EXPECT_FLOAT_EQ(l(0, 0), 2.0f);
  EXPECT_FLOAT_EQ(l(0, 1), 0.5f);
  EXPECT_FLOAT_EQ(l(0, 2), 0.0f);
  EXPECT_FLOAT_EQ(l(1, 1), 4.5f);
  EXPECT_FLOAT_EQ(l(1, 2), 8.0f);
  EXPECT_DOUBLE_EQ(tiny().accuracy(x, {0, 2}), 1.0);
  EXPECT_DOUBLE_EQ(tiny().accuracy(x, {0, 2}, {0, 1}), 0.5);  // class 2 masked out
  // Cross-entropy of sample 0 with label 0: -(2 - log(e^2 + e^0.5 + e^0)).
  const double want = -(2.0 - std::log(std::exp(2.0) + std::exp(0.5) + 1.0));
  EXPECT_NEAR(tiny().loss_and_grad(x.topRows(1), {0}, nullptr), want, 1e-6);
}

TEST(MulticlassCnn, GradientMatchesFiniteDifferences) {
  Rng rng(5);
  MulticlassShape s;
  s.input_len = 4;
  s.classes = 3;
  s.filters_per_class = 2;
  s.power_q = 3;
  MulticlassCnn net(s, rng);
  net.weights() *= 4.0f;
  Matrix x(5, 4);
  for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = static_cast<float>(rng.normal(0, 1));
  const std::vector<int> y = {0, 1, 2, 1, 0};
  Matrix grad;
  net.loss_and_grad(x, y, &grad);
  const float h = 1e-3f;
  for (Eigen::Index r = 0; r < grad.rows(); ++r)
    for (Eigen::Index k = 0; k < grad.cols(); ++k) {
      MulticlassCnn p = net, m = net;
      p.weights()(r, k) += h;
      m.weights()(r, k) -= h;
      const double fd = (p.loss_and_grad(x, y, nullptr) - m.loss_and_grad(x, y, nullptr)) / (2.0 * h);
      EXPECT_NEAR(grad(r, k), fd, 2e-3 + 2e-2 * std::fabs(fd));
    }
}

TEST(MulticlassCnn, SgdLearnsSeparableClasses) {
  Rng rng(8);
  MulticlassShape s;
  s.input_len = 3;
  s.classes = 3;
  s.filters_per_class = 2;
  MulticlassCnn net(s, rng);
  Matrix x(60, 3);
  std::vector<int> y;
  for (int i = 0; i < 60; ++i) {
    const int c = i % 3;
    for (int k = 0; k < 3; ++k) x(i, k) = (k == c ? 2.0f : 0.0f) + static_cast<float>(rng.normal(0, 0.1));
    y.push_back(c);
  }
  const double before = net.loss_and_grad(x, y, nullptr);
  net.train_sgd(x, y, 0.5, 50, 8, rng);
  EXPECT_LT(net.loss_and_grad(x, y, nullptr), before);
  EXPECT_GT(net.accuracy(x, y), 0.95);
}

}  // namespace
}  // namespace dmlkit::learn
