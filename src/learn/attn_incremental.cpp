// The pointer head's incremental forward pass; see attn_incremental.h. Every computation below is
// the one of AttnForward::run (attn_net.cpp), operation for operation.
#include "learn/attn_incremental.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "core/error.h"

namespace dmlkit::learn {
namespace {

using V8f = float __attribute__((vector_size(32)));

// y = b + x W for W stored transposed ([in][out]); each y[o] accumulates b[o], then x[0] w[0][o],
// x[1] w[1][o], ...: AttnForward::linear's order for that output. Blocks of 32 outputs are kept in
// four 8-float accumulators; separate multiply and add (the targets have no FMA). Cloned for AVX2.
__attribute__((target_clones("avx2", "default"))) void linear_t(const float* __restrict wt, const float* __restrict b,
                                                                const float* __restrict x, int in, int out,
                                                                float* __restrict y) {
  int o0 = 0;
  for (; o0 + 32 <= out; o0 += 32) {
    V8f acc[4];
    for (int v = 0; v < 4; ++v) {
      acc[v] = V8f{};
      if (b != nullptr) std::memcpy(&acc[v], b + o0 + 8 * v, sizeof(V8f));
    }
    for (int i = 0; i < in; ++i) {
      const float xi = x[i];
      const float* w = wt + static_cast<size_t>(i) * out + o0;
      for (int v = 0; v < 4; ++v) {
        V8f wv;
        std::memcpy(&wv, w + 8 * v, sizeof(V8f));
        acc[v] += wv * xi;
      }
    }
    for (int v = 0; v < 4; ++v) std::memcpy(y + o0 + 8 * v, &acc[v], sizeof(V8f));
  }
  for (int o = o0; o < out; ++o) y[o] = b != nullptr ? b[o] : 0.0f;
  for (int i = 0; i < in; ++i) {
    const float xi = x[i];
    const float* __restrict w = wt + static_cast<size_t>(i) * out;
    for (int o = o0; o < out; ++o) y[o] += w[o] * xi;
  }
}

// The per-query-row steps of AttnForward::run's softmax and context for one head, with the query
// rows a as the inner (vectorised) index; each row's values still take the original steps in the
// original order over the keys b. Matrices are [b][a] with row stride `cap`.
//   mx[a] = max over b in order of sc[b][a]  (std::max(mx, x) = mx < x ? x : mx)
__attribute__((target_clones("avx2", "default"))) void row_max(const float* __restrict sc, int lanes, int jobs,
                                                               size_t cap, float* __restrict mx) {
  for (int a = 0; a < lanes; ++a) mx[a] = -std::numeric_limits<float>::infinity();
  for (int b = 0; b < jobs; ++b) {
    const float* __restrict s = sc + static_cast<size_t>(b) * cap;
    for (int a = 0; a < lanes; ++a) mx[a] = mx[a] < s[a] ? s[a] : mx[a];
  }
}

//   sum[a] = sum over b in order of ex[b][a];  w[b][a] = ex[b][a] / sum[a];
//   ctx[t][a] = sum over b in order of w[b][a] v_b[t] for the head's dh columns t (v_b at stride
//   vstride; ctx [t][a] with row stride cap). lanes is a multiple of 8.
__attribute__((target_clones("avx2", "default"))) void row_context(const float* __restrict ex, int lanes, int jobs,
                                                                   size_t cap, const float* __restrict v, int vstride,
                                                                   int dh, float* __restrict sum, float* __restrict w,
                                                                   float* __restrict ctx) {
  for (int a = 0; a < lanes; ++a) sum[a] = 0.0f;
  for (int b = 0; b < jobs; ++b) {
    const float* __restrict e = ex + static_cast<size_t>(b) * cap;
    for (int a = 0; a < lanes; ++a) sum[a] += e[a];
  }
  for (int b = 0; b < jobs; ++b) {
    const float* __restrict e = ex + static_cast<size_t>(b) * cap;
    float* __restrict wb = w + static_cast<size_t>(b) * cap;
    for (int a = 0; a < lanes; ++a) wb[a] = e[a] / sum[a];
  }
  // The context in blocks of 8 query rows, 8 columns t at a time in eight accumulators (one load
  // of w per key row b for all of them); a head width that is not a multiple of 8 takes one
  // column at a time.
  const int wide = dh % 8 == 0 ? dh : 0;
  for (int a0 = 0; a0 < lanes; a0 += 8) {
    for (int t0 = 0; t0 < wide; t0 += 8) {
      V8f acc[8] = {};
      for (int b = 0; b < jobs; ++b) {
        V8f wv;
        std::memcpy(&wv, w + static_cast<size_t>(b) * cap + a0, sizeof wv);
        const float* vb = v + static_cast<size_t>(b) * vstride + t0;
        for (int t = 0; t < 8; ++t) acc[t] += wv * vb[t];
      }
      for (int t = 0; t < 8; ++t) std::memcpy(ctx + static_cast<size_t>(t0 + t) * cap + a0, &acc[t], sizeof(V8f));
    }
    for (int t = wide; t < dh; ++t) {
      V8f acc = {};
      for (int b = 0; b < jobs; ++b) {
        V8f wv;
        std::memcpy(&wv, w + static_cast<size_t>(b) * cap + a0, sizeof wv);
        acc += wv * v[static_cast<size_t>(b) * vstride + t];
      }
      std::memcpy(ctx + static_cast<size_t>(t) * cap + a0, &acc, sizeof acc);
    }
  }
}

//   sc[a] = (sum over t in order of qt[t][a] k[t]) * scale for the query rows a (qt [t][a] with row
//   stride cap): one key's scores against every query (AttnForward's dot product per lane).
__attribute__((target_clones("avx2", "default"))) void key_scores(const float* __restrict qt, size_t cap, int lanes,
                                                                  const float* __restrict k, int dh, float scale,
                                                                  float* __restrict sc) {
  for (int a0 = 0; a0 < lanes; a0 += 8) {
    V8f dot = {};
    for (int t = 0; t < dh; ++t) {
      V8f qv;
      std::memcpy(&qv, qt + static_cast<size_t>(t) * cap + a0, sizeof qv);
      dot += qv * k[t];
    }
    dot *= scale;
    std::memcpy(sc + a0, &dot, sizeof dot);
  }
}

// Copies the [out][in] matrix at p as [in][out]; returns the position after it.
const float* transposed(const float* p, int out, int in, std::vector<float>& wt) {
  wt.resize(static_cast<size_t>(in) * out);
  for (int o = 0; o < out; ++o)
    for (int i = 0; i < in; ++i) wt[static_cast<size_t>(i) * out + o] = p[static_cast<size_t>(o) * in + i];
  return p + static_cast<size_t>(in) * out;
}

const float* copied(const float* p, int n, std::vector<float>& v) {
  v.assign(p, p + n);
  return p + n;
}

bool same_bits(const float* a, const float* b, int n) {
  return std::memcmp(a, b, static_cast<size_t>(n) * sizeof(float)) == 0;
}

// FNV-1a over the bytes of n floats.
uint64_t hash_bits(const float* x, int n) {
  const auto* p = reinterpret_cast<const unsigned char*>(x);
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < static_cast<size_t>(n) * sizeof(float); ++i) h = (h ^ p[i]) * 1099511628211ULL;
  return h;
}

}  // namespace

