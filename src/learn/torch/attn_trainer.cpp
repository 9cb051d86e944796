// libtorch engine of the attention network (learn/attn_net.h): the forward pass of padded batches
// of flat rows with ATen operators (the multi-head self-attention written out as
// torch::nn::MultiheadAttention computes it, with a key-padding mask for the rows' unused job
// slots), gradients by autograd, Adam as learn/torch/mlp_trainer.cpp (TensorFlow's update). It
// implements MlpTrainerEngine, so the actor-critic, replay and regression blocks of learn/ train it
// unchanged. One difference, documented in attn_net.h's users: the entropy term of the policy loss
// is the mean over rows of sum over actions of pi log(pi + 1e-6), not the mean over actions, so it
// does not depend on the row's padding width (max_servers).
#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include <cmath>
#include <string>

#include "core/error.h"
#include "learn/attn_net.h"
#include "learn/torch/torch_impl.h"

namespace dmlkit::learn::torch_impl {
namespace {

constexpr double kBeta1 = 0.9, kBeta2 = 0.999, kAdamEps = 1e-8;
constexpr double kEntropyEps = 1e-6;

class TorchAttnTrainer final : public MlpTrainerEngine {
 public:
  TorchAttnTrainer(const AttnShape& shape, const std::vector<float>& values, double lr)
      : shape_(shape), lr_(lr), count_(shape.parameter_count()) {
    shape_.validate();
    use_one_torch_thread();
    for (const auto& s : shape_.parameter_sizes()) {
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
    if (state.size() != 2 * count_ + 1)
      throw Error("", 0, "optimizer",
                  "state of " + std::to_string(state.size()) + " values, expected " + std::to_string(2 * count_ + 1));
    copy_in(state, m_, 0, "optimizer");
    copy_in(state, v_, count_, "optimizer");
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
    const int A = shape_.outputs();
    const at::Tensor out = forward(input(x, rows));
    std::vector<uint8_t> mk(masks, masks + static_cast<size_t>(rows) * A);
    const at::Tensor allowed = at::from_blob(mk.data(), {rows, A}, at::kByte).clone().to(at::kBool);
    const at::Tensor logp = at::log_softmax(out.masked_fill(allowed.logical_not(), -INFINITY), 1);
    const at::Tensor pi = logp.exp();
    std::vector<int64_t> a(actions, actions + rows);
    const at::Tensor act = at::from_blob(a.data(), {rows, 1}, at::kLong).clone();
    const at::Tensor adv = at::from_blob(const_cast<float*>(advantages), {rows}, at::kFloat).clone();
    const at::Tensor chosen = logp.gather(1, act).squeeze(1);
    const at::Tensor entropy = (pi * at::log(pi + kEntropyEps)).sum(1).mean();
    const at::Tensor loss = -(chosen * adv).mean() + entropy_weight * entropy;
    loss.backward();
    LossStats s;
    s.loss = loss.item<double>();
    s.entropy = entropy.item<double>();
    return s;
  }

  LossStats add_value_gradient(const float* x, int rows, const float* targets) override {
    use_one_torch_thread();
    if (shape_.outputs() != 1) throw Error("", 0, "network", "a value network has one output");
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
    const int O = shape_.outputs();
    const at::Tensor out = forward(input(x, rows));
    const at::Tensor t = at::from_blob(const_cast<float*>(targets), {rows, O}, at::kFloat).clone();
    const at::Tensor w = at::from_blob(const_cast<float*>(weights), {rows, O}, at::kFloat).clone();
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
    return at::from_blob(const_cast<float*>(x), {rows, shape_.inputs()}, at::kFloat).clone();
  }

  // x [B, inputs] -> [B, outputs] (learn/attn_net.h).
  at::Tensor forward(const at::Tensor& x) const {
    const AttnShape& s = shape_;
    const int64_t B = x.size(0), E = s.embed, H = s.heads, dh = E / H, MJ = s.max_jobs, MS = s.max_servers;
    size_t k = 0;
    auto next = [&]() -> const at::Tensor& { return params_[k++]; };
    const at::Tensor J = x.select(1, 0), S = x.select(1, 1);
    const at::Tensor q = x.select(1, 2).to(at::kLong);
    const at::Tensor jvalid = at::arange(MJ, at::kFloat).unsqueeze(0).lt(J.unsqueeze(1));  // [B, MJ]
    const at::Tensor Xj = x.slice(1, s.jobs_at(), s.servers_at()).view({B, MJ, s.job_features});
    const at::Tensor& Wj = next();
    const at::Tensor& bj = next();
    const at::Tensor e = at::relu(at::linear(Xj, Wj, bj));  // [B, MJ, E]
    const at::Tensor& Win = next();
    const at::Tensor& bin = next();
    const at::Tensor qkv = at::linear(e, Win, bin);  // [B, MJ, 3E]
    auto heads = [&](int64_t part) { return qkv.slice(2, part * E, (part + 1) * E).view({B, MJ, H, dh}).transpose(1, 2); };
    const at::Tensor Q = heads(0), K = heads(1), V = heads(2);  // [B, H, MJ, dh]
    at::Tensor scores = at::matmul(Q, K.transpose(2, 3)) / std::sqrt(static_cast<double>(dh));
    scores = scores.masked_fill(jvalid.logical_not().view({B, 1, 1, MJ}), -INFINITY);
    const at::Tensor ctx = at::matmul(at::softmax(scores, 3), V).transpose(1, 2).reshape({B, MJ, E});
    const at::Tensor& Wout = next();
    const at::Tensor& bout = next();
    const at::Tensor h = e + at::linear(ctx, Wout, bout);
    const at::Tensor& W1 = next();
    const at::Tensor& b1 = next();
    const at::Tensor g = h + at::relu(at::linear(h, W1, b1));  // [B, MJ, E]
    const at::Tensor jm = jvalid.to(at::kFloat).unsqueeze(2);
    const at::Tensor pool_g = (g * jm).sum(1) / J.clamp_min(1).unsqueeze(1);  // [B, E]
    at::Tensor srv;
    at::Tensor svalid;
    if (s.server_features > 0) {
      const at::Tensor Xs = x.slice(1, s.servers_at(), s.query_at()).view({B, MS, s.server_features});
      const at::Tensor& Ws = next();
      const at::Tensor& bs = next();
      srv = at::relu(at::linear(Xs, Ws, bs));  // [B, MS, E]
      svalid = at::arange(MS, at::kFloat).unsqueeze(0).lt(S.unsqueeze(1));
    }
    if (s.head == AttnHead::pointer) {
      const at::Tensor gq = g.gather(1, q.view({B, 1, 1}).expand({B, 1, E})).squeeze(1);
      const at::Tensor xq = x.slice(1, s.query_at(), s.query_at() + s.query_features);
      const at::Tensor& Wu = next();
      const at::Tensor& bu = next();
      const at::Tensor u = at::relu(at::linear(at::cat({gq, pool_g, xq}, 1), Wu, bu));
      const at::Tensor& Wk = next();
      const at::Tensor& Wq = next();
      const at::Tensor& v = next();
      const at::Tensor key = at::linear(srv, Wk);     // [B, MS, E]
      const at::Tensor uq = at::linear(u, Wq);        // [B, E]
      return (at::tanh(key + uq.unsqueeze(1)) * v).sum(2);  // [B, MS]
    }
    const at::Tensor& Wv = next();
    const at::Tensor& bv = next();
    const at::Tensor& w = next();
    const at::Tensor& c = next();
    if (s.head == AttnHead::value) {
      const at::Tensor pool_s = (srv * svalid.to(at::kFloat).unsqueeze(2)).sum(1) / S.clamp_min(1).unsqueeze(1);
      const at::Tensor u = at::relu(at::linear(at::cat({pool_g, pool_s}, 1), Wv, bv));
      return (u * w).sum(1, /*keepdim=*/true) + c;  // [B, 1]
    }
    const at::Tensor both = at::cat({g, pool_g.unsqueeze(1).expand({B, MJ, E})}, 2);
    const at::Tensor u = at::relu(at::linear(both, Wv, bv));
    return (u * w).sum(2) + c;  // [B, MJ]
  }

  void copy_in(const std::vector<float>& values, std::vector<at::Tensor>& dst, size_t offset, const std::string& what) {
    if (values.size() < offset + count_)
      throw Error("", 0, what, std::to_string(values.size()) + " values for " + std::to_string(count_) + " parameters");
    at::NoGradGuard no_grad;
    size_t at_ = offset;
    for (auto& t : dst) {
      t.copy_(at::from_blob(const_cast<float*>(values.data() + at_), t.sizes(), at::kFloat));
      at_ += static_cast<size_t>(t.numel());
    }
  }

  AttnShape shape_;
  double lr_;
  size_t count_;
  long steps_ = 0;
  std::vector<at::Tensor> params_, m_, v_;
};

}  // namespace

std::unique_ptr<MlpTrainerEngine> make_attn_trainer(const AttnShape& shape, const std::vector<float>& values,
                                                    double learning_rate) {
  return std::make_unique<TorchAttnTrainer>(shape, values, learning_rate);
}

}  // namespace dmlkit::learn::torch_impl
