// tanh in float32, eight values at a time, with the results of fdlibm's scalar tanhf bit for bit:
// the algorithm of Sun's fdlibm s_tanhf.c and s_expm1f.c (|x| < 22: tanh = 1 - 2/(expm1(2|x|) + 2)
// for |x| >= 1, -t/(t + 2) with t = expm1(-2|x|) below; the same float operations in the same
// order, so the same roundings), which is what glibc's tanhf is up to at least 2.36 on x86-64 (no
// FMA variant there). Each step of every branch is computed for all eight lanes and the lane's
// branch is selected afterwards, so it vectorises (AVX2 when the CPU has it, else SSE2; no FMA: the
// products are rounded before the sums, as in the scalar code).
//
// Why: the attention network's pointer (learn/attn_net.h, additive_logit) takes E tanh per server
// and per decision step; libm's scalar tanhf was a third of harmony-seq2seq's decision time. Both
// the full forward pass and the incremental one call this, so their logits stay equal bit for bit
// whatever the platform's libm; on glibc <= 2.36 they also equal std::tanh's, so the decisions do
// not change (tests/learn/fdlibm_tanh_test.cpp; the exhaustive check over all 2^32 floats is
// recorded in docs/performance.md).
#pragma once

namespace dmlkit::learn {

// y[i] = tanhf(x[i]) for i < n (x and y may be the same array).
void fdlibm_tanh(const float* x, float* y, int n);

}  // namespace dmlkit::learn