AttnPointerIncremental::AttnPointerIncremental(const AttnShape& shape, const std::vector<float>& parameters)
    : shape_(shape) {
  shape_.validate();
  if (shape_.head != AttnHead::pointer)
    throw Error("", 0, "head",
                "the incremental forward pass is the pointer head's, not " + attn_head_name(shape_.head));
  if (parameters.size() != shape_.parameter_count())
    throw Error(
        "", 0, "parameters",
        std::to_string(parameters.size()) + " values for a network of " + std::to_string(shape_.parameter_count()));
  const int E = shape_.embed, dj = shape_.job_features, ds = shape_.server_features, dq = shape_.query_features;
  const float* p = parameters.data();
  p = transposed(p, E, dj, wj_);
  p = copied(p, E, bj_);
  p = transposed(p, 3 * E, E, win_);
  p = copied(p, 3 * E, bin_);
  p = transposed(p, E, E, wout_);
  p = copied(p, E, bout_);
  p = transposed(p, E, E, w1_);
  p = copied(p, E, b1_);
  p = transposed(p, E, ds, ws_);
  p = copied(p, E, bs_);
  p = transposed(p, E, 2 * E + dq, wu_);
  p = copied(p, E, bu_);
  p = transposed(p, E, E, wk_);
  p = transposed(p, E, E, wq_);
  p = copied(p, E, v_);
  if (shape_.wait_target) copied(p, E, kwait_);
  pool_.assign(static_cast<size_t>(E), 0.0f);
  tmp_.assign(static_cast<size_t>(E), 0.0f);
  u_.assign(static_cast<size_t>(E), 0.0f);
  uq_.assign(static_cast<size_t>(E), 0.0f);
  t_.assign(static_cast<size_t>(2 * E + dq), 0.0f);
}

