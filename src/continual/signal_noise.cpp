// Generator of signal-noise tasks (see signal_noise.h).
#include "continual/signal_noise.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.h"

namespace dmlkit::continual {

void SignalNoiseConfig::validate() const {
  auto bad = [](const char* field, const std::string& why) { throw Error("", 0, field, why); };
  if (patch_len < 2) bad("patch_len", "must be at least 2");
  if (num_patches < 2) bad("num_patches", "must be at least 2 (one signal and one noise patch)");
  if (!(signal_norm > 0) || !std::isfinite(signal_norm)) bad("signal_norm", "must be positive");
  if (!(noise_std >= 0) || !std::isfinite(noise_std)) bad("noise_std", "must be non-negative");
  if (train_per_task < 1) bad("train_per_task", "must be at least 1");
  if (test_per_task < 1) bad("test_per_task", "must be at least 1");
}

std::vector<float> task_signal(const SignalNoiseConfig& config, double angle) {
  std::vector<float> mu(static_cast<size_t>(config.patch_len), 0.0f);
  const double rad = angle * M_PI / 180.0;
  mu[0] = static_cast<float>(config.signal_norm * std::cos(rad));
  mu[1] = static_cast<float>(config.signal_norm * std::sin(rad));
  return mu;
}

learn::PatchDataset generate_task(const SignalNoiseConfig& config, const std::vector<float>& mu, int n, Rng& rng) {
  config.validate();
  const int d = config.patch_len, P = config.num_patches;
  learn::Matrix patches(static_cast<Eigen::Index>(n) * P, d);
  std::vector<float> labels(static_cast<size_t>(n));
  std::vector<int> order(static_cast<size_t>(P));
  for (int i = 0; i < n; ++i) {
    const float y = rng.uniform() < 0.5 ? 1.0f : -1.0f;
    labels[static_cast<size_t>(i)] = y;
    std::iota(order.begin(), order.end(), 0);
    rng.shuffle(order.begin(), order.end());
    // order[p] == 0 marks the signal patch.
    for (int p = 0; p < P; ++p) {
      auto row = patches.row(static_cast<Eigen::Index>(i) * P + p);
      if (order[p] == 0) {
        for (int k = 0; k < d; ++k) row[k] = y * mu[static_cast<size_t>(k)];
      } else {
        for (int k = 0; k < d; ++k) row[k] = static_cast<float>(rng.normal(0.0, config.noise_std));
        if (config.noise_orthogonal) row[0] = row[1] = 0.0f;
      }
    }
  }
  return learn::PatchDataset::from_patches(patches, P, std::move(labels));
}

double angle_deg(const std::vector<float>& a, const std::vector<float>& b) {
  double dot = 0, na = 0, nb = 0;
  for (size_t k = 0; k < a.size() && k < b.size(); ++k) {
    dot += static_cast<double>(a[k]) * b[k];
    na += static_cast<double>(a[k]) * a[k];
    nb += static_cast<double>(b[k]) * b[k];
  }
  if (na == 0 || nb == 0) return 0.0;
  const double c = std::clamp(dot / std::sqrt(na * nb), -1.0, 1.0);
  return std::acos(c) * 180.0 / M_PI;
}

}  // namespace dmlkit::continual
