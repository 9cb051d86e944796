// learn/column_net.h: the column-shared network (permutation equivariance, the incremental forward
// pass equal to the reference bit for bit, model-file round trip, the libtorch trainer computing
// the same function and learning).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>

#include "core/error.h"
#include "learn/column_net.h"
#include "learn/mlp_trainer.h"
#include "learn/model_file.h"

namespace dmlkit::learn {
namespace {

constexpr int kRows = 6, kL = 7;

ColumnNetShape small_column_shape(int L = kL) {
  return column_net_shape(kRows, L, 4, {0.01f, 1.0f, 1.0f, 0.0625f, 0.0625f}, {8, 8}, 3, {5}, 1);
}

// A random state: columns 0..filled-1 hold jobs (type 1..4), the others are empty (zeros).
std::vector<float> random_state(Rng& rng, int filled, int L = kL) {
  std::vector<float> x(kRows * L, 0.0f);
  for (int c = 0; c < filled; ++c) {
    x[0 * L + c] = static_cast<float>(1 + rng.uniform_int(0, 3));
    x[1 * L + c] = static_cast<float>(rng.uniform_int(0, 200));
    x[2 * L + c] = static_cast<float>(rng.uniform(0, 1));
    x[3 * L + c] = static_cast<float>(rng.uniform(0, 1));
    x[4 * L + c] = static_cast<float>(rng.uniform_int(0, 16));
    x[5 * L + c] = static_cast<float>(rng.uniform_int(0, 16));
  }
  return x;
}

// Larger weights than the initial ones, so that the outputs differ clearly between columns.
std::vector<float> random_parameters(const ColumnNetShape& s, Rng& rng, float scale = 1.0f) {
  std::vector<float> p(s.parameter_count());
  for (float& v : p) v = scale * static_cast<float>(rng.uniform(-1, 1));
  return p;
}

TEST(ColumnNet, PermutingColumnsPermutesTheScoresAndKeepsVoid) {
  const ColumnNetShape s = small_column_shape();
  Rng rng(11);
  const std::vector<float> p = random_parameters(s, rng);
  const std::vector<float> x = random_state(rng, 5);
  const std::vector<int> perm = {3, 6, 0, 5, 1, 4, 2};  // column c moves to perm[c]
  std::vector<float> y(x.size());
  for (int r = 0; r < kRows; ++r)
    for (int c = 0; c < kL; ++c) y[r * kL + perm[c]] = x[r * kL + c];
  const std::vector<float> a = column_net_reference(s, p, x.data()), b = column_net_reference(s, p, y.data());
  ASSERT_EQ(static_cast<int>(a.size()), 3 * kL + 1);
  bool differ = false;
  for (int c = 0; c < kL; ++c)
    for (int k = 0; k < 3; ++k) {
      EXPECT_NEAR(b[3 * perm[c] + k], a[3 * c + k], 1e-5) << "column " << c << " action " << k;
      differ |= std::abs(a[3 * c + k] - a[k]) > 1e-3;
    }
  EXPECT_TRUE(differ);  // the columns do score differently
  EXPECT_NEAR(b[3 * kL], a[3 * kL], 1e-5);
}

TEST(ColumnNet, ScoresDependOnTheColumnAndTheSummaryOnly) {
  const ColumnNetShape s = small_column_shape();
  Rng rng(5);
  const std::vector<float> p = random_parameters(s, rng);
  std::vector<float> x = random_state(rng, 4);
  // One-hot of the type: two columns with the same features score the same.
  for (int r = 0; r < kRows; ++r) x[r * kL + 1] = x[r * kL + 0];
  const std::vector<float> a = column_net_reference(s, p, x.data());
  for (int k = 0; k < 3; ++k) EXPECT_EQ(a[3 + k], a[k]);
  float f[9];
  column_features(s, x.data(), 0, f);
  EXPECT_EQ(std::accumulate(f, f + 4, 0.0f), 1.0f);
  EXPECT_EQ(f[static_cast<int>(x[0]) - 1], 1.0f);
  EXPECT_FLOAT_EQ(f[4], x[1 * kL] * 0.01f);
  EXPECT_FLOAT_EQ(f[7], x[4 * kL] * 0.0625f);
}

TEST(ColumnNet, IncrementalForwardEqualsTheReferenceBitForBit) {
  const ColumnNetShape s = small_column_shape();
  Rng rng(3);
  const std::vector<float> p = random_parameters(s, rng);
  ColumnNetForward fast(s, p), cached(s, p);
  cached.set_cached_rows(3);  // per column, the first layer's sum over the type, age and remaining work
  std::vector<float> x = random_state(rng, 6);
  long computed = 0;
  for (int step = 0; step < 60; ++step) {
    if (step % 10 == 9) {
      x = random_state(rng, 1 + static_cast<int>(rng.uniform_int(0, kL - 1)));  // the window changed
    } else {
      const int c = static_cast<int>(rng.uniform_int(0, kL - 1));  // one column's task counts move
      x[4 * kL + c] += 1.0f;
      x[3 * kL + c] = static_cast<float>(rng.uniform(0, 1));
      if (step % 7 == 3) x[2 * kL + c] = static_cast<float>(rng.uniform(0, 1));  // and its cached rows
    }
    const std::vector<float>& got = fast.run(x.data());
    const std::vector<float> want = column_net_reference(s, p, x.data());
    ASSERT_EQ(got, want) << "step " << step;
    ASSERT_EQ(cached.run(x.data()), want) << "step " << step;
    if (step > 0 && step % 10 != 9) {
      EXPECT_EQ(fast.columns_computed() - computed, 1) << "step " << step;
    }
    computed = fast.columns_computed();
  }
}

// run_column (the column that changed named, the others not compared) is bit for bit the
// reference; probabilities() (dl2.incremental=on: feature sums in double, each column's
// exponentials kept) is within 1e-6 of the reference's masked softmax, also where the mask of the
// changed column moves, and with scores beyond 300 (its shifted-softmax fallback).
TEST(ColumnNet, NamedColumnIsBitForBitAndIncrementalProbabilitiesMatchTheSoftmax) {
  // One block of columns (the draw's block sums), three.
  for (const ColumnNetShape& s : {small_column_shape(), small_column_shape(20)})
    for (const float weight_scale : {1.0f, 400.0f}) {
      const int L = s.window;
      Rng rng(8);
      const std::vector<float> p = random_parameters(s, rng, weight_scale);
      ColumnNetForward named(s, p), fast(s, p);
      std::vector<float> x = random_state(rng, 5, L);
      std::vector<unsigned char> mask(s.outputs(), 1);
      std::vector<double> probs(s.outputs()), want;
      int col = -1;
      for (int step = 0; step < 80; ++step) {
        if (step % 20 == 19) {
          x = random_state(rng, 1 + static_cast<int>(rng.uniform_int(0, L - 1)), L);  // the window moved
          for (int i = 0; i < 3 * L; ++i) mask[i] = x[i / 3] > 0 && rng.uniform() < 0.8;
          col = -1;
        } else if (step > 0) {
          col = static_cast<int>(rng.uniform_int(0, L - 1));
          x[0 * L + col] = static_cast<float>(1 + rng.uniform_int(0, 3));
          x[3 * L + col] = static_cast<float>(rng.uniform(0, 1));
          x[4 * L + col] += 1.0f;
          for (int a = 0; a < 3; ++a) mask[3 * col + a] = rng.uniform() < 0.7;
        }
        const std::vector<float> ref = column_net_reference(s, p, x.data());
        ASSERT_EQ(named.run_column(x.data(), col), ref) << "step " << step;
        ASSERT_TRUE(masked_softmax(ref, mask, want));
        ASSERT_TRUE(fast.probabilities(x.data(), col, mask.data(), probs.data()));
        for (int i = 0; i < s.outputs(); ++i) {
          ASSERT_NEAR(probs[i], want[i], 1e-6 * want[i] + 1e-12)
              << "L " << L << " scale " << weight_scale << " step " << step;
          if (!mask[i]) {
            ASSERT_EQ(probs[i], 0.0);
          }
        }
      }
    }
}

// probabilities() keeps per column action a running sum of the allowed columns' e^score, updated
// by the changed column: with scores tens apart (one column's e^score dwarfs the others'), masking
// the dominant column (its term leaves the sum: all but a tiny remainder cancels) and unmasking
// columns again must not leave the cancellation's rounding in the sums: at every step the
// probabilities stay within 1e-9 relative of those of a fresh network, whose sums are taken from
// the columns (same scores, same exponentials).
TEST(ColumnNet, RunningSumsSurviveTheDominantColumnBeingMaskedAndUnmasked) {
  const ColumnNetShape s = small_column_shape();
  Rng rng(12);
  std::vector<float> p = random_parameters(s, rng);
  // The column MLP's output layer (the last k x 8 + k of its parameters) scaled: scores tens apart,
  // below the 300 of the shifted softmax.
  const size_t end = s.column.parameter_count(), last = 3 * 8 + 3;
  for (size_t i = end - last; i < end; ++i) p[i] *= 12.0f;
  ColumnNetForward fast(s, p);
  std::vector<float> x = random_state(rng, kL);
  std::vector<unsigned char> mask(s.outputs(), 1);
  std::vector<double> probs(s.outputs()), want(s.outputs());
  double spread = 0;  // the largest ratio of two allowed probabilities seen
  int col = -1;
  for (int step = 0; step < 120; ++step) {
    if (step > 0) {
      // The column of the most probable action: mask all its actions; every third step unmask a
      // random column's.
      int top = 0;
      for (int i = 0; i < 3 * kL; ++i)
        if (mask[i] && (!mask[top] || probs[i] > probs[top])) top = i;
      const bool on = step % 3 == 0;
      col = on ? static_cast<int>(rng.uniform_int(0, kL - 1)) : top / 3;
      for (int a = 0; a < 3; ++a) mask[3 * col + a] = on;
      x[3 * kL + col] = static_cast<float>(rng.uniform(0, 1));  // its share moves too
    }
    ASSERT_TRUE(fast.probabilities(x.data(), col, mask.data(), probs.data()));
    ColumnNetForward scratch(s, p);
    ASSERT_TRUE(scratch.probabilities(x.data(), -1, mask.data(), want.data()));
    double lo = 1, hi = 0;
    for (int i = 0; i < s.outputs(); ++i) {
      ASSERT_NEAR(probs[i], want[i], 1e-9 * want[i]) << "step " << step << " action " << i;
      if (want[i] > 0) lo = std::min(lo, want[i]), hi = std::max(hi, want[i]);
    }
    spread = std::max(spread, hi / lo);
  }
  EXPECT_GT(spread, 1e11);  // the sums mixed terms far enough apart for a cancelled rest to show
}

// draw(u) (the fast path's sampling without writing the probabilities) is the action inverse_cdf
// picks from probabilities() for every u further than 1e-12 from a boundary (a cumulative sum,
// where the first action whose sum exceeds u changes): spread over [0, 1) and 1e-9 on either side
// of each boundary; at the boundary itself and the next double on either side (where the block
// sums' rounding may decide), one of the two actions that meet there; beyond the total, the last
// allowed action. Windows of one block of columns and of three (the last one short); also with
// the shifted softmax (scores beyond 300) and masked columns and VOID.
TEST(ColumnNet, DrawIsTheInverseCdfOfTheProbabilities) {
  for (const int L : {kL, 20})
  for (const float weight_scale : {1.0f, 400.0f}) {
    const ColumnNetShape s = small_column_shape(L);
    Rng rng(21);
    const std::vector<float> p = random_parameters(s, rng, weight_scale);
    ColumnNetForward net(s, p);
    std::vector<float> x = random_state(rng, L - 1, L);
    std::vector<unsigned char> mask(s.outputs(), 1);
    std::vector<double> probs(s.outputs());
    int col = -1, draws = 0, at_boundaries = 0;
    for (int step = 0; step < 40; ++step) {
      if (step > 0) {
        col = static_cast<int>(rng.uniform_int(0, L - 1));
        x[3 * L + col] = static_cast<float>(rng.uniform(0, 1));
        x[4 * L + col] += 1.0f;
        for (int a = 0; a < 3; ++a) mask[3 * col + a] = x[col] > 0 && rng.uniform() < 0.7;
        mask[3 * L] = step % 5 != 0;  // VOID masked now and then
      }
      ASSERT_TRUE(net.probabilities(x.data(), col, mask.data(), probs.data()));
      auto expected = [&](double u) {
        return inverse_cdf(s.outputs(), u, [&](int a) { return probs[a]; });
      };
      std::vector<double> us, boundaries;
      for (int i = 0; i < 50; ++i) us.push_back(rng.uniform());
      double acc = 0;
      for (double q : probs) {
        acc += q;
        boundaries.push_back(acc);
        us.insert(us.end(), {acc - 1e-9, acc + 1e-9});
      }
      us.push_back(0.0);
      const std::string where = "L " + std::to_string(L) + " scale " + std::to_string(weight_scale) + " step " +
                                std::to_string(step);
      for (double u : us) {
        if (!(u >= 0.0 && u < 1.0)) continue;
        bool near = false;
        for (double b : boundaries) near |= std::abs(u - b) <= 1e-12;
        if (near) continue;
        ASSERT_EQ(net.draw(u), expected(u)) << where << " u " << u;
        ++draws;
      }
      for (double b : boundaries)
        for (double u : {b, std::nextafter(b, 0.0), std::nextafter(b, 2.0)}) {
          if (!(u >= 0.0 && u < 1.0)) continue;
          const int got = net.draw(u), below = expected(u - 1e-12), above = expected(u + 1e-12);
          ASSERT_TRUE(got == below || got == above) << where << " u " << u << ": " << got;
          ASSERT_TRUE(mask[got] != 0) << where;
          ++at_boundaries;
        }
    }
    EXPECT_GT(draws, 2000);
    EXPECT_GT(at_boundaries, 1000);
  }
}

TEST(ColumnNet, ModelFileRoundTripAndBadArchitecture) {
  const ColumnNetShape s = small_column_shape();
  Rng rng(1);
  ModelFile m;
  m.kind = "dl2";
  m.nets["policy"] = column_stored_net(s, column_net_initial_parameters(s, rng));
  const std::string path = (std::filesystem::temp_directory_path() / "dmlkit-column-net-test.json").string();
  save_model_file(path, m);
  const ModelFile r = load_model_file(path);
  EXPECT_EQ(r.nets.at("policy").arch, "column");
  EXPECT_EQ(r.nets.at("policy").column, s);
  EXPECT_EQ(r.nets.at("policy").parameters, m.nets["policy"].parameters);
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  const auto at = text.find("\"column\"");
  ASSERT_NE(at, std::string::npos);
  std::ofstream(path) << std::string(text).replace(text.find("\"arch\": \"column\""), 16, "\"arch\": \"graph\"");
  try {
    load_model_file(path);
    FAIL() << "an unknown architecture must be an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("nets.policy.arch"), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
}

TEST(ColumnNetTrainer, ComputesTheSameFunctionAndLearnsAPerTypeRule) {
  const ColumnNetShape s = small_column_shape();
  Rng rng(9);
  const std::vector<float> p0 = column_net_initial_parameters(s, rng);
  auto net = make_column_trainer(s, p0, 0.01);
  // Label: the worker action of the first column of type 2 (every state has one).
  const int n = 64, d = kRows * kL;
  std::vector<float> x;
  std::vector<int> y;
  for (int i = 0; i < n; ++i) {
    std::vector<float> st = random_state(rng, 5);
    const int c = static_cast<int>(rng.uniform_int(0, 4));
    for (int k = 0; k < 5; ++k)
      if (st[k] == 2.0f) st[k] = 3.0f;
    st[c] = 2.0f;
    x.insert(x.end(), st.begin(), st.end());
    y.push_back(3 * c);
  }
  // The libtorch forward pass and the C++ one agree: the loss from the reference logits.
  double ce = 0;
  for (int i = 0; i < n; ++i) {
    const std::vector<float> o = column_net_reference(s, p0, x.data() + i * d);
    double mx = -INFINITY, sum = 0;
    for (float v : o) mx = std::max(mx, static_cast<double>(v));
    for (float v : o) sum += std::exp(v - mx);
    ce += -(o[y[i]] - mx - std::log(sum)) / n;
  }
  const LossStats first = net->add_cross_entropy_gradient(x.data(), n, y.data());
  EXPECT_NEAR(first.loss, ce, 1e-4);
  net->step(1);
  LossStats last;
  for (int step = 0; step < 200; ++step) {
    last = net->add_cross_entropy_gradient(x.data(), n, y.data());
    net->step(1);
  }
  EXPECT_LT(last.loss, 0.3 * first.loss);
  EXPECT_GE(last.correct, 60);
}

}  // namespace
}  // namespace dmlkit::learn