void AttnPointerIncremental::reset() {
  std::fill(job_ok_.begin(), job_ok_.end(), 0);
  std::fill(server_ok_.begin(), server_ok_.end(), 0);
  last_jobs_ = -1;
}

void AttnPointerIncremental::reserve_jobs(int jobs) {
  if (jobs <= cap_jobs_) return;
  const int E = shape_.embed, H = shape_.heads;
  cap_jobs_ = (std::max(jobs, 2 * cap_jobs_) + 7) / 8 * 8;  // whole blocks of 8 lanes
  const auto n = static_cast<size_t>(cap_jobs_);
  // qt_ is laid out with the capacity as stride: every row is recomputed by the next call.
  std::fill(job_ok_.begin(), job_ok_.end(), 0);
  xj_.resize(n * shape_.job_features);
  e_.resize(n * E);
  qkv_.resize(n * 3 * E);
  qt_.assign(n * E, 0.0f);
  job_ok_.resize(n, 0);
  changed_.resize(n, 0);
  // Indexed with the capacity as stride: the entries are lost, and rebuilt by the next call.
  score_.assign(static_cast<size_t>(H) * n * n, 0.0f);
  ex_.assign(static_cast<size_t>(H) * n * n, 0.0f);
  mx_.assign(static_cast<size_t>(H) * n, 0.0f);
  last_jobs_ = -1;
  ctx_.resize(n * E);
  h_.resize(n * E);
  g_.resize(n * E);
  w_.resize(n * n);
  ctx_t_.resize(n * E);
  sum_.resize(n);
  mx_new_.resize(n);
  changed_list_.reserve(n);
  full_list_.reserve(n);
}

void AttnPointerIncremental::reserve_servers(int servers) {
  if (servers <= cap_servers_) return;
  const int E = shape_.embed;
  cap_servers_ = std::max(servers, 2 * cap_servers_);
  const auto n = static_cast<size_t>(cap_servers_);
  xs_.resize(n * shape_.server_features);
  s_.resize(n * E);
  key_.resize(n * E);
  server_ok_.resize(n, 0);
  server_hash_.resize(n, 0);
  size_t slots = 1;
  while (slots < 2 * n) slots *= 2;
  twin_table_.assign(slots, -1);
  out_.reserve(n + 1);  // + the wait target
}

