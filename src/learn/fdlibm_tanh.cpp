// Eight-lane fdlibm tanhf; see fdlibm_tanh.h. Every lane takes the scalar code's float operations
// in its order; the comments name the scalar branch each selection stands for. The algorithm and
// its constants are fdlibm's (Copyright (C) 1993 by Sun Microsystems, Inc. All rights reserved.
// Developed at SunPro, a Sun Microsystems, Inc. business. Permission to use, copy, modify, and
// distribute this software is freely granted, provided that this notice is preserved.)
#include "learn/fdlibm_tanh.h"

#include <cstdint>
#include <cstring>

// The helpers below pass 32-byte vectors by value; they are always inlined, so no call uses that ABI.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace dmlkit::learn {
namespace {

using V8f = float __attribute__((vector_size(32)));
using V8i = int32_t __attribute__((vector_size(32)));

// Inlined into the caller's clone (AVX2 or not).
#define DMLKIT_LANES inline __attribute__((always_inline))

DMLKIT_LANES V8f splat(float v) { return V8f{v, v, v, v, v, v, v, v}; }
DMLKIT_LANES V8i splat(int32_t v) { return V8i{v, v, v, v, v, v, v, v}; }
DMLKIT_LANES V8f as_f(V8i v) { return __builtin_bit_cast(V8f, v); }
DMLKIT_LANES V8i as_i(V8f v) { return __builtin_bit_cast(V8i, v); }

// expm1f for the arguments tanhf passes: finite, |x| < 44 (the branches for |x| >= 27 ln2 only
// filter overflow, NaN and x < -27 ln2, none of which tanhf reaches).
DMLKIT_LANES V8f expm1_8(V8f x) {
  const float ln2_hi = 6.9313812256e-01f, ln2_lo = 9.0580006145e-06f, invln2 = 1.4426950216e+00f;
  const float Q1 = -3.3333335072e-02f, Q2 = 1.5873016091e-03f, Q3 = -7.9365076090e-05f, Q4 = 4.0082177293e-06f,
              Q5 = -2.0109921195e-07f;
  const V8i bits = as_i(x);
  const V8i hx = bits & splat(0x7fffffff);
  const V8i neg = bits < splat(0);
  // Argument reduction. |x| in (0.5 ln2, 1.5 ln2): k = +-1, hi = x -+ ln2_hi, lo = +-ln2_lo.
  const V8i near = hx < splat(0x3f851592);
  const V8f hi_near = neg ? x + splat(ln2_hi) : x - splat(ln2_hi);
  const V8f lo_near = neg ? splat(-ln2_lo) : splat(ln2_lo);
  const V8i k_near = neg ? splat(-1) : splat(1);
  // Otherwise k = (int)(invln2 x +- 0.5), hi = x - k ln2_hi, lo = k ln2_lo. k is clamped for the
  // lanes whose result is not taken (so that the exponent arithmetic below stays defined).
  V8i k_far = __builtin_convertvector(invln2 * x + (neg ? splat(-0.5f) : splat(0.5f)), V8i);
  k_far = k_far < splat(-100) ? splat(-100) : k_far;
  k_far = k_far > splat(100) ? splat(100) : k_far;
  const V8f t_far = __builtin_convertvector(k_far, V8f);
  const V8f hi = near ? hi_near : x - t_far * ln2_hi;
  const V8f lo = near ? lo_near : t_far * ln2_lo;
  const V8i reduced = hx > splat(0x3eb17218);  // |x| > 0.5 ln2; else k = 0
  const V8i k = reduced ? (near ? k_near : k_far) : splat(0);
  const V8f xr = reduced ? hi - lo : x;
  const V8f c = (hi - xr) - lo;  // read only where k != 0
  // x is now in the primary range.
  const V8f hfx = 0.5f * xr;
  const V8f hxs = xr * hfx;
  const V8f r1 = 1.0f + hxs * (Q1 + hxs * (Q2 + hxs * (Q3 + hxs * (Q4 + hxs * Q5))));
  const V8f t = 3.0f - r1 * hfx;
  V8f e = hxs * ((r1 - t) / (6.0f - xr * t));
  const V8f y_k0 = xr - (xr * e - hxs);  // k == 0 (c is 0)
  e = xr * (e - c) - c;
  e -= hxs;
  const V8f y_km1 = 0.5f * (xr - e) - 0.5f;                                                  // k == -1
  const V8f y_k1 = xr < splat(-0.25f) ? -2.0f * (e - (xr + 0.5f)) : 1.0f + 2.0f * (xr - e);  // k == 1
  const V8f two_k = as_f((splat(0x7f) + k) << 23);   // 2^k: the scalar code adds k to the exponent
  const V8f two_mk = as_f((splat(0x7f) - k) << 23);  // 2^-k
  const V8f y_out = (1.0f - (e - xr)) * two_k - 1.0f;         // k <= -2 or k > 56
  const V8f y_low = ((1.0f - two_mk) - (e - xr)) * two_k;     // 2 <= k < 23 (t = 1 - 2^-k, exact)
  const V8f y_high = ((xr - (e + two_mk)) + 1.0f) * two_k;    // 23 <= k <= 56
  V8f y = k < splat(23) ? y_low : y_high;
  y = (k <= splat(-2)) | (k > splat(56)) ? y_out : y;
  y = k == splat(1) ? y_k1 : y;
  y = k == splat(-1) ? y_km1 : y;
  y = k == splat(0) ? y_k0 : y;
  return hx < splat(0x33000000) ? x : y;  // |x| < 2^-25: x
}

// tanhf: |x| >= 1: 1 - 2/(expm1(2|x|) + 2); |x| < 1: -t/(t + 2), t = expm1(-2|x|); the sign of x.
DMLKIT_LANES V8f tanh8(V8f x) {
  const V8i jx = as_i(x);
  const V8i ix = jx & splat(0x7fffffff);
  const V8f a = as_f(ix);
  const V8i big = ix >= splat(0x3f800000);
  const V8f two_a = 2.0f * a;
  const V8f t = expm1_8(big ? two_a : -two_a);
  // One division for both branches: 2 / (t + 2) or -t / (t + 2).
  const V8f q = (big ? splat(2.0f) : -t) / (t + 2.0f);
  const V8f z = big ? 1.0f - q : q;
  const V8i sign = jx & splat(static_cast<int32_t>(0x80000000u));
  V8f r = as_f(as_i(z) ^ sign);
  r = ix >= splat(0x41b00000) ? as_f(as_i(splat(1.0f)) ^ sign) : r;  // |x| >= 22 (and +-inf): +-1
  r = ix < splat(0x24000000) ? x * (1.0f + x) : r;                  // |x| < 2^-55 (and +-0)
  return ix > splat(0x7f800000) ? x + x : r;                         // NaN
}

__attribute__((target_clones("avx2", "default"))) void tanh_blocks(const float* x, float* y, int n) {
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    V8f v;
    std::memcpy(&v, x + i, sizeof v);
    v = tanh8(v);
    std::memcpy(y + i, &v, sizeof v);
  }
  if (i < n) {
    V8f v = splat(0.0f);
    std::memcpy(&v, x + i, sizeof(float) * static_cast<size_t>(n - i));
    v = tanh8(v);
    std::memcpy(y + i, &v, sizeof(float) * static_cast<size_t>(n - i));
  }
}

}  // namespace

void fdlibm_tanh(const float* x, float* y, int n) { tanh_blocks(x, y, n); }

}  // namespace dmlkit::learn
