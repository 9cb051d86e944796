// A ClusterBackend that forwards every call to another one and records how long each kind of call
// took on the backend's clock (wall seconds): the cluster manager's command latencies for the
// calibration file (cluster/sim/calibration.h: poll, place, release, hold, requeue, submit), and
// per kind a latency histogram and the calls that failed (`cluster serve`'s metrics). The replay
// and `serve` wrap their backend in one; nothing else changes (the same calls, the same errors).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "live/slurm_names.h"
#include "live/latency_histogram.h"

namespace dmlkit::live {

// What the calls of one kind cost: their latencies and how many threw.
struct CallStats {
  LatencyHistogram latency;
  int64_t errors = 0;
};

class TimedBackend final : public ClusterBackend {
 public:
  // keep_samples: also keep every latency (samples(); the replay's calibration). `serve` runs for
  // months and keeps only the histograms.
  explicit TimedBackend(ClusterBackend& inner, bool keep_samples = true) : inner_(inner), keep_samples_(keep_samples) {}

  // Wall seconds of every call of that kind that returned or threw: "poll" (a snapshot: squeue +
  // sinfo), "place", "release", "hold", "requeue", "submit", "cancel", "reconfigure".
  const std::vector<double>& samples(const std::string& kind) const;
  // Per kind, every call so far.
  const std::map<std::string, CallStats>& call_stats() const { return stats_; }

  std::vector<SlurmJob> jobs() override { return inner_.jobs(); }
  std::vector<SlurmNode> nodes() override { return inner_.nodes(); }
  SlurmSnapshot snapshot() override;
  void check_operator_rights() override { inner_.check_operator_rights(); }
  void place(int64_t id, const std::vector<std::string>& nodes, int gpus_per_node, int cpus_per_node) override;
  void release(int64_t id) override;
  void hold(int64_t id) override;
  void requeue_hold(int64_t id) override;
  void cancel(int64_t id) override;
  void reconfigure() override;
  int64_t submit(const JobRequest& request) override;
  int64_t commands_run() const override { return inner_.commands_run(); }
  double now_s() const override { return inner_.now_s(); }
  void sleep_s(double seconds) override { inner_.sleep_s(seconds); }

 private:
  template <typename F>
  auto timed(const char* kind, F&& f) -> decltype(f());

  void record(const char* kind, double seconds, bool failed);

  ClusterBackend& inner_;
  bool keep_samples_;
  std::map<std::string, std::vector<double>> samples_;
  std::map<std::string, CallStats> stats_;
};

}  // namespace dmlkit::live
