// Time-varying topology and influence probabilities (see dynamics.h).
#include "influence/dynamics.h"

#include <algorithm>

#include "core/error.h"

namespace dmlkit::influence {

ProbabilityModel parse_probability_model(const std::string& name) {
  if (name == "static") return ProbabilityModel::Static;
  if (name == "weighted-cascade" || name == "wc") return ProbabilityModel::WeightedCascade;
  if (name == "trivalency" || name == "tr") return ProbabilityModel::Trivalency;
  if (name == "fluctuating" || name == "fr") return ProbabilityModel::Fluctuating;
  throw Error("--dynamics: expected static, weighted-cascade, trivalency or fluctuating, got '" + name + "'");
}

std::string to_string(ProbabilityModel model) {
  switch (model) {
    case ProbabilityModel::Static:
      return "static";
    case ProbabilityModel::WeightedCascade:
      return "weighted-cascade";
    case ProbabilityModel::Trivalency:
      return "trivalency";
    case ProbabilityModel::Fluctuating:
      return "fluctuating";
  }
  return "?";
}

namespace {

void check_churn(double churn, double presence, const char* churn_name, const char* presence_name) {
  if (!(presence > 0 && presence <= 1))
    throw Error(std::string(presence_name) + ": must be in (0, 1], got " + std::to_string(presence));
  if (!(churn >= 0 && churn <= 1))
    throw Error(std::string(churn_name) + ": must be in [0, 1], got " + std::to_string(churn));
  if (churn > 0 && presence >= 1)
    throw Error(std::string(churn_name) + ": churn needs " + presence_name + " below 1 (nothing could come back)");
  if (churn > 0 && churn * presence / (1 - presence) > 1)
    throw Error(std::string(churn_name) + ": churn * presence / (1 - presence) must be at most 1");
}

}  // namespace

void validate(const DynamicsConfig& c) {
  if (c.steps < 1) throw Error("--steps: must be at least 1");
  if (c.trivalency_levels.empty()) throw Error("trivalency: needs at least one probability level");
  for (double p : c.trivalency_levels)
    if (!(p >= 0 && p <= 1)) throw Error("trivalency: level " + std::to_string(p) + " is outside [0, 1]");
  if (!(c.fluctuating_max > 0 && c.fluctuating_max <= 1)) throw Error("--fr-max: must be in (0, 1]");
  if (!(c.fluctuating_swing >= 0)) throw Error("--fr-swing: must not be negative");
  check_churn(c.edge_churn, c.edge_presence, "--edge-churn", "--edge-presence");
  check_churn(c.node_churn, c.node_presence, "--node-churn", "--node-presence");
}

void validate(const DynamicsConfig& c, const EdgeList& universe) {
  validate(c);
  if (c.model == ProbabilityModel::Static && !universe.has_probabilities())
    throw Error("--dynamics static: the graph " + universe.name + " has no edge probabilities");
}

DynamicNetwork::DynamicNetwork(const EdgeList& universe, DynamicsConfig config, Rng rng)
    : universe_(universe), config_(std::move(config)), topology_rng_(rng.split(0)), prob_rng_(rng.split(1)) {
  validate(config_, universe_);
}

void DynamicNetwork::init_topology() {
  const size_t m = universe_.num_edges();
  const uint32_t n = universe_.num_nodes;
  node_present_.assign(n, 1);
  if (config_.node_presence < 1)
    for (auto& x : node_present_) x = topology_rng_.uniform() < config_.node_presence;
  edge_on_.assign(m, 1);
  if (config_.edge_presence < 1)
    for (auto& x : edge_on_) x = topology_rng_.uniform() < config_.edge_presence;
}

void DynamicNetwork::churn_topology() {
  auto flip = [this](std::vector<uint8_t>& state, double churn, double presence) {
    if (churn <= 0) return;
    const double back = churn * presence / (1 - presence);
    for (auto& x : state) x = x ? topology_rng_.uniform() >= churn : topology_rng_.uniform() < back;
  };
  flip(node_present_, config_.node_churn, config_.node_presence);
  flip(edge_on_, config_.edge_churn, config_.edge_presence);
}

void DynamicNetwork::update_probabilities() {
  const size_t m = universe_.num_edges();
  switch (config_.model) {
    case ProbabilityModel::Static:
      if (step_ == 0) prob_ = universe_.prob;
      break;
    case ProbabilityModel::WeightedCascade: {
      indegree_.assign(universe_.num_nodes, 0);
      for (size_t e = 0; e < m; ++e)
        if (edge_present_[e]) ++indegree_[universe_.dst[e]];
      prob_.resize(m);
      for (size_t e = 0; e < m; ++e) {
        const uint32_t d = indegree_[universe_.dst[e]];
        prob_[e] = d > 0 ? 1.0f / static_cast<float>(d) : 0.0f;
      }
      break;
    }
    case ProbabilityModel::Trivalency: {
      prob_.resize(m);
      const auto levels = static_cast<int64_t>(config_.trivalency_levels.size());
      for (size_t e = 0; e < m; ++e)
        prob_[e] = static_cast<float>(config_.trivalency_levels[prob_rng_.uniform_int(0, levels - 1)]);
      break;
    }
    case ProbabilityModel::Fluctuating: {
      const double pmax = config_.fluctuating_max;
      if (step_ == 0) {
        prob_.resize(m);
        direction_.resize(m);
        for (size_t e = 0; e < m; ++e) {
          prob_[e] = static_cast<float>(prob_rng_.uniform(0, pmax));
          direction_[e] = prob_rng_.uniform() < 0.5 ? 1 : -1;
        }
        break;
      }
      const double rate = config_.fluctuating_swing / config_.steps;
      for (size_t e = 0; e < m; ++e) {
        double p = prob_[e] + direction_[e] * rate;
        // Reflect off the bounds (repeatedly, in case rate exceeds the range).
        for (int guard = 0; guard < 64 && (p < 0 || p > pmax); ++guard) {
          if (p < 0) p = -p;
          if (p > pmax) p = 2 * pmax - p;
          direction_[e] = static_cast<int8_t>(-direction_[e]);
        }
        prob_[e] = static_cast<float>(std::clamp(p, 0.0, pmax));
      }
      break;
    }
  }
}

void DynamicNetwork::advance() {
  ++step_;
  if (step_ == 0)
    init_topology();
  else
    churn_topology();
  const size_t m = universe_.num_edges();
  edge_present_.resize(m);
  for (size_t e = 0; e < m; ++e)
    edge_present_[e] = edge_on_[e] && node_present_[universe_.src[e]] && node_present_[universe_.dst[e]];
  present_nodes_.clear();
  for (NodeId v = 0; v < universe_.num_nodes; ++v)
    if (node_present_[v]) present_nodes_.push_back(v);
  update_probabilities();
  graph_.rebuild(universe_.num_nodes, universe_.src, universe_.dst, prob_, edge_present_);
}

}  // namespace dmlkit::influence
