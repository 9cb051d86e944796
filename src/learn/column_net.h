// A permutation-equivariant "column" network for states laid out as rows x columns (row-major,
// index row * L + col; DL2's 6 x L job window, learn/mlp.h's networks see the same vector): one
// small MLP, shared by all L columns, scores each column from that column's features only, and a
// second MLP reads a permutation-invariant summary of all columns (their mean) to add a bias per
// column action and give the extra actions (DL2's VOID). Permuting the columns permutes the
// column scores and leaves the extra outputs unchanged. Not in the DL2 paper or code: an [A]
// variant of ours (`cluster train dl2 --net shared`, docs/dl2.md), made because the flattened MLP
// must learn the same per-job function once per column (docs/reproduction-dl2.md).
//
// Column features (F = types + rows - 1 values): row 0 holds a category id (DL2: the job type,
// 1..types; 0 = empty column) and is one-hot encoded ([A]: an id outside 1..types gives zeros); rows
// 1..rows-1 are multiplied by `row_scale` (fixed, stored with the shape). The summary: the sum of
// the column features over all columns divided by the number of non-empty columns (row 0 > 0;
// empty columns have zero features), then that count / L: F + 1 values.
// Outputs (L * k + e, with k = column.outputs, e = context.outputs - k): column c's k scores at
// c * k .. c * k + k - 1, each plus the context's output of the same index; then the context's
// last e outputs.
// Parameters: the column MLP's (learn/mlp.h order), then the context MLP's.
#pragma once
#include <vector>

#include "learn/mlp.h"

namespace dmlkit::learn {

struct ColumnNetShape {
  int rows = 6;
  int window = 20;  // L
  int types = 8;
  std::vector<float> row_scale;  // rows - 1 factors for rows 1..rows-1
  MlpShape column;               // inputs features(); outputs k
  MlpShape context;              // inputs features() + 1; outputs k + e

  int features() const { return types + rows - 1; }
  int inputs() const { return rows * window; }
  int outputs() const { return window * column.outputs + context.outputs - column.outputs; }
  // Throws dmlkit::Error naming the field when inconsistent.
  void validate() const;
  size_t parameter_count() const { return column.parameter_count() + context.parameter_count(); }
  bool operator==(const ColumnNetShape&) const = default;
};

// A shape for `rows` x `window` states: column MLP features -> hidden -> k, context MLP
// features + 1 -> context_hidden -> k + extra.
ColumnNetShape column_net_shape(int rows, int window, int types, std::vector<float> row_scale,
                                std::vector<int> hidden, int k, std::vector<int> context_hidden, int extra);

std::vector<float> column_net_initial_parameters(const ColumnNetShape& shape, Rng& rng);

// One column's features (F values) from the state x.
void column_features(const ColumnNetShape& shape, const float* x, int col, float* out);

// The reference forward pass: every column computed from scratch.
std::vector<float> column_net_reference(const ColumnNetShape& shape, const std::vector<float>& parameters,
                                        const float* x);

// The run-time forward pass: keeps each column's inputs and scores from the previous call and
// recomputes only the columns whose inputs changed (in DL2's slot, one column per inference), so
// a call costs one column MLP, the summary and the context MLP. Bit-identical to
// column_net_reference (the same operations in the same order). Allocation-free after
// construction; not thread-safe.
class ColumnNetForward {
 public:
  ColumnNetForward() = default;
  ColumnNetForward(const ColumnNetShape& shape, std::vector<float> parameters);
  const ColumnNetShape& shape() const { return shape_; }
  // Rows [0, rows) of a column are expected to repeat between calls (DL2: a job's type, slots in the
  // system and remaining work stay the same within a slot): per column, the column MLP's first-layer
  // partial sum over the features they give is kept and reused while they are bitwise the same
  // (MlpForward::set_cached_prefix; the same outputs), and so is the context MLP's over the
  // summary's means of those features. 0 (the default) = off.
  void set_cached_rows(int rows);
  const std::vector<float>& run(const float* x);
  // The same outputs (bit for bit) when x differs from the previous call's input in column `col`
  // only, without comparing the other columns (col < 0: unknown, as run(x)).
  const std::vector<float>& run_column(const float* x, int col);
  // The incremental fast path ([A], ours; DL2's `dl2.incremental=on`, docs/dl2.md): the masked
  // softmax of the outputs (mask[i] != 0 allowed; probs: outputs() values) when x differs from the
  // previous call's input in column `col` only, and the mask in that column's k actions only
  // (col < 0: unknown). Instead of the reference arithmetic, the columns' feature sums are kept in
  // double and updated by the changed column's old and new features, and each column's
  // exponentials e^score are kept and recomputed with its scores (and per column action the sum of
  // the allowed ones over the columns, updated by the changed column: column_net.cpp), so a call
  // costs one column MLP,
  // the context MLP, k + e exponentials and one product per action: probs = e^score[c][a]
  // (e^context[a] / sum) (the shifted softmax when a score or context output exceeds 300 in
  // magnitude). The probabilities agree with the reference's masked softmax within 1e-6 relative,
  // not bit for bit (tests/learn/column_net_test.cpp). Returns false if no action is allowed.
  bool probabilities(const float* x, int col, const unsigned char* mask, double* probs);
  // probabilities() in two steps, for a caller that only samples: evaluate() does all of its work
  // but writing the probabilities (false if no action is allowed); then draw(u) is the action
  // inverse_cdf (learn/mlp.h) picks from them for the uniform number u, and write_probabilities
  // writes them (as probabilities() does). draw() does not scan every action: it adds the
  // probabilities of whole blocks of 8 columns (from per-block sums of the allowed e^score, kept by
  // evaluate() for the changed column's block), then scans the block where the sum passes u, each
  // probability formed as it is reached (the same products): the same action as inverse_cdf's
  // sequential sum unless u lies within the two sums' rounding (below 1e-13) of a boundary, where
  // it is one of the two actions that meet there (tests/learn/column_net_test.cpp).
  bool evaluate(const float* x, int col, const unsigned char* mask);
  int draw(double u) const;
  void write_probabilities(double* probs) const;
  long columns_computed() const { return columns_computed_; }  // for tests and benchmarks

