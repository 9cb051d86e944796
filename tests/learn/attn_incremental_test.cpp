// learn/attn_incremental.h: the cached pointer forward pass gives AttnForward::run's logits bit for
// bit over a sequence of inputs that change a few rows at a time (and sometimes their counts), and
// it recomputes only the rows whose inputs changed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <tuple>

#include "core/error.h"
#include "learn/attn_incremental.h"

namespace dmlkit::learn {
namespace {

AttnShape pointer_shape(int embed, int heads, bool wait = false) {
  AttnShape s;
  s.wait_target = wait;
  s.job_features = 6;
  s.server_features = 5;
  s.query_features = 3;
  s.embed = embed;
  s.heads = heads;
  s.head = AttnHead::pointer;
  return s;
}

void randomize(float* x, int n, Rng& rng) {
  for (int i = 0; i < n; ++i) x[i] = static_cast<float>(rng.uniform(-2, 2));
}

bool same_bits(const float* a, const float* b, int n) { return std::memcmp(a, b, sizeof(float) * n) == 0; }

// With and without the wait target (its logit is the last, index S).
TEST(AttnIncremental, LogitsEqualTheFullForwardBitForBit) {
  for (const auto& [embed, heads, wait] : {std::tuple{8, 2, false}, std::tuple{32, 4, false}, std::tuple{8, 2, true}}) {
    const AttnShape s = pointer_shape(embed, heads, wait);
    Rng rng(11 + embed);
    auto params = attn_initial_parameters(s, rng);
    for (float& p : params) p *= 3.0f;  // larger scores: the softmax rows' maxima move
    AttnForward full(s, params);
    AttnPointerIncremental inc(s, params);
    int J = 9, S = 7;
    std::vector<float> jx(64 * s.job_features), sx(64 * s.server_features), qx(s.query_features);
    randomize(jx.data(), static_cast<int>(jx.size()), rng);
    randomize(sx.data(), static_cast<int>(sx.size()), rng);
    std::vector<unsigned char> mask(64, 1);
    auto pick = [&rng](int n) { return static_cast<int>(rng.uniform_int(0, n - 1)); };
    int compared = 0;
    for (int step = 0; step < 400; ++step) {
      const double u = rng.uniform();
      if (u < 0.05)
        J = 1 + pick(41);  // a new decision: another job count
      else if (u < 0.08)
        S = 1 + pick(41);  // another cluster
      else if (u < 0.12)
        inc.reset();
      if (rng.uniform() < 0.8) randomize(&jx[pick(J) * s.job_features], s.job_features, rng);
      if (rng.uniform() < 0.3) randomize(&jx[pick(J) * s.job_features], s.job_features, rng);
      if (rng.uniform() < 0.8) randomize(&sx[pick(S) * s.server_features], s.server_features, rng);
      if (rng.uniform() < 0.3) {  // one server's token copied onto another's: twins share a logit
        const int from = pick(S), to = pick(S);
        std::copy_n(&sx[from * s.server_features], s.server_features, &sx[to * s.server_features]);
      }
      if (rng.uniform() < 0.2) {  // one feature nudged by one ulp
        float& x = jx[pick(J) * s.job_features];
        x = std::nextafter(x, 10.0f);
      }
      randomize(qx.data(), s.query_features, rng);
      const bool masked = rng.uniform() < 0.5;
      for (int m = 0; m < S + (wait ? 1 : 0); ++m) mask[m] = !masked || rng.uniform() < 0.6 ? 1 : 0;
      const int q = pick(J);
      const std::vector<float> want = full.run(J, S, q, jx.data(), sx.data(), qx.data());
      const std::vector<float>& got = inc.run(J, S, q, jx.data(), sx.data(), qx.data(), masked ? mask.data() : nullptr);
      ASSERT_EQ(got.size(), want.size());
      ASSERT_EQ(static_cast<int>(want.size()), S + (wait ? 1 : 0));
      for (int m = 0; m < static_cast<int>(want.size()); ++m) {
        if (mask[m] == 0) {
          EXPECT_EQ(got[m], 0.0f);
          continue;
        }
        ASSERT_TRUE(same_bits(&got[m], &want[m], 1))
            << "E " << embed << " step " << step << " server " << m << ": " << got[m] << " vs " << want[m];
        ++compared;
      }
    }
    EXPECT_GT(compared, 1000);
  }
}

TEST(AttnIncremental, RecomputesOnlyTheChangedRows) {
  const AttnShape s = pointer_shape(16, 4);
  Rng rng(3);
  const auto params = attn_initial_parameters(s, rng);
  AttnPointerIncremental inc(s, params);
  const int J = 20, S = 12, H = s.heads;
  std::vector<float> jx(J * s.job_features), sx(S * s.server_features), qx(s.query_features);
  randomize(jx.data(), static_cast<int>(jx.size()), rng);
  randomize(sx.data(), static_cast<int>(sx.size()), rng);
  inc.run(J, S, 0, jx.data(), sx.data(), qx.data());
  EXPECT_EQ(inc.stats().job_rows, J);
  EXPECT_EQ(inc.stats().server_rows, S);
  EXPECT_EQ(inc.stats().scores, static_cast<long>(H) * J * J);
  // One job token and one server token change: one row of each, the scores of that job's row and
  // column (2J - 1 per head).
  const auto before = inc.stats();
  jx[5 * s.job_features + 2] += 0.5f;
  sx[3 * s.server_features] -= 0.25f;
  inc.run(J, S, 5, jx.data(), sx.data(), qx.data());
  EXPECT_EQ(inc.stats().job_rows - before.job_rows, 1);
  EXPECT_EQ(inc.stats().server_rows - before.server_rows, 1);
  EXPECT_EQ(inc.stats().scores - before.scores, static_cast<long>(H) * (2 * J - 1));
  EXPECT_LT(inc.stats().exps - before.exps, static_cast<long>(H) * J * J);
  // Nothing changes: nothing is recomputed but the pointer.
  const auto still = inc.stats();
  inc.run(J, S, 5, jx.data(), sx.data(), qx.data());
  EXPECT_EQ(inc.stats().job_rows, still.job_rows);
  EXPECT_EQ(inc.stats().server_rows, still.server_rows);
  EXPECT_EQ(inc.stats().scores, still.scores);
}

TEST(AttnIncremental, RefusesOtherHeadsAndWrongSizes) {
  AttnShape s = pointer_shape(8, 2);
  Rng rng(1);
  const auto params = attn_initial_parameters(s, rng);
  EXPECT_THROW(AttnPointerIncremental(s, std::vector<float>(params.begin(), params.end() - 1)), Error);
  s.head = AttnHead::value;
  EXPECT_THROW(AttnPointerIncremental(s, attn_initial_parameters(s, rng)), Error);
}

}  // namespace
}  // namespace dmlkit::learn
