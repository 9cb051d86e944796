// Factory functions of the built-in policies (one per file in this folder).
#pragma once
#include <memory>

#include "cluster/policy.h"

namespace dmlkit::cluster {

// std::unique_ptr<Policy> make_fifo(const PolicyOptions& options);
std::unique_ptr<Policy> make_fifo(const PolicyOptions& options);            // policies/gpu/fifo.cpp
std::unique_ptr<Policy> make_srtf(const PolicyOptions& options);            // policies/gpu/srtf.cpp
std::unique_ptr<Policy> make_drf(const PolicyOptions& options);             // policies/gpu/drf.cpp
std::unique_ptr<Policy> make_tetris(const PolicyOptions& options);          // policies/gpu/tetris.cpp
std::unique_ptr<Policy> make_tiresias(const PolicyOptions& options);        // policies/gpu/tiresias.cpp
std::unique_ptr<Policy> make_optimus_oracle(const PolicyOptions& options);  // policies/gpu/optimus_oracle.cpp
std::unique_ptr<Policy> make_optimus(const PolicyOptions& options);         // policies/optimus/optimus.cpp
// The DL2 simulator's heuristics on parameter-server jobs (policies/ps/dl2_baselines.cpp).
std::unique_ptr<Policy> make_drf_dl2(const PolicyOptions& options);
std::unique_ptr<Policy> make_fifo_dl2(const PolicyOptions& options);
std::unique_ptr<Policy> make_srtf_dl2(const PolicyOptions& options);
std::unique_ptr<Policy> make_tetris_dl2(const PolicyOptions& options);
std::unique_ptr<Policy> make_optimus_dl2(const PolicyOptions& options);

}  // namespace dmlkit::cluster
