// RSB (Bao et al., IWQoS 2016): per-slot Exp3 with mixing, restriction to unchosen nodes,
// marginal rewards, importance weighting and a multiplicative update. See rsb.h for the algorithm
// and every assumption.
#include "influence/algorithms/rsb.h"

#include <cmath>

#include "core/error.h"
#include "influence/algorithms/factories.h"

namespace dmlkit::influence {
namespace {
// Rescale a slot once one scaled weight would exceed e^kMaxExponent (doubles overflow near e^709).
constexpr double kMaxExponent = 600;
}  // namespace

Rsb::Rsb(double gamma, double c) : gamma_(gamma), c_(c) {
  if (!(gamma > 0 && gamma <= 1)) throw Error("rsb: gamma must be in (0, 1]");
  if (!(c > 0)) throw Error("rsb: C must be positive");
}

void Rsb::reset(uint32_t num_nodes, int k) {
  num_nodes_ = num_nodes;
  k_ = k;
  const size_t cells = static_cast<size_t>(k) * num_nodes;
  log_weight_.assign(cells, 0.0);
  scaled_.assign(cells, 1.0);
  shift_.assign(k, 0.0);
  chosen_.assign(num_nodes, 0);
  draw_probability_.clear();
}

void Rsb::rescale(int slot) {
  const size_t base = static_cast<size_t>(slot) * num_nodes_;
  double max_log = log_weight_[base];
  for (uint32_t n = 1; n < num_nodes_; ++n) max_log = std::max(max_log, log_weight_[base + n]);
  shift_[slot] = max_log;
  for (uint32_t n = 0; n < num_nodes_; ++n) scaled_[base + n] = std::exp(log_weight_[base + n] - max_log);
}

void Rsb::select(const StepInput& in, Rng& rng, std::vector<NodeId>& seeds) {
  if (in.num_nodes != num_nodes_ || in.k > k_) throw Error("rsb: select() does not match reset()");
  const std::vector<NodeId>& present = *in.present_nodes;
  const double n_present = static_cast<double>(present.size());
  present_count_ = static_cast<uint32_t>(present.size());
  draw_probability_.clear();
  double chosen_scaled = 0;  // sum of scaled weights of this slot over the chosen nodes
  for (int slot = 0; slot < in.k; ++slot) {
    const double* v = scaled_.data() + static_cast<size_t>(slot) * num_nodes_;
    // V = sum over present nodes; rest = the part over unchosen ones (summed directly, no cancellation).
    double rest = 0;
    for (NodeId n : present)
      if (!chosen_[n]) rest += v[n];
    chosen_scaled = 0;
    for (NodeId s : seeds) chosen_scaled += v[s];
    const double total = rest + chosen_scaled;
    const double unchosen = n_present - static_cast<double>(seeds.size());
    const double exploit_mass = (1 - gamma_) * rest / total;
    const double explore_mass = gamma_ * unchosen / n_present;
    const double z = exploit_mass + explore_mass;
    NodeId sigma = present.front();
    const double u = rng.uniform() * z;
    if (u < exploit_mass && rest > 0) {
      // Proportional to v among the unchosen present nodes.
      double target = (u / exploit_mass) * rest, acc = 0;
      bool found = false;
      for (NodeId n : present) {
        if (chosen_[n]) continue;
        sigma = n;
        acc += v[n];
        if (acc > target && v[n] > 0) {
          found = true;
          break;
        }
      }
      if (!found)  // rounding at the very end of the scan: take the last unchosen node with weight
        for (auto it = present.rbegin(); it != present.rend(); ++it)
          if (!chosen_[*it] && v[*it] > 0) {
            sigma = *it;
            break;
          }
    } else {
      // Uniform among the unchosen present nodes (rejection; k is far below N in practice).
      do sigma = present[static_cast<size_t>(rng.uniform_int(0, static_cast<int64_t>(present.size()) - 1))];
      while (chosen_[sigma]);
    }
    const double w_sigma = (1 - gamma_) * v[sigma] / total + gamma_ / n_present;
    draw_probability_.push_back(w_sigma / z);
    chosen_[sigma] = 1;
    seeds.push_back(sigma);
  }
  for (NodeId s : seeds) chosen_[s] = 0;
}

void Rsb::observe(const StepInput& in, const std::vector<NodeId>& seeds, const std::vector<uint32_t>& marginal) {
  const double n_present = static_cast<double>(present_count_);
  for (size_t slot = 0; slot < seeds.size(); ++slot) {
    const double estimate = marginal[slot] / draw_probability_[slot];
    const size_t cell = slot * num_nodes_ + seeds[slot];
    log_weight_[cell] += gamma_ * estimate / (n_present * c_);
    const double exponent = log_weight_[cell] - shift_[slot];
    if (exponent > kMaxExponent)
      rescale(static_cast<int>(slot));
    else
      scaled_[cell] = std::exp(exponent);
  }
}

double Rsb::probability(int slot, NodeId n, const std::vector<NodeId>& chosen,
                        const std::vector<NodeId>& present) const {
  const size_t base = static_cast<size_t>(slot) * num_nodes_;
  double total = 0;
  for (NodeId m : present) total += std::exp(log_weight_[base + m]);
  auto w = [&](NodeId m) {
    return (1 - gamma_) * std::exp(log_weight_[base + m]) / total + gamma_ / static_cast<double>(present.size());
  };
  double z = 0;
  for (NodeId m : present) {
    bool taken = false;
    for (NodeId c : chosen) taken = taken || c == m;
    if (!taken) z += w(m);
  }
  for (NodeId c : chosen)
    if (c == n) return 0;
  return w(n) / z;
}

AlgorithmEntry rsb_entry() {
  return {"rsb",
          "RSB (Bao et al., IWQoS 2016): K Exp3-style bandits, one per seed slot, marginal rewards",
          [](const Knobs& k) -> std::unique_ptr<Algorithm> {
            return std::make_unique<Rsb>(k.get_double("rsb.gamma"), k.get_double("rsb.c"));
          },
          {knob_double("rsb.gamma", 0.2, "Exp3 exploration rate").range(0, 1, true, false),
           knob_double("rsb.c", 0.1, "reward scale (set empirically, as the paper does)").at_least(0, true)}};
}

}  // namespace dmlkit::influence
