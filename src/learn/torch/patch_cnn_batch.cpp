// Batched full-batch gradient descent and per-sample Fisher of the patch CNN on libtorch autograd
// (see learn/patch_cnn_batch.h); part of the libtorch plugin (learn/torch_plugin.h).
#include "learn/torch/torch_impl.h"

#include <torch/torch.h>

#include <cmath>
#include <cstring>
#include <map>
#include <stdexcept>
#include <tuple>

#include "core/parallel_for.h"

namespace dmlkit::learn::torch_impl {
namespace {

// Copies a row-major Eigen matrix into `dst` (a contiguous float tensor of the same size).
void copy_into(torch::Tensor dst, const Matrix& m) {
  std::memcpy(dst.data_ptr<float>(), m.data(), sizeof(float) * static_cast<size_t>(m.size()));
}

// Every sample's patches as one dense n x P x d tensor (duplicates expanded again).
torch::Tensor dense_patches(const PatchDataset& data) {
  const int64_t n = static_cast<int64_t>(data.size()), P = data.num_patches, d = data.patch_len;
  auto X = torch::empty({n, P, d});
  float* xp = X.data_ptr<float>();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t p = 0; p < P; ++p) {
      const auto row = data.patch(static_cast<size_t>(i), static_cast<int>(p));
      std::memcpy(xp + (i * P + p) * d, row.data(), sizeof(float) * static_cast<size_t>(d));
    }
  return X;
}

// sigma(A) = max(0, A)^q. ATen evaluates integer powers 2 and 3 by multiplication.
torch::Tensor relu_pow(const torch::Tensor& a, int q) {
  auto r = torch::relu(a);
  return q == 1 ? r : r.pow(q);
}

// Class signs of the 2m filters times the output scale and the mean over patches.
torch::Tensor filter_coefficients(const PatchCnnShape& s, int num_patches) {
  const int m = s.filters_per_class;
  auto coef = torch::cat({torch::ones({m}), -torch::ones({m})});
  return coef * (s.output_scale / static_cast<float>(num_patches));
}

void check_job(const PatchCnnTrainJob& job, const PatchCnnTrainJob& first) {
  if (!job.net || !job.data) throw std::invalid_argument("train_full_batch_torch: job without a network or data");
  const auto& a = job.net->shape();
  const auto& b = first.net->shape();
  if (a.patch_len != b.patch_len || a.filters_per_class != b.filters_per_class || a.power_q != b.power_q ||
      a.output_scale != b.output_scale)
    throw std::invalid_argument("train_full_batch_torch: networks of different shapes");
  if (job.data->patch_len != a.patch_len || job.data->num_patches != first.data->num_patches)
    throw std::invalid_argument("train_full_batch_torch: data of a different patch layout");
  if (job.data->size() == 0) throw std::invalid_argument("train_full_batch_torch: empty data set");
  if (job.penalty) {
    const auto& w = job.net->weights();
    if (job.penalty->anchor.rows() != w.rows() || job.penalty->anchor.cols() != w.cols() ||
        job.penalty->precision.rows() != w.rows() || job.penalty->precision.cols() != w.cols())
      throw std::invalid_argument("train_full_batch_torch: penalty shape differs from the weights");
  }
}

// How a job's penalty enters its steps; a chunk holds jobs of one mode only, so networks without
// a penalty never run the penalty's tensor operations.
enum class PenaltyMode { none, gradient, proximal };
PenaltyMode penalty_mode(const PatchCnnTrainJob& job) {
  if (!job.penalty || job.penalty->lambda == 0.0) return PenaltyMode::none;
  return job.penalty->step == PenaltyStep::gradient ? PenaltyMode::gradient : PenaltyMode::proximal;
}

// Samples per network in the loss tensors, padded to a multiple of this. ATen's element-wise CPU
// kernels run over a contiguous tensor in vector blocks (2 x 8 floats with AVX2, 2 x 16 with
// AVX-512) and finish the remainder with a scalar loop, and their vector and scalar softplus (and
// its derivative) differ in the last bit for about 5% of the inputs (measured, libtorch 1.13). Unpadded,
// the samples of the last network of a batch tensor fell into that scalar remainder or not
// depending on how many networks shared it, and lambda = 1e6 EWC runs amplified that bit into
// different results (0.054 against 0.726 task-1 error). With every network's row a multiple of 64
// floats no sample is ever in a remainder, so a network computes the same bits in any batch.
constexpr int64_t kSamplePad = 64;

// Trains the jobs `ids` (same unique-patch count, sample count and penalty mode) as one batch.
void train_chunk(const std::vector<PatchCnnTrainJob>& jobs, const std::vector<size_t>& ids, const GdConfig& config,
                 const BatchTrainConfig& batch, std::vector<GdResult>& out) {
  use_one_torch_thread();
  const PatchCnnShape shape = jobs[ids[0]].net->shape();
  const PatchDataset& d0 = *jobs[ids[0]].data;
  const int64_t B = static_cast<int64_t>(ids.size()), d = shape.patch_len, R = 2 * shape.filters_per_class;
  const int64_t u = d0.unique_patches.rows(), n = static_cast<int64_t>(d0.size()), P = d0.num_patches;
  const int64_t n_pad = (n + kSamplePad - 1) / kSamplePad * kSamplePad;
  const PenaltyMode mode = penalty_mode(jobs[ids[0]]);

  auto U = torch::empty({B, u, d});
  auto idx = torch::empty({B, n * P}, torch::kLong);
  auto y = torch::zeros({B, n_pad});  // padded samples: label 0, never part of the loss
  auto W = torch::empty({B, R, d});
  // Gradient EWC step: grad += lambda F (w - w*). Proximal step w <- (w + c F w*) / (1 + c F),
  // c = lr * lambda: numerator shift and divisor.
  torch::Tensor anchor, lambda_f, prox_shift, prox_div;
  if (mode == PenaltyMode::gradient) {
    anchor = torch::empty({B, R, d});
    lambda_f = torch::empty({B, R, d});
  } else if (mode == PenaltyMode::proximal) {
    prox_shift = torch::empty({B, R, d});
    prox_div = torch::empty({B, R, d});
  }
  for (int64_t b = 0; b < B; ++b) {
    const PatchCnnTrainJob& job = jobs[ids[static_cast<size_t>(b)]];
    copy_into(U[b], job.data->unique_patches);
    copy_into(W[b], job.net->weights());
    auto ib = idx[b];
    int64_t* ip = ib.data_ptr<int64_t>();
    for (int64_t k = 0; k < n * P; ++k) ip[k] = job.data->patch_row[static_cast<size_t>(k)];
    std::memcpy(y[b].data_ptr<float>(), job.data->labels.data(), sizeof(float) * static_cast<size_t>(n));
    if (mode == PenaltyMode::gradient) {
      copy_into(anchor[b], job.penalty->anchor);
      copy_into(lambda_f[b], job.penalty->scaled_precision());
    } else if (mode == PenaltyMode::proximal) {
      const float c = static_cast<float>(config.learning_rate * job.penalty->lambda);
      const Matrix cf = c * job.penalty->precision;
      copy_into(prox_div[b], Matrix((cf.array() + 1.0f).matrix()));
      copy_into(prox_shift[b], Matrix((cf.array() * job.penalty->anchor.array()).matrix()));
    }
  }
  W.requires_grad_(true);
  const auto coef = filter_coefficients(shape, static_cast<int>(P));
  const float lr = static_cast<float>(config.learning_rate);
  auto batch_loss = [&]() {  // (B) mean logistic loss of each network
    // The filter sum as a product and a row sum, not a matrix-vector product: that one folds the
    // B networks into one BLAS call whose kernels (OpenBLAS Sandybridge/Haswell) round a row
    // differently depending on where it falls in the block, so a network's bits depended on its
    // position in the batch. A row sum is the same for every row.
    auto h = (relu_pow(torch::bmm(U, W.transpose(1, 2)), shape.power_q) * coef).sum(2);  // B x u
    auto f = h.gather(1, idx).view({B, n, P}).sum(2);                                         // B x n
    if (n_pad != n) f = torch::constant_pad_nd(f, {0, n_pad - n});                            // B x n_pad
    return torch::softplus(-y * f).narrow(1, 0, n).mean(1);
  };
  std::vector<bool> diverged(static_cast<size_t>(B), false);
  auto check = [&](const torch::Tensor& loss, int epoch) {
    torch::NoGradGuard no_grad;
    auto ok = torch::isfinite(loss) & torch::isfinite(W).view({B, -1}).all(1);
    auto acc = ok.accessor<bool, 1>();
    for (int64_t b = 0; b < B; ++b)
      if (!acc[b] && !diverged[static_cast<size_t>(b)]) {
        diverged[static_cast<size_t>(b)] = true;
        out[ids[static_cast<size_t>(b)]].epochs_run = epoch;
      }
  };
  const int every = std::max(1, batch.divergence_check_epochs);
  for (int e = 0; e < config.epochs; ++e) {
    auto loss = batch_loss();
    loss.sum().backward();
    {
      torch::NoGradGuard no_grad;
      if (mode == PenaltyMode::gradient) W.grad().add_((W - anchor).mul_(lambda_f));
      W.sub_(W.grad(), lr);
      W.grad().zero_();
      if (mode == PenaltyMode::proximal) W.add_(prox_shift).div_(prox_div);
    }
    if ((e + 1) % every == 0 || e + 1 == config.epochs) check(loss.detach(), e + 1);
  }
  torch::Tensor final_loss;
  {
    torch::NoGradGuard no_grad;
    final_loss = batch_loss();
    check(final_loss, config.epochs);
  }
  auto fl = final_loss.accessor<float, 1>();
  for (int64_t b = 0; b < B; ++b) {
    const size_t k = ids[static_cast<size_t>(b)];
    Matrix& w = jobs[k].net->weights();
    std::memcpy(w.data(), W[b].contiguous().data_ptr<float>(), sizeof(float) * static_cast<size_t>(w.size()));
    GdResult& r = out[k];
    r.final_loss = fl[b];
    r.diverged = diverged[static_cast<size_t>(b)];
    if (!r.diverged) r.epochs_run = config.epochs;
  }
}

}  // namespace

