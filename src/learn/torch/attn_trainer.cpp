// libtorch engine of the attention network (learn/attn_net.h): the forward pass of padded batches
// of flat rows with ATen operators (the multi-head self-attention written out as
// torch::nn::MultiheadAttention computes it, with a key-padding mask for the rows' unused job
// slots), gradients by autograd, Adam as learn/torch/mlp_trainer.cpp (TensorFlow's update). It
// implements MlpTrainerEngine, so the actor-critic, replay and regression blocks of learn/ train it
// unchanged. One difference, documented in attn_net.h's users: the entropy term of the policy loss
// is the mean over rows of sum over actions of pi log(pi + 1e-6), not the mean over actions, so it
// does not depend on the row's padding width (max_servers).
#include <ATen/ATen.h>

#include <cmath>
#include <string>

#include "core/error.h"
#include "learn/attn_net.h"
#include "learn/torch/adam_trainer.h"

namespace dmlkit::learn::torch_impl {
namespace {

std::vector<std::vector<int>> validated_sizes(const AttnShape& shape) {
  shape.validate();
  return shape.parameter_sizes();
}

class TorchAttnTrainer final : public AdamTrainer {
 public:
  TorchAttnTrainer(const AttnShape& shape, const std::vector<float>& values, double lr)
      : AdamTrainer(validated_sizes(shape), shape.parameter_count(), values, lr, shape.inputs(), shape.outputs(),
                    EntropyOverActions::sum),
        shape_(shape) {}

 private:
  // x [B, inputs] -> [B, outputs] (learn/attn_net.h).
  at::Tensor forward(const at::Tensor& x) const override {
    const AttnShape& s = shape_;
    const int64_t B = x.size(0), E = s.embed, H = s.heads, dh = E / H, MJ = s.max_jobs, MS = s.max_servers;
    size_t k = 0;
    auto next = [&]() -> const at::Tensor& { return params()[k++]; };
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
      at::Tensor key = at::linear(srv, Wk);           // [B, MS, E]
      if (s.wait_target) key = at::cat({key, next().view({1, 1, E}).expand({B, 1, E})}, 1);  // k_wait: [B, MS + 1, E]
      const at::Tensor uq = at::linear(u, Wq);        // [B, E]
      return (at::tanh(key + uq.unsqueeze(1)) * v).sum(2);  // [B, MS (+ 1)]
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

  AttnShape shape_;
};

}  // namespace

std::unique_ptr<MlpTrainerEngine> make_attn_trainer(const AttnShape& shape, const std::vector<float>& values,
                                                    double learning_rate) {
  return std::make_unique<TorchAttnTrainer>(shape, values, learning_rate);
}

}  // namespace dmlkit::learn::torch_impl
