// Registry of replay strategies and the helpers they share.
#include "continual/replay/strategy.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "continual/replay/strategies.h"
#include "core/error.h"

namespace dmlkit::continual {

namespace {
template <class S>
std::unique_ptr<ReplayStrategy> make() {
  return std::make_unique<S>();
}
template <AngleMode mode>
std::unique_ptr<ReplayStrategy> make_angle() {
  return std::make_unique<AngleStrategy>(mode);
}
}  // namespace

// Adding a strategy: write replay/<name>.cpp (declared in strategies.h) and add one entry here.
const ReplayStrategyRegistry& replay_strategy_registry() {
  static const ReplayStrategyRegistry registry(
      {"replay strategy", "strategy", "", ""},
      {
          {"random", "uniform sample of the pool without replacement, ignoring classes", make<RandomStrategy>},
          {"reservoir", "reservoir sampling (Vitter's R) over the pool as a stream", make<ReservoirStrategy>},
          {"class-balanced", "budget / classes rows of each class, uniformly", make<ClassBalancedStrategy>},
          {"herding", "iCaRL herding (CVPR'17): per class, keep the chosen mean closest to the class mean",
           make<HerdingStrategy>},
          {"small-angle", "Angle Matters: per class, the rows closest in angle to the class prototype",
           make_angle<AngleMode::small>},
          {"mid-angle", "Angle Matters: per class, the rows whose angle is closest to the median",
           make_angle<AngleMode::mid>},
          {"large-angle", "Angle Matters: per class, the rows farthest in angle from the prototype",
           make_angle<AngleMode::large>},
          {"angle-mid-stream", "Angle Matters' streaming mid-angle buffer with per-class quotas",
           make<AngleMidStreamStrategy>},
      });
  return registry;
}

std::unique_ptr<ReplayStrategy> make_replay_strategy(const std::string& name) {
  return replay_strategy_registry().get(name).make();
}

std::vector<std::pair<int, std::vector<size_t>>> indices_by_class(const std::vector<int>& labels) {
  std::map<int, std::vector<size_t>> by;
  for (size_t i = 0; i < labels.size(); ++i) by[labels[i]].push_back(i);
  return {by.begin(), by.end()};
}

std::vector<size_t> select_per_class(const std::vector<int>& labels, size_t budget, const ClassPick& pick) {
  auto classes = indices_by_class(labels);
  std::vector<size_t> out;
  if (classes.empty()) return out;
  const size_t k = budget / classes.size();
  for (auto& [label, rows] : classes) {
    const auto chosen = pick(std::move(rows), k);
    out.insert(out.end(), chosen.begin(), chosen.end());
  }
  return out;
}

std::vector<double> cosines_to_prototype(const learn::Matrix& features, const std::vector<size_t>& rows) {
  const Eigen::Index dim = features.cols();
  Eigen::VectorXd mean = Eigen::VectorXd::Zero(dim);
  for (size_t r : rows) mean += features.row(static_cast<Eigen::Index>(r)).transpose().cast<double>();
  const double mean_norm = mean.norm();
  std::vector<double> cos(rows.size(), 0.0);
  for (size_t k = 0; k < rows.size(); ++k) {
    const Eigen::VectorXd f = features.row(static_cast<Eigen::Index>(rows[k])).transpose().cast<double>();
    const double fn = f.norm();
    cos[k] = (fn > 0 && mean_norm > 0) ? f.dot(mean) / (fn * mean_norm) : 0.0;
  }
  return cos;
}

double lower_median(std::vector<double> values) {
  const size_t mid = (values.size() - 1) / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<long>(mid), values.end());
  return values[mid];
}

}  // namespace dmlkit::continual
