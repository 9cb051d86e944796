// libtorch engine of the MLP trainer (learn/torch_plugin.h MlpTrainerEngine; shapes and the
// run-time forward pass in learn/mlp.h): the forward pass with ATen operators on the parameter
// tensors, gradients by autograd, Adam written here (TensorFlow's AdamOptimizer update, so DL2's
// settings mean what they meant there). Runs torch on one intra-op thread of the calling thread.
// The same trainer trains learn/column_net.h's column-shared networks (column_forward below: the
// column MLP on every column at once, the context MLP on the columns' mean).
#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include <cmath>
#include <string>

#include "core/error.h"
#include "learn/torch/torch_impl.h"

namespace dmlkit::learn::torch_impl {
namespace {

constexpr double kBeta1 = 0.9, kBeta2 = 0.999, kAdamEps = 1e-8;
constexpr double kEntropyEps = 1e-6;  // DL2's ENTROPY_EPS

class TorchMlpTrainer final : public MlpTrainerEngine {
 public:
  TorchMlpTrainer(const MlpShape& shape, const std::vector<float>& values, double lr)
      : shape_(shape), lr_(lr), outputs_(shape.outputs), parameter_count_(shape.parameter_count()) {
    init(shape_.parameter_sizes(), values);
  }

  TorchMlpTrainer(const ColumnNetShape& shape, const std::vector<float>& values, double lr)
      : column_(true), cshape_(shape), lr_(lr), outputs_(shape.outputs()), parameter_count_(shape.parameter_count()) {
    auto sizes = shape.column.parameter_sizes();
    for (const auto& s : shape.context.parameter_sizes()) sizes.push_back(s);
    init(sizes, values);
  }

  void init(const std::vector<std::vector<int>>& sizes, const std::vector<float>& values) {
    use_one_torch_thread();
    for (const auto& s : sizes) {
      std::vector<int64_t> dims(s.begin(), s.end());
      params_.push_back(at::zeros(dims, at::kFloat).set_requires_grad(true));
      m_.push_back(at::zeros(dims, at::kFloat));
      v_.push_back(at::zeros(dims, at::kFloat));
    }
    set_parameters(values);
  }

  std::vector<float> parameters() const override { return flatten_tensors(params_); }

  void set_parameters(const std::vector<float>& values) override { copy_in(values, params_, 0, "parameters"); }

  std::vector<float> optimizer_state() const override {
    std::vector<float> out = flatten_tensors(m_);
    const std::vector<float> v = flatten_tensors(v_);
    out.insert(out.end(), v.begin(), v.end());
    out.push_back(static_cast<float>(steps_));
    return out;
  }

  void set_optimizer_state(const std::vector<float>& state) override {
    const size_t n = parameter_count_;
    if (state.size() != 2 * n + 1)
      throw Error("", 0, "optimizer",
                  "state of " + std::to_string(state.size()) + " values, expected " + std::to_string(2 * n + 1));
    copy_in(state, m_, 0, "optimizer");
    copy_in(state, v_, n, "optimizer");
    steps_ = static_cast<long>(state.back());
  }

  void set_learning_rate(double lr) override { lr_ = lr; }

  LossStats add_cross_entropy_gradient(const float* x, int rows, const int* labels) override {
    use_one_torch_thread();
    const at::Tensor out = forward(input(x, rows));
    std::vector<int64_t> y(labels, labels + rows);
    const at::Tensor target = at::from_blob(y.data(), {rows}, at::kLong).clone();
    const at::Tensor loss = at::nll_loss(at::log_softmax(out, 1), target);
    loss.backward();
    LossStats s;
    s.loss = loss.item<double>();
    s.correct = static_cast<int>(out.detach().argmax(1).eq(target).sum().item<int64_t>());
    return s;
  }

  LossStats add_policy_gradient(const float* x, int rows, const unsigned char* masks, const int* actions,
                                const float* advantages, double entropy_weight) override {
    use_one_torch_thread();
    const at::Tensor out = forward(input(x, rows));
    std::vector<uint8_t> mk(masks, masks + static_cast<size_t>(rows) * outputs_);
    const at::Tensor allowed = at::from_blob(mk.data(), {rows, outputs_}, at::kByte).clone().to(at::kBool);
    const at::Tensor logp = at::log_softmax(out.masked_fill(allowed.logical_not(), -INFINITY), 1);
    const at::Tensor pi = logp.exp();  // 0 where masked
    std::vector<int64_t> a(actions, actions + rows);
    const at::Tensor act = at::from_blob(a.data(), {rows, 1}, at::kLong).clone();
    const at::Tensor adv = at::from_blob(const_cast<float*>(advantages), {rows}, at::kFloat).clone();
    const at::Tensor chosen = logp.gather(1, act).squeeze(1);
    const at::Tensor entropy = (pi * at::log(pi + kEntropyEps)).mean();
    const at::Tensor loss = -(chosen * adv).mean() + entropy_weight * entropy;
    loss.backward();
    LossStats s;
    s.loss = loss.item<double>();
    s.entropy = entropy.item<double>();
    return s;
  }

  LossStats add_value_gradient(const float* x, int rows, const float* targets) override {
    use_one_torch_thread();
    if (outputs_ != 1) throw Error("", 0, "network", "a value network has one output");
    const at::Tensor out = forward(input(x, rows)).squeeze(1);
    const at::Tensor t = at::from_blob(const_cast<float*>(targets), {rows}, at::kFloat).clone();
    const at::Tensor loss = (out - t).pow(2).mean();
    loss.backward();
    LossStats s;
    s.loss = loss.item<double>();
    return s;
  }