// Scores, softmax and context of every query row (AttnForward::run's self-attention), reusing the
// cached scores and exponentials whose inputs did not change. `all`: nothing cached is valid.
// Writes ctx_ (J x E, row-major).
void AttnPointerIncremental::attention(int J, bool all) {
  const int E = shape_.embed, H = shape_.heads, dh = E / H;
  const size_t cap = static_cast<size_t>(cap_jobs_);
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  const int lanes = (J + 7) / 8 * 8;
  auto score = [&](int h, int a, int b) {
    const float* qa = &qkv_[static_cast<size_t>(a) * 3 * E + h * dh];
    const float* kb = &qkv_[static_cast<size_t>(b) * 3 * E + E + h * dh];
    float dot = 0;
    for (int t = 0; t < dh; ++t) dot += qa[t] * kb[t];
    return dot * scale;
  };
  for (int h = 0; h < H; ++h) {
    float* sc = &score_[static_cast<size_t>(h) * cap * cap];  // [b][a]
    float* ex = &ex_[static_cast<size_t>(h) * cap * cap];
    float* mx = &mx_[static_cast<size_t>(h) * cap];
    // Scores: a changed key's column for every query, a changed query's row for every key.
    for (int b = 0; b < J; ++b) {
      float* sb = sc + static_cast<size_t>(b) * cap;
      if (all || changed_[b] != 0) {
        key_scores(&qt_[static_cast<size_t>(h) * dh * cap], cap, lanes,
                   &qkv_[static_cast<size_t>(b) * 3 * E + E + h * dh], dh, scale, sb);
        stats_.scores += J;
      } else {
        for (int a : changed_list_) sb[a] = score(h, a, b);
        stats_.scores += static_cast<long>(changed_list_.size());
      }
    }
    // Row maxima; a row whose maximum moved (or whose query changed) recomputes every exponential.
    // The vectorised steps run over whole blocks of 8 query rows: the lanes past J hold leftovers
    // (zeros, or entries of an earlier, larger J); what they compute is never read.
    row_max(sc, lanes, J, cap, mx_new_.data());
    full_list_.clear();
    for (int a = 0; a < J; ++a) {
      if (all || changed_[a] != 0 || !same_bits(&mx_new_[a], &mx[a], 1)) full_list_.push_back(a);
      mx[a] = mx_new_[a];
    }
    for (int b = 0; b < J; ++b) {
      const float* sb = sc + static_cast<size_t>(b) * cap;
      float* eb = ex + static_cast<size_t>(b) * cap;
      if (changed_[b] != 0 || full_list_.size() == static_cast<size_t>(J)) {
        for (int a = 0; a < J; ++a) eb[a] = std::exp(sb[a] - mx[a]);
        stats_.exps += J;
      } else {
        for (int a : full_list_) eb[a] = std::exp(sb[a] - mx[a]);
        stats_.exps += static_cast<long>(full_list_.size());
      }
    }
    row_context(ex, lanes, J, cap, &qkv_[2 * static_cast<size_t>(E) + h * dh], 3 * E, dh, sum_.data(), w_.data(),
                &ctx_t_[static_cast<size_t>(h) * dh * cap]);
  }
  for (int j = 0; j < J; ++j)
    for (int k = 0; k < E; ++k) ctx_[static_cast<size_t>(j) * E + k] = ctx_t_[static_cast<size_t>(k) * cap + j];
}