 private:
  // Recomputes the stale columns' features and scores (and their exponentials with `exponentials`).
  void update_columns(const float* x, bool exponentials);
  void compute_column(const float* x, int c, bool exponentials);
  // Marks the columns whose inputs differ from the previous call's and keeps x.
  void mark_changed(const float* x);
  // Column `col` alone changed: copy it into last_x_ and mark it stale.
  void mark_column(const float* x, int col);
  static constexpr float kWildScore = 300.0f;  // beyond it, probabilities() uses the shifted softmax

  ColumnNetShape shape_;
  MlpForward column_, context_;
  std::vector<MlpForward::Prefix> prefixes_;  // per column (set_cached_rows)
  std::vector<float> last_x_;     // inputs of the previous call (rows x L, as x)
  std::vector<float> feat_;       // L x F
  std::vector<float> scores_;     // L x k, without the context's bias
  std::vector<unsigned char> stale_;  // per column: 1 = to recompute
  std::vector<float> summary_, out_;
  long columns_computed_ = 0;
  // probabilities(): the feature sums (F) and non-empty columns, e^score (L x k), e^context.
  bool sums_valid_ = false;
  // masked_exp_: the allowed e^score (L x k, 0 if masked), then e (extra actions) ones; after
  // evaluate(), action i's probability is masked_exp_[i] x exp_context_[kind_[i]] (kind_: a for
  // column action c k + a, k + j for extra action j; the masked extra actions' exp_context_ are 0).
  std::vector<double> sums_, exp_scores_, exp_context_, masked_exp_;
  std::vector<int> kind_;
  bool wild_probs_ = false;  // evaluate() wrote the shifted softmax into probs_
  std::vector<double> probs_;
  // Per block of kBlockColumns columns (the last one may be shorter) and column action: the allowed
  // e^score (masked_exp_) summed over the block's columns (pairwise in a block of 8; sum_block;
  // after evaluate(), those of every block).
  static constexpr int kBlockColumns = 8;
  int blocks() const { return (shape_.window + kBlockColumns - 1) / kBlockColumns; }
  void sum_block(int b);
  std::vector<double> block_sums_;
  // Per column action: the allowed e^score summed over the columns (kept up to date), and the
  // largest value that sum had since it was last taken from the columns (probabilities()).
  std::vector<double> action_sums_, action_sum_bounds_;
  int nonempty_ = 0;
  int wild_ = 0;  // columns with a score beyond +-300
  std::vector<unsigned char> column_wild_, present_;
};

}  // namespace dmlkit::learn