std::vector<GdResult> train_full_batch(const std::vector<PatchCnnTrainJob>& jobs, const GdConfig& config,
                                       const BatchTrainConfig& batch) {
  if (config.epochs < 0 || !(config.learning_rate > 0))
    throw std::invalid_argument("train_full_batch_torch: bad config");
  if (config.batch_size != 0) throw std::invalid_argument("train_full_batch_torch: full batch only (batch_size 0)");
  if (batch.chunk_models < 1 || batch.threads < 1)
    throw std::invalid_argument("train_full_batch_torch: bad batch config");
  std::vector<GdResult> out(jobs.size());
  if (jobs.empty()) return out;
  for (const auto& job : jobs) check_job(job, jobs[0]);
  // Group by (unique patches, samples, penalty mode), keep job order within a group, cut into chunks.
  std::map<std::tuple<int64_t, size_t, PenaltyMode>, std::vector<size_t>> groups;
  for (size_t k = 0; k < jobs.size(); ++k)
    groups[{jobs[k].data->unique_patches.rows(), jobs[k].data->size(), penalty_mode(jobs[k])}].push_back(k);
  std::vector<std::vector<size_t>> chunks;
  for (const auto& [key, members] : groups)
    for (size_t start = 0; start < members.size(); start += static_cast<size_t>(batch.chunk_models))
      chunks.emplace_back(members.begin() + static_cast<std::ptrdiff_t>(start),
                          members.begin() + static_cast<std::ptrdiff_t>(std::min(
                                                members.size(), start + static_cast<size_t>(batch.chunk_models))));
  parallel_for(chunks.size(), batch.threads, [&](size_t c) {
    train_chunk(jobs, chunks[c], config, batch, out);
    if (batch.on_chunk_done) batch.on_chunk_done(chunks[c].size());
  });
  return out;
}