const std::vector<float>& AttnPointerIncremental::run(int J, int S, int q, const float* job_x, const float* server_x,
                                                      const float* query_x, const unsigned char* mask) {
  const int E = shape_.embed, dj = shape_.job_features, ds = shape_.server_features, dq = shape_.query_features;
  if (J < 1) throw Error("", 0, "jobs", "an attention network needs at least one job");
  if (q < 0 || q >= J) throw Error("", 0, "query", "query job out of range");
  ++stats_.calls;
  reserve_jobs(J);
  reserve_servers(S);
  const bool all = J != last_jobs_;
  last_jobs_ = J;
  // Job rows: embedding and q/k/v of the rows whose input changed.
  bool any = all;
  changed_list_.clear();
  for (int j = 0; j < J; ++j) {
    const float* x = job_x + static_cast<size_t>(j) * dj;
    float* cached = &xj_[static_cast<size_t>(j) * dj];
    const bool changed = job_ok_[j] == 0 || !same_bits(x, cached, dj);
    changed_[j] = changed ? 1 : 0;
    if (!changed) continue;
    any = true;
    changed_list_.push_back(j);
    ++stats_.job_rows;
    std::copy_n(x, dj, cached);
    float* ej = &e_[static_cast<size_t>(j) * E];
    linear_t(wj_.data(), bj_.data(), x, dj, E, ej);
    for (int k = 0; k < E; ++k) ej[k] = std::max(0.0f, ej[k]);
    const float* qkv = &qkv_[static_cast<size_t>(j) * 3 * E];
    linear_t(win_.data(), bin_.data(), ej, E, 3 * E, &qkv_[static_cast<size_t>(j) * 3 * E]);
    for (int k = 0; k < E; ++k) qt_[static_cast<size_t>(k) * cap_jobs_ + j] = qkv[k];
    job_ok_[j] = 1;
  }
  if (any) {
    attention(J, all);
    for (int j = 0; j < J; ++j) {
      float* hj = &h_[static_cast<size_t>(j) * E];
      linear_t(wout_.data(), bout_.data(), &ctx_[static_cast<size_t>(j) * E], E, E, hj);
      const float* ej = &e_[static_cast<size_t>(j) * E];
      for (int k = 0; k < E; ++k) hj[k] += ej[k];
      linear_t(w1_.data(), b1_.data(), hj, E, E, tmp_.data());
      float* gj = &g_[static_cast<size_t>(j) * E];
      for (int k = 0; k < E; ++k) gj[k] = hj[k] + std::max(0.0f, tmp_[k]);
    }
    std::fill(pool_.begin(), pool_.end(), 0.0f);
    for (int j = 0; j < J; ++j)
      for (int k = 0; k < E; ++k) pool_[k] += g_[static_cast<size_t>(j) * E + k] / static_cast<float>(J);
  }
  // Server rows: embedding and key of the rows whose input changed.
  for (int m = 0; m < S; ++m) {
    const float* x = server_x + static_cast<size_t>(m) * ds;
    float* cached = &xs_[static_cast<size_t>(m) * ds];
    if (server_ok_[m] != 0 && same_bits(x, cached, ds)) continue;
    ++stats_.server_rows;
    std::copy_n(x, ds, cached);
    server_hash_[m] = hash_bits(x, ds);
    float* sm = &s_[static_cast<size_t>(m) * E];
    linear_t(ws_.data(), bs_.data(), x, ds, E, sm);
    for (int k = 0; k < E; ++k) sm[k] = std::max(0.0f, sm[k]);
    linear_t(wk_.data(), nullptr, sm, E, E, &key_[static_cast<size_t>(m) * E]);
    server_ok_[m] = 1;
  }
  // The pointer.
  std::copy_n(&g_[static_cast<size_t>(q) * E], E, t_.begin());
  std::copy_n(pool_.begin(), E, t_.begin() + E);
  if (dq > 0) std::copy_n(query_x, dq, t_.begin() + 2 * E);
  linear_t(wu_.data(), bu_.data(), t_.data(), 2 * E + dq, E, u_.data());
  for (float& x : u_) x = std::max(0.0f, x);
  linear_t(wq_.data(), nullptr, u_.data(), E, E, uq_.data());
  const bool wait = shape_.wait_target;
  out_.assign(static_cast<size_t>(S + (wait ? 1 : 0)), 0.0f);
  // A server whose token equals an earlier one's (bit for bit) has its key, hence its logit: the
  // distinct tokens are kept in an open-addressing table by their hash (one probe, usually).
  std::fill(twin_table_.begin(), twin_table_.end(), -1);
  const size_t slots = twin_table_.size() - 1;
  for (int m = 0; m < S; ++m) {
    if (mask != nullptr && mask[m] == 0) continue;
    const float* xm = &xs_[static_cast<size_t>(m) * ds];
    size_t i = server_hash_[m] & slots;
    int twin = -1;
    for (; twin_table_[i] >= 0; i = (i + 1) & slots) {
      const int d = twin_table_[i];
      if (server_hash_[d] == server_hash_[m] && same_bits(&xs_[static_cast<size_t>(d) * ds], xm, ds)) {
        twin = d;
        break;
      }
    }
    if (twin >= 0) {
      out_[m] = out_[twin];
      continue;
    }
    twin_table_[i] = m;
    ++stats_.logits;
    out_[m] = additive_logit(v_.data(), &key_[static_cast<size_t>(m) * E], uq_.data(), E);
  }
  if (wait && (mask == nullptr || mask[S] != 0)) {
    ++stats_.logits;
    out_[static_cast<size_t>(S)] = additive_logit(v_.data(), kwait_.data(), uq_.data(), E);
  }
  return out_;
}

}  // namespace dmlkit::learn
