// What an operator watches while `cluster serve` runs: a snapshot of the controller built after
// every poll/decide cycle (on the controller's thread), rendered as Prometheus metrics (text
// exposition format 0.0.4) and as a small status page (jobs, placements, the last decisions, a
// utilisation chart). The HTTP server (live/status_server.h) only reads published snapshots, so
// no request ever touches the controller itself. Every string from Slurm is escaped.
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "live/controller.h"
#include "live/latency_histogram.h"
#include "live/timed_backend.h"

namespace dmlkit::live {

// One point of the utilisation chart.
struct UtilisationPoint {
  double wall_s = 0;
  int gpus_busy = 0;
  int gpus_total = 0;
  int running_jobs = 0;
  int queued_jobs = 0;
};

struct LiveSnapshot {
  std::string policy;
  std::string scope;  // JobScope::describe()
  bool dry_run = false;
  double started_wall_s = 0;                      // seconds since the epoch
  double wall_s = 0;                              // when this snapshot was taken
  int queued_jobs = 0;                            // managed jobs waiting for a placement or for Slurm to start them
  int running_jobs = 0;                           // managed jobs running
  std::map<std::string, int> gpus_total_by_type;  // usable nodes in scope, by GRES type
  std::map<std::string, int> gpus_busy_by_type;   // GPUs Slurm counts as used there (any job)
  int64_t rounds = 0;
  std::map<std::string, int64_t> decisions_by_action;  // place, move, preempt, hold, retry
  LatencyHistogram decision_latency;                   // one observation per round
  std::map<std::string, CallStats> slurm_calls;        // by kind: poll, place, release, ...
  int64_t preemptions = 0;
  int64_t restarts = 0;
  std::vector<ManagedJob> jobs;
  std::vector<Decision> last_decisions;   // oldest first
  std::vector<UtilisationPoint> history;  // oldest first
};

// The GRES type label of untyped GPUs ("gpu:4").
inline constexpr const char* kUntypedGpu = "untyped";

// Builds and publishes snapshots. update() runs on the controller's thread; current() from any.
class LiveObserver {
 public:
  LiveObserver(std::string policy, std::string scope, bool dry_run, double started_wall_s);
  void update(const Controller& controller, const TimedBackend& slurm, double wall_s);
  std::shared_ptr<const LiveSnapshot> current() const;

  static constexpr size_t kLastDecisions = 20;
  static constexpr size_t kHistoryPoints = 720;

 private:
  void take_new_rounds_and_decisions(const Controller& controller);

  LiveSnapshot base_;  // the counters carried from update to update
  size_t rounds_seen_ = 0;
  size_t decisions_seen_ = 0;
  std::deque<Decision> last_decisions_;
  std::deque<UtilisationPoint> history_;
  mutable std::mutex mu_;
  std::shared_ptr<const LiveSnapshot> current_;
};

// Prometheus text exposition format (version 0.0.4).
std::string prometheus_text(const LiveSnapshot& s);
// The status page: one self-contained HTML page (no script; it reloads itself every 5 s).
std::string status_page_html(const LiveSnapshot& s);

}  // namespace dmlkit::live
