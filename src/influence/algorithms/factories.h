// Constructors of the registered influence algorithms (one file each under algorithms/).
#pragma once
#include <memory>

#include "influence/algorithm.h"

namespace dmlkit::influence {

std::unique_ptr<Algorithm> make_rsb(const AlgorithmOptions& o);
std::unique_ptr<Algorithm> make_random(const AlgorithmOptions& o);
std::unique_ptr<Algorithm> make_static_greedy(const AlgorithmOptions& o);
std::unique_ptr<Algorithm> make_cucb(const AlgorithmOptions& o);
std::unique_ptr<Algorithm> make_epsilon_greedy(const AlgorithmOptions& o);
std::unique_ptr<Algorithm> make_oracle(const AlgorithmOptions& o);

}  // namespace dmlkit::influence
