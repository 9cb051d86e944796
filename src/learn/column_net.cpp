// The column-shared network; see column_net.h.
#include "learn/column_net.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "core/error.h"

namespace dmlkit::learn {

void ColumnNetShape::validate() const {
  if (rows < 1) throw Error("network shape: field 'rows' must be positive");
  if (window < 1) throw Error("network shape: field 'window' must be positive");
  if (types < 0) throw Error("network shape: field 'types' must not be negative");
  if (static_cast<int>(row_scale.size()) != rows - 1)
    throw Error("network shape: field 'row_scale' must hold rows - 1 = " + std::to_string(rows - 1) + " values");
  for (float s : row_scale)
    if (!std::isfinite(s)) throw Error("network shape: field 'row_scale' must be finite");
  column.validate();
  context.validate();
  if (column.inputs != features()) throw Error("network shape: field 'column.inputs' must be types + rows - 1");
  if (context.inputs != features() + 1) throw Error("network shape: field 'context.inputs' must be types + rows");
  if (context.outputs < column.outputs)
    throw Error("network shape: field 'context.outputs' must be at least column.outputs");
}

ColumnNetShape column_net_shape(int rows, int window, int types, std::vector<float> row_scale,
                                std::vector<int> hidden, int k, std::vector<int> context_hidden, int extra) {
  ColumnNetShape s;
  s.rows = rows;
  s.window = window;
  s.types = types;
  s.row_scale = std::move(row_scale);
  s.column = MlpShape{s.features(), std::move(hidden), k, false};
  s.context = MlpShape{s.features() + 1, std::move(context_hidden), k + extra, false};
  s.validate();
  return s;
}

std::vector<float> column_net_initial_parameters(const ColumnNetShape& shape, Rng& rng) {
  shape.validate();
  std::vector<float> p = mlp_initial_parameters(shape.column, rng);
  const std::vector<float> q = mlp_initial_parameters(shape.context, rng);
  p.insert(p.end(), q.begin(), q.end());
  return p;
}

void column_features(const ColumnNetShape& s, const float* x, int col, float* out) {
  const int L = s.window;
  std::fill(out, out + s.types, 0.0f);
  const float id = x[col];
  if (id >= 1.0f && id <= static_cast<float>(s.types) && id == std::floor(id)) out[static_cast<int>(id) - 1] = 1.0f;
  for (int r = 1; r < s.rows; ++r) out[s.types + r - 1] = x[r * L + col] * s.row_scale[r - 1];
}

namespace {

// The summary of the column features feat (L x F): their sum in column order divided by the number
// of non-empty columns, then that count / L.
// DL2's 13 features are summed in registers (8 + 4 + 1), each feature over the columns in the same
// order as the plain loop (bit-identical).
// probabilities(): a running sum is taken again from the columns when it falls below this fraction
// of the largest value it had since.
constexpr double kCancellation = 1.0 / 4096;

using V8f = float __attribute__((vector_size(32)));
using V4f = float __attribute__((vector_size(16)));

void summarise(const ColumnNetShape& s, const float* x, const float* feat, float* summary) {
  const int F = s.features();
  std::fill(summary, summary + F + 1, 0.0f);
  int n = 0;
  for (int c = 0; c < s.window; ++c) n += x[c] > 0.0f;
  if (F == 13) {
    V8f a = {};
    V4f b = {};
    float d = 0.0f;
    for (int c = 0; c < s.window; ++c) {
      const float* fc = feat + c * F;
      V8f u;
      V4f v;
      std::memcpy(&u, fc, sizeof u);
      std::memcpy(&v, fc + 8, sizeof v);
      a += u;
      b += v;
      d += fc[12];
    }
    std::memcpy(summary, &a, sizeof a);
    std::memcpy(summary + 8, &b, sizeof b);
    summary[12] = d;
  } else {
    for (int c = 0; c < s.window; ++c)
      for (int f = 0; f < F; ++f) summary[f] += feat[c * F + f];
  }
  const float inv = n > 0 ? 1.0f / static_cast<float>(n) : 0.0f;
  for (int f = 0; f < F; ++f) summary[f] *= inv;
  summary[F] = static_cast<float>(n) / static_cast<float>(s.window);
}

void assemble(const ColumnNetShape& s, const float* scores, const std::vector<float>& context, float* out) {
  const int k = s.column.outputs;
  for (int c = 0; c < s.window; ++c)
    for (int a = 0; a < k; ++a) out[c * k + a] = scores[c * k + a] + context[a];
  for (int e = k; e < s.context.outputs; ++e) out[s.window * k + e - k] = context[e];
}

}  // namespace

std::vector<float> column_net_reference(const ColumnNetShape& s, const std::vector<float>& parameters,
                                        const float* x) {
  s.validate();
  if (parameters.size() != s.parameter_count())
    throw Error("network: " + std::to_string(parameters.size()) + " parameters for a shape that has " +
                std::to_string(s.parameter_count()));
  const auto split = parameters.begin() + static_cast<long>(s.column.parameter_count());
  MlpForward column(s.column, std::vector<float>(parameters.begin(), split));
  MlpForward context(s.context, std::vector<float>(split, parameters.end()));
  const int F = s.features(), k = s.column.outputs;
  std::vector<float> feat(static_cast<size_t>(s.window) * F), scores(static_cast<size_t>(s.window) * k);
  for (int c = 0; c < s.window; ++c) {
    column_features(s, x, c, feat.data() + c * F);
    const std::vector<float>& y = column.run(feat.data() + c * F);
    std::copy(y.begin(), y.end(), scores.begin() + c * k);
  }
  std::vector<float> summary(F + 1);
  summarise(s, x, feat.data(), summary.data());
  std::vector<float> out(s.outputs());
  assemble(s, scores.data(), context.run(summary.data()), out.data());
  return out;
}

ColumnNetForward::ColumnNetForward(const ColumnNetShape& shape, std::vector<float> parameters) : shape_(shape) {
  shape_.validate();
  if (parameters.size() != shape_.parameter_count())
    throw Error("network: " + std::to_string(parameters.size()) + " parameters for a shape that has " +
                std::to_string(shape_.parameter_count()));
  const auto split = parameters.begin() + static_cast<long>(shape_.column.parameter_count());
  column_ = MlpForward(shape_.column, std::vector<float>(parameters.begin(), split));
  context_ = MlpForward(shape_.context, std::vector<float>(split, parameters.end()));
  const int L = shape_.window, F = shape_.features(), k = shape_.column.outputs;
  last_x_.assign(static_cast<size_t>(L) * shape_.rows, 0.0f);
  feat_.assign(static_cast<size_t>(L) * F, 0.0f);
  scores_.assign(static_cast<size_t>(L) * k, 0.0f);
  stale_.assign(L, 1);  // every column computed on the first call
  summary_.assign(F + 1, 0.0f);
  out_.assign(shape_.outputs(), 0.0f);
  sums_.assign(F, 0.0);
  exp_scores_.assign(static_cast<size_t>(L) * k, 1.0);
  exp_context_.assign(shape_.context.outputs, 1.0);
  const int n = L * k, actions = shape_.context.outputs;
  masked_exp_.assign(static_cast<size_t>(n), 0.0);
  masked_exp_.insert(masked_exp_.end(), actions - k, 1.0);
  kind_.resize(masked_exp_.size());
  for (int i = 0; i < n; ++i) kind_[i] = i % k;
  for (int e = k; e < actions; ++e) kind_[n + e - k] = e;
  probs_.assign(shape_.outputs(), 0.0);
  action_sums_.assign(k, 0.0);
  action_sum_bounds_.assign(k, 0.0);
  block_sums_.assign(static_cast<size_t>(blocks()) * k, 0.0);
  column_wild_.assign(L, 0);
  present_.assign(L, 0);
}

void ColumnNetForward::set_cached_rows(int rows) {
  const int features = rows > 0 ? shape_.types + std::min(rows, shape_.rows) - 1 : 0;
  column_.set_cached_prefix(features);
  prefixes_.assign(shape_.window, column_.prefix_cache());
  context_.set_cached_prefix(features);  // the summary's means of those features come first
}

void ColumnNetForward::update_columns(const float* x, bool exponentials) {
  for (int c = 0; c < shape_.window; ++c)
    if (stale_[c]) compute_column(x, c, exponentials);  // equal inputs give the same features and scores
}

void ColumnNetForward::compute_column(const float* x, int c, bool exponentials) {
  const int F = shape_.features(), k = shape_.column.outputs;
  column_features(shape_, x, c, feat_.data() + c * F);
  const std::vector<float>& y =
      prefixes_.empty() ? column_.run(feat_.data() + c * F) : column_.run(feat_.data() + c * F, prefixes_[c]);
  std::copy(y.begin(), y.end(), scores_.begin() + c * k);
  stale_[c] = 0;
  ++columns_computed_;
  if (!exponentials) return;
  bool wild = false;
  for (int a = 0; a < k; ++a) {
    wild |= !(std::abs(y[a]) <= kWildScore);
    exp_scores_[c * k + a] = std::exp(static_cast<double>(y[a]));
  }
  wild_ += static_cast<int>(wild) - column_wild_[c];
  column_wild_[c] = wild;
}

const std::vector<float>& ColumnNetForward::run(const float* x) { return run_column(x, -1); }

const std::vector<float>& ColumnNetForward::run_column(const float* x, int col) {
  sums_valid_ = false;  // probabilities() starts over
  if (col < 0)
    mark_changed(x);
  else
    mark_column(x, col);
  update_columns(x, false);
  summarise(shape_, x, feat_.data(), summary_.data());
  assemble(shape_, scores_.data(), context_.run(summary_.data()), out_.data());
  return out_;
}

void ColumnNetForward::mark_column(const float* x, int col) {
  const int L = shape_.window;
  for (int r = 0; r < shape_.rows; ++r) last_x_[r * L + col] = x[r * L + col];
  stale_[col] = 1;
}

void ColumnNetForward::mark_changed(const float* x) {
  const int L = shape_.window, R = shape_.rows;
  // Which columns changed since the previous call (row by row: a loop the compiler vectorises).
  unsigned char* changed = stale_.data();
  for (int r = 0; r < R; ++r) {
    const float* a = last_x_.data() + r * L;
    const float* b = x + r * L;
    for (int c = 0; c < L; ++c) changed[c] |= static_cast<unsigned char>(a[c] != b[c]);
  }
  std::copy(x, x + R * L, last_x_.begin());
}

bool ColumnNetForward::probabilities(const float* x, int col, const unsigned char* mask, double* probs) {
  if (!evaluate(x, col, mask)) return false;
  write_probabilities(probs);
  return true;
}

bool ColumnNetForward::evaluate(const float* x, int col, const unsigned char* mask) {
  const int L = shape_.window, F = shape_.features(), k = shape_.column.outputs;
  const int actions = shape_.context.outputs;  // k column actions, then the extra ones
  const bool full = col < 0 || !sums_valid_;
  if (full) {
    if (!sums_valid_) std::fill(stale_.begin(), stale_.end(), 1);  // every exponential computed once
    mark_changed(x);
    update_columns(x, true);
    std::fill(sums_.begin(), sums_.end(), 0.0);
    nonempty_ = 0;
    for (int c = 0; c < L; ++c) {
      for (int f = 0; f < F; ++f) sums_[f] += feat_[c * F + f];
      present_[c] = x[c] > 0.0f;
      nonempty_ += present_[c];
    }
    sums_valid_ = true;
  } else {
    mark_column(x, col);
    const float* fc = feat_.data() + col * F;  // the column's old features, then its new ones
    for (int f = 0; f < F; ++f) sums_[f] -= fc[f];
    nonempty_ -= present_[col];
    compute_column(x, col, true);
    for (int f = 0; f < F; ++f) sums_[f] += fc[f];
    present_[col] = x[col] > 0.0f;
    nonempty_ += present_[col];
  }
  const double per_column = nonempty_ > 0 ? 1.0 / nonempty_ : 0.0;
  for (int f = 0; f < F; ++f) summary_[f] = static_cast<float>(sums_[f] * per_column);
  summary_[F] = static_cast<float>(nonempty_) / static_cast<float>(L);
  const std::vector<float>& context = context_.run(summary_.data());
  bool wild = wild_ > 0;
  for (int e = 0; e < actions; ++e) {
    wild |= !(std::abs(context[e]) <= kWildScore);
    exp_context_[e] = std::exp(static_cast<double>(context[e]));
  }
  // The allowed column actions' e^score (0 if masked), and per column action a their running sum
  // over the columns (action_sums_[a]) with the largest value it had since it was last summed from
  // the columns (action_sum_bounds_[a]): only column col's can have changed. When an update leaves
  // less than 2^-12 of that bound (a large term left the sum), the sum is taken again from the
  // columns, so the rounding of the updates stays below about 1e-9 of the sum. For draw(): their
  // sums per block of columns (sum_block), only col's block summed again.
  double* running = action_sums_.data();
  double* bound = action_sum_bounds_.data();
  auto sum_columns = [&](int a) {
    double s = 0.0;
    for (int c = 0; c < L; ++c) s += masked_exp_[c * k + a];
    running[a] = bound[a] = s;
  };
  if (full) {
    for (int i = 0; i < L * k; ++i) masked_exp_[i] = mask[i] ? exp_scores_[i] : 0.0;
    for (int a = 0; a < k; ++a) sum_columns(a);
    for (int b = 0; b < blocks(); ++b) sum_block(b);
  } else {
    for (int a = 0; a < k; ++a) {
      const int i = col * k + a;
      const double now = mask[i] ? exp_scores_[i] : 0.0;
      running[a] += now - masked_exp_[i];
      masked_exp_[i] = now;
      bound[a] = std::max({bound[a], running[a], now});
      if (!(running[a] >= bound[a] * kCancellation)) sum_columns(a);  // NaN too (an infinite term left)
    }
    sum_block(col / kBlockColumns);
  }
  wild_probs_ = wild;
  if (wild) {  // the shifted softmax of the assembled outputs
    assemble(shape_, scores_.data(), context, out_.data());
    return masked_softmax(out_.data(), mask, shape_.outputs(), probs_.data());
  }
  // sum = sum_a e^context[a] sum_c e^score[c][a] (allowed) + the allowed extra actions' e^context.
  const int n = L * k;
  double sum = 0.0;
  for (int a = 0; a < k; ++a) sum += running[a] * exp_context_[a];
  for (int e = k; e < actions; ++e) sum += mask[n + e - k] ? exp_context_[e] : 0.0;
  if (!(sum > 0.0)) return false;
  // Probability of action i: masked_exp_[i] x exp_context_[kind_[i]] (e^context[a] / sum, 0 for a
  // masked extra action; masked_exp_ is 1 there).
  const double inv = 1.0 / sum;
  for (int a = 0; a < k; ++a) exp_context_[a] *= inv;
  for (int e = k; e < actions; ++e) exp_context_[e] = mask[n + e - k] ? exp_context_[e] * inv : 0.0;
  return true;
}

void ColumnNetForward::write_probabilities(double* probs) const {
  const int n = shape_.outputs();
  if (wild_probs_) {
    std::copy(probs_.begin(), probs_.end(), probs);
    return;
  }
  for (int i = 0; i < n; ++i) probs[i] = masked_exp_[i] * exp_context_[kind_[i]];
}

void ColumnNetForward::sum_block(int b) {
  const int k = shape_.column.outputs, first = b * kBlockColumns;
  const int end = std::min(shape_.window, first + kBlockColumns);
  static_assert(kBlockColumns == 8);
  for (int a = 0; a < k; ++a) {
    const double* m = masked_exp_.data() + first * k + a;  // column first + j at m[j k]
    double s = 0.0;
    if (end - first == kBlockColumns) {  // pairwise: three additions deep, not eight
      s = ((m[0] + m[k]) + (m[2 * k] + m[3 * k])) + ((m[4 * k] + m[5 * k]) + (m[6 * k] + m[7 * k]));
    } else {
      for (int j = 0; j < end - first; ++j) s += m[j * k];
    }
    block_sums_[b * k + a] = s;
  }
}

int ColumnNetForward::draw(double u) const {
  const int n = shape_.outputs();
  if (wild_probs_) return inverse_cdf(n, u, [&](int i) { return probs_[i]; });
  const double* m = masked_exp_.data();
  const double* e = exp_context_.data();
  const int* kind = kind_.data();
  auto prob = [&](int i) { return m[i] * e[kind[i]]; };
  // Block by block: a block's probability from its sums (sum_a e^context[a] / sum x its allowed
  // e^score summed over its columns); the first block whose cumulative sum exceeds u is scanned
  // action by action from the blocks' sum before it (if rounding leaves that scan at or below u,
  // the next block goes on from the scan's sum). Then the extra actions.
  const int L = shape_.window, k = shape_.column.outputs;
  double acc = 0.0;
  for (int b = 0; b < blocks(); ++b) {
    double p = 0.0;
    for (int a = 0; a < k; ++a) p += block_sums_[b * k + a] * e[a];
    if (!(acc + p > u)) {
      acc += p;
      continue;
    }
    const int end = std::min(L, (b + 1) * kBlockColumns) * k;
    for (int i = b * kBlockColumns * k; i < end; ++i) {
      acc += prob(i);
      if (acc > u) return i;
    }
  }
  for (int i = L * k; i < n; ++i) {
    acc += prob(i);
    if (acc > u) return i;
  }
  return last_positive(n, prob);
}

}  // namespace dmlkit::learn
