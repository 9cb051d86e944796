// The libtorch trainers' common part; see adam_trainer.h.
#include "learn/torch/adam_trainer.h"

#include <c10/core/GradMode.h>

#include <cmath>

#include "core/error.h"

namespace dmlkit::learn::torch_impl {
namespace {

constexpr double kBeta1 = 0.9, kBeta2 = 0.999, kAdamEps = 1e-8;
constexpr double kEntropyEps = 1e-6;  // DL2's ENTROPY_EPS

}  // namespace

AdamTrainer::AdamTrainer(const std::vector<std::vector<int>>& sizes, size_t count, const std::vector<float>& values,
                         double lr, int inputs, int outputs, EntropyOverActions entropy)
    : lr_(lr), count_(count), inputs_(inputs), outputs_(outputs), entropy_(entropy) {
  use_one_torch_thread();
  for (const auto& s : sizes) {
    std::vector<int64_t> dims(s.begin(), s.end());
    params_.push_back(at::zeros(dims, at::kFloat).set_requires_grad(true));
    m_.push_back(at::zeros(dims, at::kFloat));
    v_.push_back(at::zeros(dims, at::kFloat));
  }
  set_parameters(values);
}

std::vector<float> AdamTrainer::optimizer_state() const {
  std::vector<float> out = flatten_tensors(m_);
  const std::vector<float> v = flatten_tensors(v_);
  out.insert(out.end(), v.begin(), v.end());
  out.push_back(static_cast<float>(steps_));
  return out;
}

void AdamTrainer::set_optimizer_state(const std::vector<float>& state) {
  if (state.size() != 2 * count_ + 1)
    throw Error("", 0, "optimizer",
                "state of " + std::to_string(state.size()) + " values, expected " + std::to_string(2 * count_ + 1));
  copy_in(state, m_, 0, "optimizer");
  copy_in(state, v_, count_, "optimizer");
  steps_ = static_cast<long>(state.back());
}

LossStats AdamTrainer::add_cross_entropy_gradient(const float* x, int rows, const int* labels) {
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

LossStats AdamTrainer::add_policy_gradient(const float* x, int rows, const unsigned char* masks, const int* actions,
                                           const float* advantages, double entropy_weight) {
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
  const at::Tensor plogp = pi * at::log(pi + kEntropyEps);
  const at::Tensor entropy = entropy_ == EntropyOverActions::sum ? plogp.sum(1).mean() : plogp.mean();
  const at::Tensor loss = -(chosen * adv).mean() + entropy_weight * entropy;
  loss.backward();
  LossStats s;
  s.loss = loss.item<double>();
  s.entropy = entropy.item<double>();
  return s;
}

LossStats AdamTrainer::add_value_gradient(const float* x, int rows, const float* targets) {
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

LossStats AdamTrainer::add_regression_gradient(const float* x, int rows, const float* targets, const float* weights) {
  use_one_torch_thread();
  const at::Tensor out = forward(input(x, rows));
  const at::Tensor t = at::from_blob(const_cast<float*>(targets), {rows, outputs_}, at::kFloat).clone();
  const at::Tensor w = at::from_blob(const_cast<float*>(weights), {rows, outputs_}, at::kFloat).clone();
  const at::Tensor loss = ((out - t).pow(2) * w).sum() / w.sum().clamp_min(1e-12);
  loss.backward();
  LossStats s;
  s.loss = loss.item<double>();
  return s;
}

void AdamTrainer::step(int batches) {
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

at::Tensor AdamTrainer::input(const float* x, int rows) const {
  if (rows <= 0) throw Error("", 0, "batch", "empty batch");
  return at::from_blob(const_cast<float*>(x), {rows, inputs_}, at::kFloat).clone();
}

void AdamTrainer::copy_in(const std::vector<float>& values, std::vector<at::Tensor>& dst, size_t offset,
                          const std::string& what) {
  if (values.size() < offset + count_)
    throw Error("", 0, what, std::to_string(values.size()) + " values for " + std::to_string(count_) + " parameters");
  at::NoGradGuard no_grad;
  size_t at_ = offset;
  for (auto& t : dst) {
    t.copy_(at::from_blob(const_cast<float*>(values.data() + at_), t.sizes(), at::kFloat));
    at_ += static_cast<size_t>(t.numel());
  }
}

}  // namespace dmlkit::learn::torch_impl
