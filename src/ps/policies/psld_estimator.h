// PSLD's per-server throughput estimate (PSLD as reconstructed, spec comm-and-ps.md 3.1 "Measure"):
// after every observed iteration in which server j served bytes, EWMAs of its served bytes and of
// its busy time (union of its pieces' push-to-pull spans) are updated with weight alpha, and
// mu_j = ewma(bytes) / ewma(busy) [A: a ratio of averages, so a tiny piece's latency weighs
// little]. A server that served nothing keeps its estimate and ages (iterations since observed).
#pragma once
#include <vector>

#include "ps/policy.h"

namespace dmlkit::ps {

class ThroughputEstimator {
 public:
  ThroughputEstimator(int servers, double alpha);
  void observe(const IterationObservation& obs);
  bool known(int server) const { return known_[server]; }
  double throughput_Bps(int server) const;  // 0 if never observed
  double observed_bytes(int server) const { return bytes_[server]; }
  int age(int server) const { return age_[server]; }  // iterations since last observed
  // Median over the observed servers among `servers` (0 if none).
  double median_Bps(const std::vector<int>& servers) const;
  std::vector<double> all_Bps() const;
  // Forget a server's history (it becomes unknown, e.g. before a probe).
  void forget(int server);

 private:
  double alpha_;
  std::vector<double> bytes_, busy_;
  std::vector<int> age_;
  std::vector<char> known_;
};

}  // namespace dmlkit::ps