GdResult train_one(PatchCnn& net, const PatchDataset& data, const GdConfig& config, const QuadraticPenalty* penalty,
                   Rng& rng) {
  if (config.epochs < 0 || !(config.learning_rate > 0)) throw std::invalid_argument("gradient descent: bad config");
  const Matrix& w0 = net.weights();
  if (penalty && (penalty->anchor.rows() != w0.rows() || penalty->anchor.cols() != w0.cols() ||
                  penalty->precision.rows() != w0.rows() || penalty->precision.cols() != w0.cols()))
    throw std::invalid_argument("gradient descent: penalty shape differs from the weights");
  if (data.patch_len != net.shape().patch_len) throw std::invalid_argument("PatchCnn: patch length mismatch");
  use_one_torch_thread();
  const PatchCnnShape& s = net.shape();
  const int64_t n = static_cast<int64_t>(data.size()), P = data.num_patches, d = s.patch_len;
  const int64_t R = 2 * s.filters_per_class;
  // Dense patches (n x P x d) and labels; the weights as a leaf tensor.
  auto X = dense_patches(data);
  auto y = torch::from_blob(const_cast<float*>(data.labels.data()), {n}, torch::kFloat).clone();
  auto W = torch::empty({R, d});
  copy_into(W, w0);
  W.requires_grad_(true);
  torch::Tensor anchor, lambda_f, prox_shift, prox_div;
  const bool use_penalty = penalty && penalty->lambda != 0.0;
  const bool gradient_step = use_penalty && penalty->step == PenaltyStep::gradient;
  const bool proximal_step = use_penalty && penalty->step == PenaltyStep::proximal;
  if (gradient_step) {
    anchor = torch::empty({R, d});
    lambda_f = torch::empty({R, d});
    copy_into(anchor, penalty->anchor);
    copy_into(lambda_f, penalty->scaled_precision());
  } else if (proximal_step) {
    const float c = static_cast<float>(config.learning_rate * penalty->lambda);
    const Matrix cf = c * penalty->precision;
    prox_div = torch::empty({R, d});
    prox_shift = torch::empty({R, d});
    copy_into(prox_div, Matrix((cf.array() + 1.0f).matrix()));
    copy_into(prox_shift, Matrix((cf.array() * penalty->anchor.array()).matrix()));
  }
  const auto coef = filter_coefficients(s, static_cast<int>(P));
  const float lr = static_cast<float>(config.learning_rate);
  auto mean_loss = [&](const torch::Tensor& xb, const torch::Tensor& yb) {
    auto f = torch::matmul(relu_pow(torch::matmul(xb, W.t()), s.power_q), coef).sum(1);  // b
    return torch::softplus(-yb * f).mean();
  };
  // One gradient step on rows `idx` (all rows when undefined); false if the loss was not finite.
  auto step = [&](const torch::Tensor& idx) {
    auto loss = idx.defined() ? mean_loss(X.index_select(0, idx), y.index_select(0, idx)) : mean_loss(X, y);
    loss.backward();
    torch::NoGradGuard no_grad;
    if (gradient_step) W.grad().add_((W - anchor).mul_(lambda_f));
    W.sub_(W.grad(), lr);
    W.grad().zero_();
    if (proximal_step) W.add_(prox_shift).div_(prox_div);
    return std::isfinite(loss.item<double>());
  };
  GdResult result;
  const size_t count = static_cast<size_t>(n);
  const bool full = config.batch_size == 0 || config.batch_size >= count;
  std::vector<int64_t> order(count);
  for (size_t i = 0; i < count; ++i) order[i] = static_cast<int64_t>(i);
  for (int e = 0; e < config.epochs; ++e) {
    bool ok = true;
    if (full) {
      ok = count == 0 || step(torch::Tensor());
    } else {
      rng.shuffle(order.begin(), order.end());  // as train_gradient_descent: both see the same batches
      for (size_t start = 0; start < count && ok; start += config.batch_size) {
        const int64_t len = static_cast<int64_t>(std::min(count, start + config.batch_size) - start);
        ok = step(torch::from_blob(order.data() + start, {len}, torch::kLong));
      }
    }
    result.epochs_run = e + 1;
    if (!ok || !torch::isfinite(W).all().item<bool>()) {
      result.diverged = true;
      break;
    }
  }
  {
    torch::NoGradGuard no_grad;
    result.final_loss = count == 0 ? 0.0 : mean_loss(X, y).item<double>();
  }
  if (!std::isfinite(result.final_loss)) result.diverged = true;
  Matrix& w = net.weights();
  std::memcpy(w.data(), W.detach().contiguous().data_ptr<float>(), sizeof(float) * static_cast<size_t>(w.size()));
  return result;
}

