// Replay sampling strategies: which examples of a task go into the replay buffer. One interface;
// each strategy is one file. A strategy sees the candidate pool as feature vectors (rows of
// `features`, e.g. backbone features or raw pixels) with integer class labels and returns the
// indices of at most `budget` rows, in the order it chose them.
// Task-end strategies (random, class-balanced, herding, small/mid/large-angle) split the budget
// into k = budget / (number of classes in the pool) per class, as Mammoth's fill_buffer does;
// streaming strategies (reservoir, angle-mid-stream) see the pool one row at a time in order.
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/registry.h"
#include "core/rng.h"
#include "learn/patch_dataset.h"

namespace dmlkit::continual {

class ReplayStrategy {
 public:
  virtual ~ReplayStrategy() = default;
  virtual std::string name() const = 0;
  virtual std::vector<size_t> select(const learn::Matrix& features, const std::vector<int>& labels, size_t budget,
                                     Rng& rng) const = 0;
};

using ReplayStrategyFactory = std::unique_ptr<ReplayStrategy> (*)();
using ReplayStrategyEntry = RegistryEntry<ReplayStrategyFactory>;
using ReplayStrategyRegistry = Registry<ReplayStrategyEntry>;

// Registered (strategy.cpp): random, reservoir, class-balanced, herding, small-angle, mid-angle,
// large-angle, angle-mid-stream, in the order `dmlkit continual strategies` lists them.
const ReplayStrategyRegistry& replay_strategy_registry();
// Throws dmlkit::Error(field "strategy") for an unknown name.
std::unique_ptr<ReplayStrategy> make_replay_strategy(const std::string& name);

// Helpers shared by the strategies.
// Indices of each class, classes in ascending label order, indices ascending.
std::vector<std::pair<int, std::vector<size_t>>> indices_by_class(const std::vector<int>& labels);
// The task-end selection every per-class strategy shares (Mammoth's fill_buffer): k = budget /
// (classes in the pool); pick(rows of one class, ascending; k) returns at most k of them; classes
// are visited in ascending label order and their picks concatenated.
using ClassPick = std::function<std::vector<size_t>(std::vector<size_t> rows, size_t k)>;
std::vector<size_t> select_per_class(const std::vector<int>& labels, size_t budget, const ClassPick& pick);
// Cosine of each listed row to the class prototype normalize(mean of the listed rows).
std::vector<double> cosines_to_prototype(const learn::Matrix& features, const std::vector<size_t>& rows);
// The lower median (the torch.median convention for an even count). values must be non-empty.
double lower_median(std::vector<double> values);

}  // namespace dmlkit::continual
