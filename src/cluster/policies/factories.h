// Factory functions of the built-in policies (one per file in this folder).
#pragma once
#include <memory>

#include "cluster/policy.h"

namespace dmlkit::cluster {

// std::unique_ptr<Policy> make_fifo(const PolicyOptions& options);

}  // namespace dmlkit::cluster
