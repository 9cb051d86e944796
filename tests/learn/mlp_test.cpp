// learn/mlp.h (forward pass, shapes), learn/model_file.h (round trip, corrupt files),
// learn/prioritized_replay.h (sum tree, stratified sampling, weights) and the libtorch MLP trainer.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "core/error.h"
#include "learn/actor_critic.h"
#include "learn/mlp.h"
#include "learn/mlp_trainer.h"
#include "learn/model_file.h"
#include "learn/prioritized_replay.h"

namespace dmlkit::learn {
namespace {

std::vector<float> uniform_parameters(const MlpShape& s, Rng& rng, double bound) {
  std::vector<float> p(s.parameter_count());
  for (float& v : p) v = static_cast<float>(rng.uniform(-bound, bound));
  return p;
}

TEST(Mlp, ForwardMatchesHandComputation) {
  MlpShape s;
  s.inputs = 2;
  s.hidden = {2};
  s.outputs = 1;
  s.affine = true;
  // W1 = [[1, -1], [2, 0.5]], b1 = [0, -1], gamma = [2, 1], beta = [0.5, 0], W2 = [[1, 3]], b2 = [0.25]
  std::vector<float> p = {1, -1, 2, 0.5f, 0, -1, 2, 1, 0.5f, 0, 1, 3, 0.25f};
  ASSERT_EQ(p.size(), s.parameter_count());
  MlpForward f(s, p);
  const float x[2] = {1.0f, 2.0f};
  // h = relu([1-2, 2+1-1]) = [0, 2]; affine: [2*0/sd + 0.5, 1*2/sd + 0]; out = h1 + 3 h2 + 0.25
  const float sd = std::sqrt(1.0f + kAffineEps);
  const float want = 0.5f + 3.0f * (2.0f / sd) + 0.25f;
  EXPECT_NEAR(f.run(x)[0], want, 1e-5);
}

TEST(Mlp, CachedPrefixGivesTheSameOutputsBitForBit) {
  MlpShape s{12, {9, 7}, 5, true};
  Rng rng(4);
  const std::vector<float> p = uniform_parameters(s, rng, 1.0);
  MlpForward plain(s, p), cached(s, p);
  cached.set_cached_prefix(6);
  std::vector<float> x(12);
  for (float& v : x) v = static_cast<float>(rng.uniform(-2, 2));
  x[2] = 0.0f;
  long misses = 0;
  for (int step = 0; step < 40; ++step) {
    const bool new_prefix = step % 8 == 0;
    if (new_prefix) x[static_cast<size_t>(rng.uniform_int(0, 5))] = static_cast<float>(rng.uniform(-2, 2));
    x[static_cast<size_t>(rng.uniform_int(6, 11))] = static_cast<float>(rng.uniform(-2, 2));
    const std::vector<float> want = plain.run(x.data());
    ASSERT_EQ(cached.run(x.data()), want) << "step " << step;
    misses += new_prefix;
    EXPECT_EQ(cached.prefix_misses(), misses);
  }
}

// A caller's own prefix caches (MlpForward::Prefix, one per input sequence: the column network's
// columns): two sequences with different prefixes, alternating, each reuse their own partial sum
// and give the outputs of the network without a cache bit for bit.
TEST(Mlp, PrefixCachePerSequenceGivesTheSameOutputsBitForBit) {
  MlpShape s{13, {64, 64}, 3, false};
  Rng rng(6);
  const std::vector<float> p = uniform_parameters(s, rng, 1.0);
  MlpForward plain(s, p), cached(s, p);
  cached.set_cached_prefix(10);
  std::vector<MlpForward::Prefix> caches = {cached.prefix_cache(), cached.prefix_cache()};
  std::vector<std::vector<float>> x(2, std::vector<float>(13, 0.0f));
  for (int q = 0; q < 2; ++q) {
    x[q][static_cast<size_t>(q) * 3] = 1.0f;  // a one-hot prefix
    for (int i = 8; i < 13; ++i) x[q][i] = static_cast<float>(rng.uniform(0, 2));
  }
  for (int step = 0; step < 40; ++step) {
    const int q = step % 2;
    x[q][static_cast<size_t>(rng.uniform_int(10, 12))] = static_cast<float>(rng.uniform(0, 2));
    if (step == 20) x[q][9] = 0.5f;  // that sequence's prefix changes once
    const std::vector<float> want = plain.run(x[q].data());
    ASSERT_EQ(cached.run(x[q].data(), caches[q]), want) << "step " << step;
  }
  EXPECT_EQ(cached.prefix_misses(), 3);  // each sequence's first call, and the change
}

// The forward pass holds blocks of outputs in vector registers; each output must still be the sum
// b + a_0 W_0 + a_1 W_1 + ... over the non-zero inputs in increasing order, rounded after every
// operation: compared bit for bit with that plain loop, on widths that use the blocks of 64, 32, 8
// and the single outputs: DL2's 240 -> 160 -> 160 -> 121 with the affine layer, and without it
// (ReLU only: each hidden layer rectified in registers and its non-zero outputs listed there) the
// column network's 13 -> 64 -> 64 -> 3 and widths that are not multiples of 8 (21 -> 75 -> 13 -> 5).
TEST(Mlp, BlockedForwardEqualsThePlainOrderedSumBitForBit) {
  for (const MlpShape& s : {MlpShape{240, {160, 160}, 121, true}, MlpShape{13, {64, 64}, 3, false},
                            MlpShape{21, {75, 13}, 5, false}}) {
    Rng rng(9);
    const std::vector<float> p = uniform_parameters(s, rng, 0.3);
    MlpForward f(s, p);
    std::vector<float> x(s.inputs);
    for (int trial = 0; trial < 5; ++trial) {
      for (float& v : x) v = rng.uniform() < 0.4 ? 0.0f : static_cast<float>(rng.uniform(-2, 2));
      // The plain loop, layer by layer (parameters in learn/mlp.h's order).
      std::vector<float> a = x;
      size_t off = 0;
      int in = s.inputs;
      auto linear = [&](int out) {
        std::vector<float> b(p.begin() + static_cast<long>(off + static_cast<size_t>(out) * in),
                             p.begin() + static_cast<long>(off + static_cast<size_t>(out) * in + out));
        for (int i = 0; i < in; ++i) {
          if (a[i] == 0.0f) continue;
          for (int o = 0; o < out; ++o) {
            const float prod = a[i] * p[off + static_cast<size_t>(o) * in + i];
            b[o] = b[o] + prod;
          }
        }
        off += static_cast<size_t>(out) * in + out;
        return b;
      };
      const float inv_sd = 1.0f / std::sqrt(1.0f + kAffineEps);
      int zeros = 0;  // rectified hidden outputs (so the lists of non-zero inputs are exercised)
      for (int h : s.hidden) {
        std::vector<float> b = linear(h);
        for (int o = 0; o < h; ++o) {
          b[o] = std::max(b[o], 0.0f);
          zeros += b[o] == 0.0f;
          if (!s.affine) continue;
          const float scaled = p[off + o] * inv_sd;
          const float prod = scaled * b[o];
          b[o] = prod + p[off + h + o];
        }
        if (s.affine) off += 2 * static_cast<size_t>(h);
        a = b;
        in = h;
      }
      EXPECT_GT(zeros, 0);
      const std::vector<float> want = linear(s.outputs);
      const std::vector<float>& got = f.run(x.data());
      for (int o = 0; o < s.outputs; ++o)
        ASSERT_EQ(got[o], want[o]) << "inputs " << s.inputs << " trial " << trial << " output " << o;
    }
  }
}

// The vectorised exponential of DL2's softmax: within 2 units in the last place of std::exp on
// [-745, 0] (subnormal results and 0 included), exact at 0, 0 at -inf; the softmax built on it
// differs from std::exp's in the last bits at most and keeps masked actions at 0.
TEST(Mlp, VectorExpIsWithinTwoUlpOfStdExp) {
  std::vector<double> x;
  for (double v = 0; v >= -745.5; v -= 0.0137) x.push_back(v);
  x.push_back(-0.0);
  x.push_back(-1e-300);
  x.push_back(-INFINITY);
  std::vector<double> y(x.size());
  exp_nonpositive_values(x.data(), y.data(), static_cast<int>(x.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    const double want = std::exp(x[i]);
    const double ulp = std::nextafter(want, INFINITY) - want;
    ASSERT_LE(std::abs(y[i] - want), 2 * ulp) << "x = " << x[i];
  }
  EXPECT_EQ(y[0], 1.0);
  EXPECT_EQ(y.back(), 0.0);
  const std::vector<float> logits = {1.5f, -3, 0.25f, 7, -40, 2};
  const std::vector<unsigned char> mask = {1, 1, 0, 1, 1, 1};
  std::vector<double> a, b;
  ASSERT_TRUE(masked_softmax(logits, mask, a));
  ASSERT_TRUE(masked_softmax(logits, mask, b, SoftmaxExp::Vector));
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(b[i], a[i], 2e-15 * a[i] + 1e-300);
  EXPECT_EQ(b[2], 0.0);
  EXPECT_FALSE(masked_softmax(logits, std::vector<unsigned char>(6, 0), b, SoftmaxExp::Vector));
}

// DL2's fast path (dl2.incremental=on): the first layer updated by the changed inputs' columns,
// the affine folded into the next layer. Over a sequence of single-column changes (DL2's slot: a
// job's share, workers and PSs) and window moves, the outputs stay within 1e-5 (relative to the
// largest logit) of a from-scratch pass and of MlpForward's.
class MlpIncrementalTest : public ::testing::TestWithParam<bool> {};

TEST_P(MlpIncrementalTest, UpdatedFirstLayerFollowsTheFullForwardOverAStateSequence) {
  constexpr int L = 40;
  MlpShape s{6 * L, {160, 160}, 3 * L + 1, GetParam()};  // `code` (affine) or `paper`-like
  Rng rng(21);
  std::vector<float> p(s.parameter_count());
  for (float& v : p) v = static_cast<float>(rng.uniform(-0.2, 0.2));
  MlpForward reference(s, p);
  MlpIncremental inc(s, p), scratch(s, p);
  auto new_state = [&](std::vector<float>& x) {
    const int filled = static_cast<int>(rng.uniform_int(1, L));
    std::fill(x.begin(), x.end(), 0.0f);
    for (int c = 0; c < filled; ++c) {
      x[0 * L + c] = static_cast<float>(rng.uniform_int(1, 8));
      x[1 * L + c] = static_cast<float>(rng.uniform_int(0, 100));
      x[2 * L + c] = static_cast<float>(rng.uniform(0, 1));
      x[3 * L + c] = static_cast<float>(rng.uniform(0, 0.1));
      x[4 * L + c] = 1.0f;
      x[5 * L + c] = 1.0f;
    }
    return filled;
  };
  std::vector<float> x(6 * L);
  int filled = new_state(x);
  inc.run(x.data());
  double worst = 0.0;
  for (int step = 0; step < 600; ++step) {
    const std::vector<float>* got;
    if (step % 150 == 149) {  // the window moved: from scratch
      filled = new_state(x);
      got = &inc.run(x.data());
    } else {
      const int c = static_cast<int>(rng.uniform_int(0, filled - 1));
      x[3 * L + c] += static_cast<float>(rng.uniform(0, 0.01));
      x[4 * L + c] += static_cast<float>(rng.uniform_int(0, 1));
      x[5 * L + c] += static_cast<float>(rng.uniform_int(0, 1));
      int changed[6];
      for (int r = 0; r < 6; ++r) changed[r] = r * L + c;
      got = &inc.run_changed(x.data(), changed, 6);
    }
    const std::vector<float> fresh = scratch.run(x.data());
    const std::vector<float>& want = reference.run(x.data());
    float scale = 1.0f;
    for (float v : want) scale = std::max(scale, std::abs(v));
    for (int o = 0; o < s.outputs; ++o) {
      ASSERT_NEAR((*got)[o], want[o], 1e-5 * scale) << "step " << step << " output " << o;
      ASSERT_NEAR((*got)[o], fresh[o], 1e-5 * scale) << "step " << step << " output " << o;
      worst = std::max(worst, std::abs(static_cast<double>((*got)[o]) - want[o]) / scale);
    }
  }
  EXPECT_GT(worst, 0.0);  // other rounding than MlpForward's, as documented
}

INSTANTIATE_TEST_SUITE_P(Affine, MlpIncrementalTest, ::testing::Bool());

// The single-precision exponential of the fast path's softmax: within 2e-7 relative of std::exp on
// [-87, 0], 0 below -87 and at -inf; its softmax within 2e-6 relative (plus 1e-12) of the default one.
TEST(Mlp, FloatExpIsWithinTwoTenMillionthsAndItsSoftmaxWithinTwoMillionths) {
  std::vector<float> x;
  for (float v = 0; v >= -87.0f; v -= 0.00731f) x.push_back(v);
  const size_t in_range = x.size();
  x.push_back(-87.5f);
  x.push_back(-INFINITY);
  std::vector<float> y(x.size());
  exp_nonpositive_floats(x.data(), y.data(), static_cast<int>(x.size()));
  for (size_t i = 0; i < in_range; ++i) {
    const double want = std::exp(static_cast<double>(x[i]));
    ASSERT_NEAR(y[i], want, 2e-7 * want) << "x = " << x[i];
  }
  EXPECT_EQ(y[0], 1.0f);
  EXPECT_EQ(y[in_range], 0.0f);
  EXPECT_EQ(y.back(), 0.0f);
  Rng rng(2);
  std::vector<float> logits(121);
  std::vector<unsigned char> mask(121);
  for (int trial = 0; trial < 50; ++trial) {
    for (size_t i = 0; i < logits.size(); ++i) {
      logits[i] = static_cast<float>(rng.uniform(-30, 30));
      mask[i] = rng.uniform() < 0.7;
    }
    mask[120] = 1;
    std::vector<double> a, b;
    ASSERT_TRUE(masked_softmax(logits, mask, a));
    ASSERT_TRUE(masked_softmax(logits, mask, b, SoftmaxExp::Float));
    for (size_t i = 0; i < a.size(); ++i) {
      // logit - max rounded to float: about |logit - max| x 6e-8 relative, negligible where it is large.
      ASSERT_NEAR(b[i], a[i], 2e-6 * a[i] + 1e-12) << "trial " << trial << " action " << i;
      if (!mask[i]) {
        ASSERT_EQ(b[i], 0.0);
      }
    }
  }
  std::vector<double> none;
  EXPECT_FALSE(masked_softmax(logits, std::vector<unsigned char>(121, 0), none, SoftmaxExp::Float));
}

TEST(Mlp, InitialParametersAreSmallTruncatedNormalsAndZeroBiases) {
  MlpShape s{10, {8}, 3, true};
  Rng rng(1);
  const auto p = mlp_initial_parameters(s, rng);
  ASSERT_EQ(p.size(), s.parameter_count());
  for (size_t i = 0; i < 80; ++i) EXPECT_LE(std::abs(p[i]), 0.04f + 1e-7f);
  for (size_t i = 80; i < 88; ++i) EXPECT_EQ(p[i], 0.0f);   // b1
  for (size_t i = 88; i < 96; ++i) EXPECT_EQ(p[i], 1.0f);   // gamma
  for (size_t i = 96; i < 104; ++i) EXPECT_EQ(p[i], 0.0f);  // beta
}

TEST(Mlp, MaskedSoftmaxIgnoresMaskedActions) {
  std::vector<float> logits = {1, 100, 1, 0};
  std::vector<unsigned char> mask = {1, 0, 1, 0};
  std::vector<double> probs;
  ASSERT_TRUE(masked_softmax(logits, mask, probs));
  EXPECT_DOUBLE_EQ(probs[1], 0.0);
  EXPECT_DOUBLE_EQ(probs[3], 0.0);
  EXPECT_NEAR(probs[0], 0.5, 1e-12);
  mask = {0, 0, 0, 0};
  EXPECT_FALSE(masked_softmax(logits, mask, probs));
}

std::string tmp(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("dmlkit-mlp-test-" + name)).string();
}

TEST(ModelFile, RoundTripIsExact) {
  ModelFile m;
  m.kind = "dl2";
  m.meta["command"] = "dmlkit cluster train dl2";
  MlpShape s{6, {4}, 3, false};
  Rng rng(3);
  m.nets["policy"] = {s, mlp_initial_parameters(s, rng)};
  m.extra["adam"] = {1.5f, -2.25f, 3.0f};
  const std::string path = tmp("rt.json");
  save_model_file(path, m);
  const ModelFile r = load_model_file(path);
  EXPECT_EQ(r.kind, "dl2");
  EXPECT_EQ(r.meta.at("command"), "dmlkit cluster train dl2");
  EXPECT_EQ(r.nets.at("policy").shape, s);
  EXPECT_EQ(r.nets.at("policy").parameters, m.nets["policy"].parameters);
  EXPECT_EQ(r.extra.at("adam"), m.extra["adam"]);
  std::filesystem::remove(path);
}

TEST(ModelFile, MissingOrCorruptFilesAreErrorsNamingTheFile) {
  EXPECT_THROW(load_model_file(tmp("missing.json")), Error);
  const std::string path = tmp("bad.json");
  for (const std::string text :
       {"{not json", "{\"format\":\"other\"}",
        "{\"format\":\"dmlkit-model\",\"version\":1,\"kind\":\"dl2\",\"meta\":{},\"nets\":{\"policy\":{\"inputs\":2,"
        "\"hidden\":[],\"outputs\":1,\"affine\":false,\"parameters\":\"AAAA\"}}}",
        "{\"format\":\"dmlkit-model\",\"version\":1,\"kind\":\"dl2\",\"meta\":{},\"nets\":{\"policy\":{\"inputs\":1,"
        "\"hidden\":[],\"outputs\":1,\"affine\":false,\"parameters\":\"!!!!\"}}}"}) {
    std::ofstream(path) << text;
    try {
      load_model_file(path);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const Error& e) {
      EXPECT_EQ(e.file(), path);
    }
  }
  std::filesystem::remove(path);
}

TEST(PrioritizedReplay, SamplesInProportionToPriority) {
  PrioritizedReplayConfig c;
  c.capacity = 4;
  PrioritizedReplay r(c);
  for (double p : {1.0, 2.0, 3.0, 4.0}) r.add(p);
  ASSERT_TRUE(r.full());
  EXPECT_DOUBLE_EQ(r.total(), 10.0);
  Rng rng(5);
  std::map<size_t, int> count;
  PrioritizedReplay::Batch b;
  for (int k = 0; k < 2000; ++k) {
    r.sample(10, rng, b);
    for (size_t s : b.slots) ++count[s];
  }
  for (size_t s = 0; s < 4; ++s) EXPECT_NEAR(count[s] / 20000.0, (s + 1) / 10.0, 0.01) << s;
}

TEST(PrioritizedReplay, ImportanceWeightsAndPriorityUpdates) {
  PrioritizedReplayConfig c;
  c.capacity = 2;
  PrioritizedReplay r(c);
  r.add(1.0);
  r.add(4.0);
  Rng rng(1);
  PrioritizedReplay::Batch b;
  r.sample(2, rng, b);  // beta = 0.1 + 1e-4
  for (size_t k = 0; k < 2; ++k) {
    const double p = r.priority(b.slots[k]);
    EXPECT_NEAR(b.weights[k], std::pow(p / 1.0, -r.beta()), 1e-12);  // (P(i)/P_min)^-beta
  }
  r.update({0, 1}, {10.0, 0.0});
  EXPECT_NEAR(r.priority(0), std::pow(4.0, 0.9), 1e-12);   // clipped at 4
  EXPECT_NEAR(r.priority(1), std::pow(0.01, 0.9), 1e-12);  // |err| + 0.01
}

// The importance weights reach the learner as DL2's code uses them (train.py: the advantage
// (r - V(s)) times the sample's weight): the new priorities come from the unweighted error, the
// advantage is weighted, and a weight of 0 leaves the policy untouched.
TEST(PrioritizedReplay, ImportanceWeightsScaleTheAdvantageNotThePriorityError) {
  MlpShape s{3, {4}, 2, false};
  Rng rng(2);
  const std::vector<float> p0 = mlp_initial_parameters(s, rng);
  MlpShape vs{3, {4}, 1, false};
  const std::vector<float> v0 = mlp_initial_parameters(vs, rng);
  ActorCriticBatch b;
  b.reset(3, 2);
  const float x0[3] = {1, 0, 2}, x1[3] = {0, 1, -1};
  const unsigned char m[2] = {1, 1};
  b.add(x0, m, 0, 2.0f, 0.5);
  b.add(x1, m, 1, -1.0f, 3.0);
  MlpForward value(vs, v0);
  const double e0 = 2.0 - value.run(x0)[0], e1 = -1.0 - value.run(x1)[0];
  auto policy = make_mlp_trainer(s, p0, 0.01);
  auto critic = make_mlp_trainer(vs, v0, 0.01);
  std::vector<double> err;
  const ActorCriticStats st = add_actor_critic_gradients(b, *policy, critic.get(), &value, 0.0, &err);
  ASSERT_EQ(err.size(), 2u);
  EXPECT_NEAR(err[0], std::abs(e0), 1e-6);
  EXPECT_NEAR(err[1], std::abs(e1), 1e-6);
  EXPECT_NEAR(st.mean_abs_advantage, (0.5 * std::abs(e0) + 3.0 * std::abs(e1)) / 2, 1e-5);
  // Weight 0 on every row (and no entropy term): no policy gradient, the policy does not move.
  ActorCriticBatch z = b;
  z.weights = {0.0, 0.0};
  auto still = make_mlp_trainer(s, p0, 0.01);
  add_actor_critic_gradients(z, *still, critic.get(), &value, 0.0);
  still->step(1);
  EXPECT_EQ(still->parameters(), p0);
}

TEST(PrioritizedReplay, NewSamplePriorityIsRewardAboveTheMeanAtLeastOne) {
  PrioritizedReplay r;
  EXPECT_DOUBLE_EQ(r.reward_priority(1.0), 1.0);  // mean 1
  EXPECT_DOUBLE_EQ(r.reward_priority(5.0), 2.0);  // mean 3
  EXPECT_DOUBLE_EQ(r.reward_priority(0.0), 1.0);
}

TEST(MlpTrainer, CrossEntropyTrainingLearnsASeparableRuleAndMatchesTheForwardPass) {
  MlpShape s{2, {16}, 2, true};
  Rng rng(7);
  auto net = make_mlp_trainer(s, mlp_initial_parameters(s, rng), 0.01);
  std::vector<float> x;
  std::vector<int> y;
  for (int i = 0; i < 64; ++i) {
    const float a = static_cast<float>(rng.uniform(-1, 1)), b = static_cast<float>(rng.uniform(-1, 1));
    x.push_back(a);
    x.push_back(b);
    y.push_back(a > b ? 1 : 0);
  }
  double first = 0, last = 0;
  int correct = 0;
  for (int step = 0; step < 300; ++step) {
    const LossStats st = net->add_cross_entropy_gradient(x.data(), 64, y.data());
    net->step(1);
    if (step == 0) first = st.loss;
    last = st.loss;
    correct = st.correct;
  }
  EXPECT_LT(last, 0.5 * first);
  EXPECT_GE(correct, 58);
  // The run-time forward pass gives the trained network's decisions.
  MlpForward f(s, net->parameters());
  int agree = 0;
  for (int i = 0; i < 64; ++i) {
    const auto& o = f.run(x.data() + 2 * i);
    agree += (o[1] > o[0] ? 1 : 0) == y[i];
  }
  EXPECT_GE(agree, 58);
  // Adam state round trip.
  auto again = make_mlp_trainer(s, net->parameters(), 0.01);
  again->set_optimizer_state(net->optimizer_state());
  EXPECT_EQ(again->optimizer_state(), net->optimizer_state());
}

TEST(MlpTrainer, PolicyGradientRaisesTheProbabilityOfRewardedActionsWithinTheMask) {
  MlpShape s{1, {8}, 3, false};
  Rng rng(2);
  auto net = make_mlp_trainer(s, mlp_initial_parameters(s, rng), 0.05);
  std::vector<float> x(16, 1.0f);
  std::vector<unsigned char> mask;
  std::vector<int> a;
  std::vector<float> adv;
  for (int i = 0; i < 16; ++i) {
    mask.insert(mask.end(), {1, 1, 0});
    a.push_back(i % 2);
    adv.push_back(i % 2 == 0 ? 1.0f : -1.0f);  // action 0 good, 1 bad
  }
  for (int step = 0; step < 50; ++step) {
    net->add_policy_gradient(x.data(), 16, mask.data(), a.data(), adv.data(), 0.0);
    net->step(1);
  }
  MlpForward f(s, net->parameters());
  const auto& o = f.run(x.data());
  std::vector<float> logits(o.begin(), o.end());
  std::vector<double> p;
  masked_softmax(logits, {1, 1, 0}, p);
  EXPECT_GT(p[0], 0.9);
}

}  // namespace
}  // namespace dmlkit::learn
