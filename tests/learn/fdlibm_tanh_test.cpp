// learn/fdlibm_tanh.h: fdlibm's tanhf bit for bit, in every branch of the scalar code (and of the
// expm1f it calls), for any count of values; and, where the platform's tanhf is fdlibm's (glibc up
// to at least 2.36), equal to std::tanh on a dense sweep of floats.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "learn/fdlibm_tanh.h"

namespace dmlkit::learn {
namespace {

// (x, fdlibm tanhf(x)) as bits: one input for each branch of tanhf and expm1f it reaches.
const std::vector<std::pair<uint32_t, uint32_t>>& reference() {
  static const std::vector<std::pair<uint32_t, uint32_t>> r = {
      {0x21800000u, 0x21800000u},  // 2^-60: tanh = x (1 + x)
      {0xa3800000u, 0xa3800000u},  // -2^-56
      {0x32400000u, 0x32400000u},  // 1.5 2^-27: expm1 returns its argument
      {0x3c23d70au, 0x3c23d5a4u},  // 0.01: expm1 with k = 0
      {0xbdcccccdu, 0xbdcc1ebcu},  // -0.1
      {0x3e4ccccdu, 0x3e4a1cc2u},  // 0.2: k = -1
      {0xbe99999au, 0xbe9526edu},  // -0.3
      {0x3f19999au, 0x3f097c15u},  // 0.6: k = -2 (|k| >= 2, below zero)
      {0xbf400000u, 0xbf22991fu},  // -0.75
      {0x3f7ff972u, 0x3f42f514u},  // 0.9999: k = -3
      {0x3f800000u, 0x3f42f7d6u},  // 1: 1 - 2 / (expm1(2) + 2), k = 3
      {0xbfc00000u, 0xbf67b7ccu},  // -1.5
      {0x40200000u, 0x3f7c92c1u},  // 2.5
      {0x4079999au, 0x3f7fca51u},  // 3.9
      {0xc0c00000u, 0xbf7fff32u},  // -6
      {0x40f66666u, 0x3f7ffff9u},  // 7.7: k = 22
      {0x41000000u, 0x3f7ffffcu},  // 8: 23 <= k <= 56
      {0x41280000u, 0x3f800000u},  // 10.5
      {0x419c0000u, 0x3f800000u},  // 19.5: k > 56
      {0xc1af3333u, 0xbf800000u},  // -21.9
      {0x41b00000u, 0x3f800000u},  // 22: +-1
      {0x42c80000u, 0x3f800000u},  // 100
      {0x00000000u, 0x00000000u},  // +0
      {0x80000000u, 0x80000000u},  // -0
      {0x7f800000u, 0x3f800000u},  // +inf
      {0xff800000u, 0xbf800000u},  // -inf
  };
  return r;
}

TEST(FdlibmTanh, ReferenceValuesInEveryBranch) {
  const auto& r = reference();
  // Every count of values (the tail of a block of eight takes another path), the inputs rotated so
  // that each one lands in every lane.
  for (int n = 1; n <= static_cast<int>(r.size()); ++n)
    for (int shift = 0; shift < 8; ++shift) {
      std::vector<float> x(static_cast<size_t>(n)), y(static_cast<size_t>(n), -7.0f);
      for (int i = 0; i < n; ++i) x[i] = std::bit_cast<float>(r[(i + shift) % r.size()].first);
      fdlibm_tanh(x.data(), y.data(), n);
      for (int i = 0; i < n; ++i)
        ASSERT_EQ(std::bit_cast<uint32_t>(y[i]), r[(i + shift) % r.size()].second)
            << "tanh(" << x[i] << ") = " << y[i] << " (n " << n << ")";
    }
  float nan = std::numeric_limits<float>::quiet_NaN();
  fdlibm_tanh(&nan, &nan, 1);
  EXPECT_TRUE(std::isnan(nan));
  // In place.
  std::vector<float> x = {0.6f, -1.5f, 8.0f};
  fdlibm_tanh(x.data(), x.data(), 3);
  EXPECT_EQ(std::bit_cast<uint32_t>(x[0]), 0x3f097c15u);
  EXPECT_EQ(std::bit_cast<uint32_t>(x[1]), 0xbf67b7ccu);
  EXPECT_EQ(std::bit_cast<uint32_t>(x[2]), 0x3f7ffffcu);
}

// Where std::tanh is fdlibm's (it gives the reference values), the two agree on every 257th float
// (16.7 million inputs over the whole range, both signs); elsewhere the test is skipped.
TEST(FdlibmTanh, EqualsTheLibmTanhfWhereThatIsFdlibms) {
  for (const auto& [x, y] : reference())
    if (std::bit_cast<uint32_t>(std::tanh(std::bit_cast<float>(x))) != y)
      GTEST_SKIP() << "this platform's tanhf is not fdlibm's";
  constexpr int kBlock = 4096;
  std::vector<float> x(kBlock), y(kBlock);
  long compared = 0;
  for (uint64_t base = 0; base < (uint64_t{1} << 32); base += uint64_t{257} * kBlock) {
    for (int i = 0; i < kBlock; ++i) x[i] = std::bit_cast<float>(static_cast<uint32_t>(base + uint64_t{257} * i));
    fdlibm_tanh(x.data(), y.data(), kBlock);
    for (int i = 0; i < kBlock; ++i) {
      const float want = std::tanh(x[i]);
      if (std::isnan(want)) {
        ASSERT_TRUE(std::isnan(y[i]));
        continue;
      }
      ASSERT_EQ(std::bit_cast<uint32_t>(y[i]), std::bit_cast<uint32_t>(want)) << "tanh(" << x[i] << ")";
      ++compared;
    }
  }
  EXPECT_GT(compared, 15'000'000L);
}

}  // namespace
}  // namespace dmlkit::learn
