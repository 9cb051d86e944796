// The attention network's shape, encoding and plain C++ forward pass; see attn_net.h.
#include "learn/attn_net.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "learn/fdlibm_tanh.h"

namespace dmlkit::learn {

float additive_logit(const float* v, const float* key, const float* uq, int E) {
  constexpr int kBlock = 64;
  float t[kBlock];
  float acc = 0;
  for (int k0 = 0; k0 < E; k0 += kBlock) {
    const int n = std::min(kBlock, E - k0);
    for (int i = 0; i < n; ++i) t[i] = key[k0 + i] + uq[k0 + i];
    fdlibm_tanh(t, t, n);
    for (int i = 0; i < n; ++i) acc += v[k0 + i] * t[i];
  }
  return acc;
}

void AttnShape::validate() const {
  auto need = [](bool ok, const char* field, const std::string& what) {
    if (!ok) throw Error("", 0, field, what);
  };
  need(job_features >= 1, "job_features", "must be at least 1");
  need(server_features >= 0, "server_features", "must be >= 0");
  need(query_features >= 0, "query_features", "must be >= 0");
  need(embed >= 1 && embed <= 4096, "embed", "must be in [1, 4096]");
  need(heads >= 1 && embed % heads == 0, "heads", "must be >= 1 and divide embed");
  need(max_jobs >= 1 && max_servers >= 1, "max_jobs", "max_jobs and max_servers must be at least 1");
  need(head == AttnHead::per_job || server_features >= 1, "server_features",
       "the pointer and value heads need server features");
  need(!wait_target || head == AttnHead::pointer, "wait_target", "only the pointer head has a wait target");
}

std::vector<std::vector<int>> AttnShape::parameter_sizes() const {
  const int E = embed;
  std::vector<std::vector<int>> s = {{E, job_features}, {E}, {3 * E, E}, {3 * E}, {E, E}, {E}, {E, E}, {E}};
  if (server_features > 0) {
    s.push_back({E, server_features});
    s.push_back({E});
  }
  if (head == AttnHead::pointer) {
    for (auto v : std::vector<std::vector<int>>{{E, 2 * E + query_features}, {E}, {E, E}, {E, E}, {E}}) s.push_back(v);
    if (wait_target) s.push_back({E});
  } else {
    for (auto v : std::vector<std::vector<int>>{{E, 2 * E}, {E}, {E}, {1}}) s.push_back(v);
  }
  return s;
}

size_t AttnShape::parameter_count() const {
  size_t n = 0;
  for (const auto& s : parameter_sizes()) {
    size_t k = 1;
    for (int d : s) k *= static_cast<size_t>(d);
    n += k;
  }
  return n;
}

std::string attn_head_name(AttnHead h) {
  return h == AttnHead::pointer ? "pointer" : h == AttnHead::value ? "value" : "per_job";
}

AttnHead parse_attn_head(const std::string& name, const std::string& field) {
  if (name == "pointer") return AttnHead::pointer;
  if (name == "value") return AttnHead::value;
  if (name == "per_job") return AttnHead::per_job;
  throw Error("", 0, field, "unknown head '" + name + "' (known: pointer, value, per_job)");
}

std::vector<float> attn_initial_parameters(const AttnShape& shape, Rng& rng) {
  shape.validate();
  std::vector<float> p;
  p.reserve(shape.parameter_count());
  const auto sizes = shape.parameter_sizes();
  for (size_t k = 0; k < sizes.size(); ++k) {
    const auto& s = sizes[k];
    if (s.size() == 2) {
      const double bound = 1.0 / std::sqrt(static_cast<double>(s[1]));
      for (int i = 0; i < s[0] * s[1]; ++i) p.push_back(static_cast<float>(rng.uniform(-bound, bound)));
    } else {
      // Vectors: biases 0; the pointer's v and the heads' output weights w drawn like a [1][E] matrix,
      // the wait key like a row of Wk's output (the same bound).
      const size_t v_at = sizes.size() - (shape.wait_target ? 2 : 1);
      const bool weight_vector = (shape.head == AttnHead::pointer && k >= v_at) ||
                                 (shape.head != AttnHead::pointer && k + 2 == sizes.size());
      const double bound = 1.0 / std::sqrt(static_cast<double>(s[0]));
      for (int i = 0; i < s[0]; ++i) p.push_back(weight_vector ? static_cast<float>(rng.uniform(-bound, bound)) : 0.0f);
    }
  }
  return p;
}

void attn_encode(const AttnShape& shape, int jobs, int servers, int query, const float* job_x, const float* server_x,
                 const float* query_x, float* row) {
  if (jobs < 1 || jobs > shape.max_jobs)
    throw Error("", 0, "max_jobs", std::to_string(jobs) + " jobs do not fit a row of " + std::to_string(shape.max_jobs));
  if (servers < 0 || servers > shape.max_servers)
    throw Error("", 0, "max_servers",
                std::to_string(servers) + " servers do not fit a row of " + std::to_string(shape.max_servers));
  if (query < 0 || query >= jobs) throw Error("", 0, "query", "query job out of range");
  std::fill(row, row + shape.inputs(), 0.0f);
  row[0] = static_cast<float>(jobs);
  row[1] = static_cast<float>(servers);
  row[2] = static_cast<float>(query);
  std::copy_n(job_x, static_cast<size_t>(jobs) * shape.job_features, row + shape.jobs_at());
  if (shape.server_features > 0 && servers > 0)
    std::copy_n(server_x, static_cast<size_t>(servers) * shape.server_features, row + shape.servers_at());
  if (shape.query_features > 0) std::copy_n(query_x, shape.query_features, row + shape.query_at());
}

AttnForward::AttnForward(const AttnShape& shape, std::vector<float> parameters)
    : shape_(shape), params_(std::move(parameters)) {
  shape_.validate();
  if (params_.size() != shape_.parameter_count())
    throw Error("", 0, "parameters",
                std::to_string(params_.size()) + " values for a network of " + std::to_string(shape_.parameter_count()));
}

void AttnForward::linear(const float* w, const float* b, const float* x, int in, int out, float* y) const {
  for (int o = 0; o < out; ++o) {
    float acc = b != nullptr ? b[o] : 0.0f;
    const float* wr = w + static_cast<size_t>(o) * in;
    for (int i = 0; i < in; ++i) acc += wr[i] * x[i];
    y[o] = acc;
  }
}

const std::vector<float>& AttnForward::run(int J, int S, int q, const float* job_x, const float* server_x,
                                           const float* query_x) {
  const int E = shape_.embed, H = shape_.heads, dh = E / H, dj = shape_.job_features, ds = shape_.server_features;
  if (J < 1) throw Error("", 0, "jobs", "an attention network needs at least one job");
  const float* p = params_.data();
  auto take = [&p](size_t n) {
    const float* at = p;
    p += n;
    return at;
  };
  const float* Wj = take(static_cast<size_t>(E) * dj);
  const float* bj = take(E);
  const float* Win = take(static_cast<size_t>(3) * E * E);
  const float* bin = take(3 * E);
  const float* Wout = take(static_cast<size_t>(E) * E);
  const float* bout = take(E);
  const float* W1 = take(static_cast<size_t>(E) * E);
  const float* b1 = take(E);
  // Job embeddings.
  e_.assign(static_cast<size_t>(J) * E, 0.0f);
  for (int j = 0; j < J; ++j) {
    linear(Wj, bj, job_x + static_cast<size_t>(j) * dj, dj, E, &e_[static_cast<size_t>(j) * E]);
    for (int k = 0; k < E; ++k) e_[static_cast<size_t>(j) * E + k] = std::max(0.0f, e_[static_cast<size_t>(j) * E + k]);
  }
  // Self-attention: q, k, v projections.
  qkv_.assign(static_cast<size_t>(J) * 3 * E, 0.0f);
  for (int j = 0; j < J; ++j) linear(Win, bin, &e_[static_cast<size_t>(j) * E], E, 3 * E, &qkv_[static_cast<size_t>(j) * 3 * E]);
  ctx_.assign(static_cast<size_t>(J) * E, 0.0f);
  att_.resize(static_cast<size_t>(J));
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  for (int h = 0; h < H; ++h)
    for (int a = 0; a < J; ++a) {
      const float* qa = &qkv_[static_cast<size_t>(a) * 3 * E + h * dh];
      float mx = -std::numeric_limits<float>::infinity();
      for (int b = 0; b < J; ++b) {
        const float* kb = &qkv_[static_cast<size_t>(b) * 3 * E + E + h * dh];
        float dot = 0;
        for (int t = 0; t < dh; ++t) dot += qa[t] * kb[t];
        att_[b] = dot * scale;
        mx = std::max(mx, att_[b]);
      }
      float sum = 0;
      for (int b = 0; b < J; ++b) sum += (att_[b] = std::exp(att_[b] - mx));
      float* ca = &ctx_[static_cast<size_t>(a) * E + h * dh];
      for (int b = 0; b < J; ++b) {
        const float w = att_[b] / sum;
        const float* vb = &qkv_[static_cast<size_t>(b) * 3 * E + 2 * E + h * dh];
        for (int t = 0; t < dh; ++t) ca[t] += w * vb[t];
      }
    }
  h_.assign(static_cast<size_t>(J) * E, 0.0f);
  g_.assign(static_cast<size_t>(J) * E, 0.0f);
  tmp_.resize(static_cast<size_t>(E));
  for (int j = 0; j < J; ++j) {
    float* hj = &h_[static_cast<size_t>(j) * E];
    linear(Wout, bout, &ctx_[static_cast<size_t>(j) * E], E, E, hj);
    for (int k = 0; k < E; ++k) hj[k] += e_[static_cast<size_t>(j) * E + k];
    linear(W1, b1, hj, E, E, tmp_.data());
    float* gj = &g_[static_cast<size_t>(j) * E];
    for (int k = 0; k < E; ++k) gj[k] = hj[k] + std::max(0.0f, tmp_[k]);
  }
  // Server embeddings.
  if (ds > 0) {
    const float* Ws = take(static_cast<size_t>(E) * ds);
    const float* bs = take(E);
    s_.assign(static_cast<size_t>(S) * E, 0.0f);
    for (int m = 0; m < S; ++m) {
      float* sm = &s_[static_cast<size_t>(m) * E];
      linear(Ws, bs, server_x + static_cast<size_t>(m) * ds, ds, E, sm);
      for (int k = 0; k < E; ++k) sm[k] = std::max(0.0f, sm[k]);
    }
  }
  // Pools.
  pool_.assign(static_cast<size_t>(2) * E, 0.0f);
  for (int j = 0; j < J; ++j)
    for (int k = 0; k < E; ++k) pool_[k] += g_[static_cast<size_t>(j) * E + k] / static_cast<float>(J);
  if (shape_.head == AttnHead::pointer) {
    const int dq = shape_.query_features;
    const float* Wu = take(static_cast<size_t>(E) * (2 * E + dq));
    const float* bu = take(E);
    const float* Wk = take(static_cast<size_t>(E) * E);
    const float* Wq = take(static_cast<size_t>(E) * E);
    const float* v = take(E);
    tmp_.assign(static_cast<size_t>(2 * E + dq), 0.0f);
    std::copy_n(&g_[static_cast<size_t>(q) * E], E, tmp_.begin());
    std::copy_n(pool_.begin(), E, tmp_.begin() + E);
    if (dq > 0) std::copy_n(query_x, dq, tmp_.begin() + 2 * E);
    u_.resize(static_cast<size_t>(E));
    linear(Wu, bu, tmp_.data(), 2 * E + dq, E, u_.data());
    for (float& x : u_) x = std::max(0.0f, x);
    uq_.resize(static_cast<size_t>(E));
    linear(Wq, nullptr, u_.data(), E, E, uq_.data());
    out_.assign(static_cast<size_t>(S + (shape_.wait_target ? 1 : 0)), 0.0f);
    std::vector<float>& key = att_;
    key.resize(static_cast<size_t>(E));
    for (int m = 0; m < S; ++m) {
      linear(Wk, nullptr, &s_[static_cast<size_t>(m) * E], E, E, key.data());
      out_[m] = additive_logit(v, key.data(), uq_.data(), E);
    }
    if (shape_.wait_target) out_[static_cast<size_t>(S)] = additive_logit(v, take(E), uq_.data(), E);
    return out_;
  }
  const float* Wv = take(static_cast<size_t>(E) * 2 * E);
  const float* bv = take(E);
  const float* w = take(E);
  const float* c = take(1);
  u_.resize(static_cast<size_t>(E));
  if (shape_.head == AttnHead::value) {
    for (int m = 0; m < S; ++m)
      for (int k = 0; k < E; ++k) pool_[E + k] += s_[static_cast<size_t>(m) * E + k] / static_cast<float>(std::max(1, S));
    linear(Wv, bv, pool_.data(), 2 * E, E, u_.data());
    float acc = c[0];
    for (int k = 0; k < E; ++k) acc += w[k] * std::max(0.0f, u_[k]);
    out_.assign(1, acc);
    return out_;
  }
  out_.assign(static_cast<size_t>(J), 0.0f);
  tmp_.assign(static_cast<size_t>(2) * E, 0.0f);
  std::copy_n(pool_.begin(), E, tmp_.begin() + E);
  for (int j = 0; j < J; ++j) {
    std::copy_n(&g_[static_cast<size_t>(j) * E], E, tmp_.begin());
    linear(Wv, bv, tmp_.data(), 2 * E, E, u_.data());
    float acc = c[0];
    for (int k = 0; k < E; ++k) acc += w[k] * std::max(0.0f, u_[k]);
    out_[j] = acc;
  }
  return out_;
}

const std::vector<float>& AttnForward::run_row(const float* row) {
  const int J = static_cast<int>(row[0]), S = static_cast<int>(row[1]), q = static_cast<int>(row[2]);
  const std::vector<float>& o =
      run(J, S, q, row + shape_.jobs_at(), row + shape_.servers_at(), row + shape_.query_at());
  padded_.assign(static_cast<size_t>(shape_.outputs()), 0.0f);
  const bool wait = shape_.wait_target;  // validate(): only with the pointer head
  const size_t n = o.size() - (wait ? 1 : 0);
  std::copy_n(o.begin(), std::min<size_t>(n, padded_.size()), padded_.begin());
  if (wait) padded_[static_cast<size_t>(shape_.wait_column())] = o.back();
  return padded_;
}

}  // namespace dmlkit::learn