Matrix fisher_diagonal(const PatchCnn& net, const PatchDataset& data, FisherKind kind) {
  use_one_torch_thread();
  const PatchCnnShape& s = net.shape();
  const int64_t n = static_cast<int64_t>(data.size()), P = data.num_patches, d = s.patch_len;
  const int64_t R = 2 * s.filters_per_class;
  Matrix fisher = Matrix::Zero(R, d);
  if (n == 0) return fisher;
  // Dense patches (n x P x d) and one copy of the weights per sample (n x R x d): the gradient of
  // sum_i f_i with respect to copy i is d f_i / d w.
  auto X = dense_patches(data);
  auto W = torch::empty({R, d});
  copy_into(W, net.weights());
  auto Wn = W.unsqueeze(0).expand({n, R, d}).clone().requires_grad_(true);
  const auto coef = filter_coefficients(s, static_cast<int>(P));
  auto f = torch::matmul(relu_pow(torch::bmm(X, Wn.transpose(1, 2)), s.power_q), coef).sum(1);  // n
  f.sum().backward();
  torch::NoGradGuard no_grad;
  // Per-sample weight: p (1 - p) (expected Fisher) or sigmoid(-y f)^2, the squared derivative of
  // log P(y | x) = -softplus(-y f) (empirical Fisher); averaged or summed over the samples.
  // The empirical weight is formed in double: sigmoid(-y f)^2 of a confidently right sample is
  // below float's normal range.
  torch::Tensor weight;
  if (kind == FisherKind::expected_mean) {
    auto p = torch::sigmoid(f.detach());
    weight = p * (1 - p);
  } else {
    auto y = torch::from_blob(const_cast<float*>(data.labels.data()), {n}, torch::kFloat).to(torch::kDouble);
    weight = torch::sigmoid(-y * f.detach().to(torch::kDouble)).square().to(torch::kFloat);
  }
  auto terms = weight.view({n, 1, 1}) * Wn.grad().square();
  auto F = (kind == FisherKind::expected_mean ? terms.mean(0) : terms.sum(0)).contiguous();
  std::memcpy(fisher.data(), F.data_ptr<float>(), sizeof(float) * static_cast<size_t>(fisher.size()));
  return fisher;
}

}  // namespace dmlkit::learn::torch_impl
