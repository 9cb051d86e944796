// Small workloads and helpers shared by the ps tests.
#pragma once
#include <numeric>
#include <vector>

#include "comm/network.h"
#include "comm/workload.h"
#include "ps/placement.h"

namespace dmlkit::ps::testing {

// A chain of layers with the given parameter bytes (1 ms forward, 2 ms backward each).
inline comm::TrainingWorkload chain(const std::vector<double>& bytes) {
  std::vector<comm::SyntheticLayer> layers;
  for (double b : bytes) layers.push_back({0.001, 0.002, b});
  return comm::make_chain_workload("chain", layers);
}

inline comm::NetworkConfig net(int workers, int servers, double bandwidth_Bps = 1.25e9) {
  comm::NetworkConfig n;
  n.workers = workers;
  n.servers = servers;
  n.bandwidth_Bps = bandwidth_Bps;
  return n;
}

// The server of a tensor placed whole (fails the test otherwise).
inline int whole_server(const Placement& p, size_t tensor) {
  EXPECT_EQ(p.tensor_pieces.at(tensor).size(), 1u) << "tensor " << tensor;
  return p.tensor_pieces.at(tensor).at(0).server;
}

inline double sum(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }

}  // namespace dmlkit::ps::testing
