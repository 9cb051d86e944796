// Seeded, splittable random numbers. No global RNG anywhere in dmlkit: every component that needs
// randomness receives an Rng derived from the run's --seed with split(stream), so adding a new
// consumer never perturbs the numbers another consumer draws. Generator: xoshiro256** seeded by
// SplitMix64 (public-domain algorithms by Blackman and Vigna); satisfies UniformRandomBitGenerator.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cmath>
#include <cstdint>
#include <limits>

namespace dmlkit {

class Rng {
 public:
  using result_type = uint64_t;
  explicit Rng(uint64_t seed = 0) : seed_(seed) {
    uint64_t x = seed;
    for (auto& s : s_) s = splitmix(x);
  }
  // An independent stream derived from this generator's seed and `stream` (not its state).
  Rng split(uint64_t stream) const {
    uint64_t x = seed_ ^ (0x9E3779B97F4A7C15ULL * (stream + 1));
    return Rng(splitmix(x));
  }
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<uint64_t>::max(); }
  result_type operator()() { return next(); }

  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  // Uniform integer in [lo, hi] (inclusive), unbiased (Lemire's method with rejection).
  int64_t uniform_int(int64_t lo, int64_t hi) {
    const uint64_t range = static_cast<uint64_t>(hi - lo) + 1;
    if (range == 0) return static_cast<int64_t>(next());
    const uint64_t limit = max() - max() % range;
    uint64_t r;
    do r = next();
    while (r >= limit);
    return lo + static_cast<int64_t>(r % range);
  }
  // Fisher-Yates shuffle of [first, last) from the back: for i = n-1 .. 1, swap element i with a
  // uniform element of 0..i. The one shuffle every component uses, so equal seeds give equal orders.
  template <typename It>
  void shuffle(It first, It last) {
    for (int64_t i = static_cast<int64_t>(last - first) - 1; i > 0; --i)
      std::iter_swap(first + i, first + uniform_int(0, i));
  }
  // Partial Fisher-Yates from the front: afterwards the first min(k, n) elements of [first, last)
  // are a uniform sample without replacement, in the order drawn. Returns min(k, n).
  template <typename It>
  size_t sample_prefix(It first, It last, size_t k) {
    const int64_t n = static_cast<int64_t>(last - first);
    const int64_t take = std::min<int64_t>(static_cast<int64_t>(k), n);
    for (int64_t i = 0; i < take; ++i) std::iter_swap(first + i, first + i + uniform_int(0, n - i - 1));
    return static_cast<size_t>(take);
  }
  // Exponential with the given rate (mean 1/rate).
  double exponential(double rate) { return -std::log1p(-uniform()) / rate; }
  double normal(double mean, double stddev) {
    // Box-Muller; one value per call keeps the stream simple and deterministic.
    double u1 = uniform(), u2 = uniform();
    if (u1 < 1e-300) u1 = 1e-300;
    return mean + stddev * std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static uint64_t splitmix(uint64_t& x) {
    uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  uint64_t seed_;
  uint64_t s_[4];
};

}  // namespace dmlkit
