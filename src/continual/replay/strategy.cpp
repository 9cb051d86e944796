// Registry of replay strategies and the helpers they share.
#include "continual/replay/strategy.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "continual/replay/strategies.h"
#include "core/error.h"

namespace dmlkit::continual {

const std::vector<std::string>& replay_strategy_names() {
  static const std::vector<std::string> names = {"random",      "reservoir", "class-balanced", "herding",
                                                 "small-angle", "mid-angle", "large-angle",    "angle-mid-stream"};
  return names;
}

std::unique_ptr<ReplayStrategy> make_replay_strategy(const std::string& name) {
  if (name == "random") return std::make_unique<RandomStrategy>();
  if (name == "reservoir") return std::make_unique<ReservoirStrategy>();
  if (name == "class-balanced") return std::make_unique<ClassBalancedStrategy>();
  if (name == "herding") return std::make_unique<HerdingStrategy>();
  if (name == "small-angle") return std::make_unique<AngleStrategy>(AngleMode::small);
  if (name == "mid-angle") return std::make_unique<AngleStrategy>(AngleMode::mid);
  if (name == "large-angle") return std::make_unique<AngleStrategy>(AngleMode::large);
  if (name == "angle-mid-stream") return std::make_unique<AngleMidStreamStrategy>();
  std::string known;
  for (const auto& n : replay_strategy_names()) known += (known.empty() ? "" : ", ") + n;
  throw Error("", 0, "strategy", "unknown replay strategy '" + name + "' (known: " + known + ")");
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
