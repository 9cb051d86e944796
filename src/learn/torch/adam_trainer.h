// What the libtorch trainers of the plugin (mlp_trainer.cpp: MLPs and column-shared networks;
// attn_trainer.cpp: attention networks) share: the parameter, Adam-moment and step tensors and
// their (de)serialisation (MlpTrainerEngine's parameters / optimizer_state), the four losses
// (cross-entropy, masked policy gradient with entropy term, value, weighted regression) on the
// network's forward pass, and Adam written as TensorFlow's AdamOptimizer updates (so DL2's settings
// mean what they meant there). A network gives its forward pass, [B, inputs] -> [B, outputs].
#pragma once
#include <ATen/ATen.h>

#include <string>
#include <vector>

#include "learn/torch/torch_impl.h"

namespace dmlkit::learn::torch_impl {

// How the policy loss's entropy term pi log(pi + 1e-6) is reduced over a row's actions: the mean
// (the MLP, as DL2's code) or the sum (the attention network: independent of the padding width).
enum class EntropyOverActions { mean, sum };

class AdamTrainer : public MlpTrainerEngine {
 public:
  // sizes: the parameter tensors' shapes in the order of the flat parameter vector; count their
  // total size; values the initial parameters.
  AdamTrainer(const std::vector<std::vector<int>>& sizes, size_t count, const std::vector<float>& values, double lr,
              int inputs, int outputs, EntropyOverActions entropy);

  std::vector<float> parameters() const override { return flatten_tensors(params_); }
  void set_parameters(const std::vector<float>& values) override { copy_in(values, params_, 0, "parameters"); }
  std::vector<float> optimizer_state() const override;
  void set_optimizer_state(const std::vector<float>& state) override;
  void set_learning_rate(double lr) override { lr_ = lr; }

  LossStats add_cross_entropy_gradient(const float* x, int rows, const int* labels) override;
  LossStats add_policy_gradient(const float* x, int rows, const unsigned char* masks, const int* actions,
                                const float* advantages, double entropy_weight) override;
  LossStats add_value_gradient(const float* x, int rows, const float* targets) override;
  LossStats add_regression_gradient(const float* x, int rows, const float* targets, const float* weights) override;
  void step(int batches) override;

 protected:
  virtual at::Tensor forward(const at::Tensor& x) const = 0;
  const std::vector<at::Tensor>& params() const { return params_; }

 private:
  at::Tensor input(const float* x, int rows) const;
  void copy_in(const std::vector<float>& values, std::vector<at::Tensor>& dst, size_t offset, const std::string& what);

  double lr_;
  size_t count_;
  int inputs_, outputs_;
  EntropyOverActions entropy_;
  long steps_ = 0;
  std::vector<at::Tensor> params_, m_, v_;
};

}  // namespace dmlkit::learn::torch_impl
