// The Pollux reference simulator's loop (SimProfile::Pollux; specs/pollux-reference-semantics.md):
// fixed ticks of round_s. Each tick every running job steps by round_s on the placement decided at
// the previous tick (restart delay first), the clock advances, and the jobs that have arrived by the
// new time and are unfinished go to the policy; a job whose placement changed restarts with the
// restart delay. The loop ends when every job is complete. Ticks during which nothing is active
// and nothing arrives change nothing, so they are skipped (same results, less work).
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "cluster/sim/sim_core.h"

namespace dmlkit::cluster::detail {

SimResult run_pollux_profile(SimRun& run) {
  const SimConfig& cfg = run.config();
  const auto& order = run.arrival_order();
  const size_t n = order.size();
  size_t next_arrival = 0;
  int64_t tick = 0;  // the clock is tick * round_s (no accumulated rounding)
  double now = 0;
  int stalled = 0;
  bool timed_out = false;
  while (run.finished_count() < n) {
    run.step_running(now, cfg.round_s);
    if (run.arrived_count() == run.finished_count() && next_arrival < n) {
      // Idle: jump to the tick just before the one that first sees the next arrival.
      const double a = run.job(order[next_arrival]).job->arrival_s;
      const auto first_seen = static_cast<int64_t>(std::ceil(a / cfg.round_s));
      tick = std::max(tick, first_seen - 1);
    }
    ++tick;
    now = static_cast<double>(tick) * cfg.round_s;
    if (now > cfg.max_time_s) {
      timed_out = true;
      break;
    }
    while (next_arrival < n && run.job(order[next_arrival]).job->arrival_s <= now) run.arrive(order[next_arrival++]);
    if (run.arrived_count() > run.finished_count()) {
      run.decide(now);
      run.maybe_report_progress(now);
      const bool idle = run.last_running_jobs() == 0 && next_arrival == n;
      stalled = idle ? stalled + 1 : 0;
      if (stalled >= kStallDecisions) {
        timed_out = true;
        break;
      }
    }
  }
  if (run.finished_count() < n) timed_out = true;
  if (cfg.on_progress) cfg.on_progress(now, run.finished_count(), n);
  return run.take_result(timed_out);
}

}  // namespace dmlkit::cluster::detail