  LossStats add_regression_gradient(const float* x, int rows, const float* targets, const float* weights) override {
    use_one_torch_thread();
    const at::Tensor out = forward(input(x, rows));
    const at::Tensor t = at::from_blob(const_cast<float*>(targets), {rows, shape_.outputs}, at::kFloat).clone();
    const at::Tensor w = at::from_blob(const_cast<float*>(weights), {rows, shape_.outputs}, at::kFloat).clone();
    const at::Tensor loss = ((out - t).pow(2) * w).sum() / w.sum().clamp_min(1e-12);
    loss.backward();
    LossStats s;
    s.loss = loss.item<double>();
    return s;
  }

  void step(int batches) override {
    use_one_torch_thread();
    at::NoGradGuard no_grad;
    ++steps_;
    const double lr_t =
        lr_ * std::sqrt(1.0 - std::pow(kBeta2, static_cast<double>(steps_))) / (1.0 - std::pow(kBeta1, steps_));
    for (size_t i = 0; i < params_.size(); ++i) {
      at::Tensor& p = params_[i];
      if (!p.grad().defined()) continue;
      const at::Tensor g = p.grad() / static_cast<double>(std::max(1, batches));
      m_[i].mul_(kBeta1).add_(g, 1.0 - kBeta1);
      v_[i].mul_(kBeta2).addcmul_(g, g, 1.0 - kBeta2);
      p.sub_(m_[i] / (v_[i].sqrt() + kAdamEps) * lr_t);
      p.mutable_grad().zero_();
    }
  }

 private:
  at::Tensor input(const float* x, int rows) const {
    if (rows <= 0) throw Error("", 0, "batch", "empty batch");
    const int inputs = column_ ? cshape_.inputs() : shape_.inputs;
    return at::from_blob(const_cast<float*>(x), {rows, inputs}, at::kFloat).clone();
  }

  at::Tensor forward(at::Tensor a) const {
    if (column_) return column_forward(a);
    size_t k = 0;
    return mlp_forward(shape_, a, k);
  }

  // The MLP of `shape` on the last dimension of a, from parameter tensor k on (k moves past it).
  at::Tensor mlp_forward(const MlpShape& shape, at::Tensor a, size_t& k) const {
    const double inv_sd = 1.0 / std::sqrt(1.0 + kAffineEps);
    for (size_t l = 0; l < shape.hidden.size(); ++l) {
      a = at::relu(at::linear(a, params_[k], params_[k + 1]));
      k += 2;
      if (shape.affine) {
        a = a * (params_[k] * inv_sd) + params_[k + 1];
        k += 2;
      }
    }
    a = at::linear(a, params_[k], params_[k + 1]);
    k += 2;
    return a;
  }

  // learn/column_net.h: x [B, rows * L] -> [B, L * k + e].
  at::Tensor column_forward(const at::Tensor& x) const {
    const ColumnNetShape& s = cshape_;
    const int64_t B = x.size(0), L = s.window, k = s.column.outputs;
    const at::Tensor cols = x.view({B, s.rows, L}).permute({0, 2, 1});  // [B, L, rows]
    const at::Tensor id = cols.select(2, 0);                            // [B, L]
    const at::Tensor ids = at::arange(1, s.types + 1, at::kFloat);
    const at::Tensor onehot = id.unsqueeze(2).eq(ids).to(at::kFloat);  // [B, L, types]
    const at::Tensor scale = at::from_blob(const_cast<float*>(s.row_scale.data()), {s.rows - 1}, at::kFloat).clone();
    const at::Tensor feat = at::cat({onehot, cols.slice(2, 1) * scale}, 2);  // [B, L, F]
    size_t p = 0;
    const at::Tensor scores = mlp_forward(s.column, feat, p);  // [B, L, k]
    const at::Tensor n = id.gt(0).to(at::kFloat).sum(1, /*keepdim=*/true);  // [B, 1]
    const at::Tensor inv = at::reciprocal(n.clamp_min(1));  // no column: the sum is 0 anyway
    const at::Tensor summary = at::cat({feat.sum(1) * inv, n / static_cast<double>(L)}, 1);  // [B, F + 1]
    const at::Tensor context = mlp_forward(s.context, summary, p);                        // [B, k + e]
    const at::Tensor per_column = (scores + context.slice(1, 0, k).unsqueeze(1)).reshape({B, L * k});
    return at::cat({per_column, context.slice(1, k)}, 1);
  }

  void copy_in(const std::vector<float>& values, std::vector<at::Tensor>& dst, size_t offset, const std::string& what) {
    if (values.size() < offset + parameter_count_)
      throw Error("", 0, what,
                  std::to_string(values.size()) + " values for " + std::to_string(parameter_count_) + " parameters");
    at::NoGradGuard no_grad;
    size_t at_ = offset;
    for (auto& t : dst) {
      const int64_t n = t.numel();
      t.copy_(at::from_blob(const_cast<float*>(values.data() + at_), t.sizes(), at::kFloat));
      at_ += static_cast<size_t>(n);
    }
  }

  MlpShape shape_;
  bool column_ = false;
  ColumnNetShape cshape_;
  double lr_;
  int outputs_;
  size_t parameter_count_;
  long steps_ = 0;
  std::vector<at::Tensor> params_, m_, v_;
};

}  // namespace

std::unique_ptr<MlpTrainerEngine> make_mlp_trainer(const MlpShape& shape, const std::vector<float>& values,
                                                   double learning_rate) {
  return std::make_unique<TorchMlpTrainer>(shape, values, learning_rate);
}

std::unique_ptr<MlpTrainerEngine> make_column_trainer(const ColumnNetShape& shape, const std::vector<float>& values,
                                                      double learning_rate) {
  return std::make_unique<TorchMlpTrainer>(shape, values, learning_rate);
}

}  // namespace dmlkit::learn::torch_impl
