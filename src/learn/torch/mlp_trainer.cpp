// libtorch engine of the MLP trainer (learn/torch_plugin.h MlpTrainerEngine; shapes and the
// run-time forward pass in learn/mlp.h): the forward pass with ATen operators on the parameter
// tensors, gradients by autograd, Adam written here (TensorFlow's AdamOptimizer update, so DL2's
// settings mean what they meant there). Runs torch on one intra-op thread of the calling thread.
// The same trainer trains learn/column_net.h's column-shared networks (column_forward below: the
// column MLP on every column at once, the context MLP on the columns' mean).
#include <ATen/ATen.h>

#include <cmath>
#include <string>

#include "core/error.h"
#include "learn/torch/adam_trainer.h"

namespace dmlkit::learn::torch_impl {
namespace {

std::vector<std::vector<int>> column_sizes(const ColumnNetShape& shape) {
  auto sizes = shape.column.parameter_sizes();
  for (const auto& s : shape.context.parameter_sizes()) sizes.push_back(s);
  return sizes;
}

class TorchMlpTrainer final : public AdamTrainer {
 public:
  TorchMlpTrainer(const MlpShape& shape, const std::vector<float>& values, double lr)
      : AdamTrainer(shape.parameter_sizes(), shape.parameter_count(), values, lr, shape.inputs, shape.outputs,
                    EntropyOverActions::mean),
        shape_(shape) {}

  TorchMlpTrainer(const ColumnNetShape& shape, const std::vector<float>& values, double lr)
      : AdamTrainer(column_sizes(shape), shape.parameter_count(), values, lr, shape.inputs(), shape.outputs(),
                    EntropyOverActions::mean),
        column_(true),
        cshape_(shape) {}

 private:
  at::Tensor forward(const at::Tensor& a) const override {
    if (column_) return column_forward(a);
    size_t k = 0;
    return mlp_forward(shape_, a, k);
  }

  // The MLP of `shape` on the last dimension of a, from parameter tensor k on (k moves past it).
  at::Tensor mlp_forward(const MlpShape& shape, at::Tensor a, size_t& k) const {
    const double inv_sd = 1.0 / std::sqrt(1.0 + kAffineEps);
    for (size_t l = 0; l < shape.hidden.size(); ++l) {
      a = at::relu(at::linear(a, params()[k], params()[k + 1]));
      k += 2;
      if (shape.affine) {
        a = a * (params()[k] * inv_sd) + params()[k + 1];
        k += 2;
      }
    }
    a = at::linear(a, params()[k], params()[k + 1]);
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

  MlpShape shape_;
  bool column_ = false;
  ColumnNetShape cshape_;
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
