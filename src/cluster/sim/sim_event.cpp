// dmlkit's own simulation loop (SimProfile::Default, and TiresiasSim): event-driven. Arrivals and completions happen
// at their exact times (a completion is predicted from JobProgress::time_to_finish_s() when a job
// gets a placement, and an event is queued for it); the policy decides at every scheduling round
// (times k * round_s while jobs are active) and, with schedule_on_events, also at every arrival and
// completion and at the time the policy asked to be woken at (Policy::next_wakeup_s); round_s = +inf
// means no rounds. Idle time without arrivals is skipped. Jobs are run lazily: a job's progress is
// brought up to date only when it completes or when a decision needs its state.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "cluster/sim/sim_core.h"

namespace dmlkit::cluster::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Completion {
  int job = 0;
  uint32_t version = 0;
};

// The predicted completions: events ordered by time, ties by insertion order (as EventQueue), with
// at most one per job. A job's new prediction replaces its previous one, which the version check
// would skip anyway (a prediction is only made after a placement change, or after the previous one
// was taken), and a stopped job's is dropped: the heap stays the size of the running set instead
// of collecting every preempted job's stale prediction (millions on the Philly trace with
// tiresias). Valid events come out in the same order.
class CompletionQueue {
 public:
  explicit CompletionQueue(size_t num_jobs) : pos_(num_jobs, -1) {}
  bool empty() const { return heap_.empty(); }
  double next_time_s() const { return heap_[0].time_s; }
  const Completion& top() const { return heap_[0].payload; }
  void push(double time_s, Completion c) {
    erase(c.job);
    heap_.push_back(Node{time_s, next_seq_++, c});
    up(static_cast<int>(heap_.size()) - 1);
  }
  Completion pop() {
    const Completion c = heap_[0].payload;
    erase(c.job);
    return c;
  }
  void erase(int job) {
    const int p = pos_[job];
    if (p < 0) return;
    pos_[job] = -1;
    const int last = static_cast<int>(heap_.size()) - 1;
    if (p != last) {
      heap_[p] = heap_[last];
      heap_.pop_back();
      const int moved = heap_[p].payload.job;
      pos_[moved] = p;
      up(p);
      if (pos_[moved] == p) down(p);
    } else {
      heap_.pop_back();
    }
  }

 private:
  struct Node {
    double time_s;
    uint64_t seq;
    Completion payload;
  };
  static bool before(const Node& a, const Node& b) {
    if (a.time_s != b.time_s) return a.time_s < b.time_s;
    return a.seq < b.seq;
  }
  void place(int p, const Node& n) {
    heap_[p] = n;
    pos_[n.payload.job] = p;
  }
  void up(int p) {
    const Node n = heap_[p];
    while (p > 0) {
      const int parent = (p - 1) / 2;
      if (!before(n, heap_[parent])) break;
      place(p, heap_[parent]);
      p = parent;
    }
    place(p, n);
  }
  void down(int p) {
    const int size = static_cast<int>(heap_.size());
    const Node n = heap_[p];
    while (true) {
      int c = 2 * p + 1;
      if (c >= size) break;
      if (c + 1 < size && before(heap_[c + 1], heap_[c])) ++c;
      if (!before(heap_[c], n)) break;
      place(p, heap_[c]);
      p = c;
    }
    place(p, n);
  }
  std::vector<Node> heap_;
  std::vector<int> pos_;  // by job: index in heap_, -1 if none
  uint64_t next_seq_ = 0;
};

class EventLoop {
 public:
  explicit EventLoop(SimRun& run) : run_(run), cfg_(run.config()), completions_(run.num_jobs()) {}

  SimResult run() {
    const auto& order = run_.arrival_order();
    const size_t n = order.size();
    size_t next_arrival = 0;
    const bool rounds = std::isfinite(cfg_.round_s);  // +inf: no rounds (the tiresias-sim profile)
    double next_round_s = rounds ? 0 : kInf;
    double wakeup_s = kInf;  // the policy's wake-up request after the last decision
    int stalled = 0;
    bool timed_out = false;
    while (run_.finished_count() < n) {
      drop_stale();
      const double t_arrival = next_arrival < n ? arrival_s(order[next_arrival]) : kInf;
      const double t_completion = completions_.empty() ? kInf : completions_.next_time_s();
      const bool any_active = num_active() > 0;
      const double t_round = any_active ? next_round_s : kInf;
      const double t_wakeup = any_active ? wakeup_s : kInf;
      const double now = std::min({t_arrival, t_completion, t_round, t_wakeup});
      if (now == kInf) break;  // defensive: unfinished jobs can only be active or still to arrive
      if (now > cfg_.max_time_s) {
        timed_out = true;
        break;
      }
      bool event = false;
      while (!completions_.empty() && completions_.next_time_s() <= now) {
        const Completion c = completions_.pop();
        if (stale(c)) continue;
        if (complete(c.job, now)) event = true;
      }
      // Co-location interference: a finish changes its neighbours' speeds now, decision or not.
      while (event && run_.interference_dirty()) {
        bring_active_to(now);
        run_.refresh_interference();
        for (int j : run_.rate_changed()) schedule_completion(j, now);
      }
      while (next_arrival < n && arrival_s(order[next_arrival]) <= now) {
        run_.arrive(order[next_arrival++]);
        event = true;
      }
      // Rounds follow the grid k * round_s; after idle time the first round is the next grid point.
      if (rounds && !any_active && num_active() > 0) next_round_s = std::ceil(now / cfg_.round_s) * cfg_.round_s;
      const bool is_round = num_active() > 0 && now >= next_round_s;
      const bool is_wakeup = num_active() > 0 && now >= wakeup_s;
      if (num_active() > 0 && (is_round || is_wakeup || (event && cfg_.schedule_on_events))) {
        bring_active_to(now);
        if (num_active() > 0) {
          run_.decide(now);
          wakeup_s = cfg_.schedule_on_events && run_.next_wakeup_s() > now ? run_.next_wakeup_s() : kInf;
          for (int j : run_.changed()) schedule_completion(j, now);
          run_.maybe_report_progress(now);
          // Stalled: nothing will ever arrive or complete unless the policy acts.
          drop_stale();
          const bool idle = next_arrival == n && completions_.empty();
          stalled = idle ? stalled + 1 : 0;
          if (stalled >= kStallDecisions) {
            timed_out = true;
            break;
          }
        }
      }
      if (now >= next_round_s) next_round_s = (std::floor(now / cfg_.round_s) + 1.0) * cfg_.round_s;
    }
    if (run_.finished_count() < n) timed_out = true;
    if (cfg_.on_progress) cfg_.on_progress(last_time_, run_.finished_count(), n);
    return run_.take_result(timed_out);
  }

 private:
  double arrival_s(int j) { return run_.job(j).job->arrival_s; }
  size_t num_active() const { return run_.arrived_count() - run_.finished_count(); }

  bool stale(const Completion& c) {
    const SimJob& s = run_.job(c.job);
    return s.finished || s.version != c.version;
  }
  void drop_stale() {
    while (!completions_.empty() && stale(completions_.top())) completions_.pop();
  }

  void bring_active_to(double now) {
    last_time_ = now;
    run_.bring_running_to(now);
  }

  // Handles the predicted completion of job j at `now`; returns true if the job finished.
  bool complete(int j, double now) {
    last_time_ = now;
    SimJob& s = run_.job(j);
    if (run_.step_job(j, s.last_update_s, now - s.last_update_s)) return true;
    // The prediction and the step disagree by rounding: finish the residue in place if it is
    // negligible, otherwise queue the completion again.
    const double rest_s = s.restart_left_s + s.progress->time_to_finish_s();
    const double tiny_s = 1e-9 * std::max(1.0, std::abs(now));
    if (rest_s <= tiny_s) {
      s.restart_left_s = 0;
      s.progress->advance(rest_s + tiny_s);
      if (s.progress->finished()) {
        s.account.credit(rest_s, s.gpus);
        run_.mark_finished(j, now);
        return true;
      }
    }
    push_completion(j, now, rest_s);
    return false;
  }

  void schedule_completion(int j, double now) {
    const SimJob& s = run_.job(j);
    if (s.finished || s.placement.empty()) {
      completions_.erase(j);  // stale now (its version moved on)
      return;
    }
    push_completion(j, now, s.restart_left_s + s.progress->time_to_finish_s());
  }

  void push_completion(int j, double now, double in_s) {
    if (!std::isfinite(in_s)) return;
    double t = now + std::max(0.0, in_s);
    if (!(t > now) && in_s > 0) t = std::nextafter(now, kInf);
    completions_.push(t, Completion{j, run_.job(j).version});  // replaces j's stale prediction
  }

  SimRun& run_;
  const SimConfig& cfg_;
  CompletionQueue completions_;
  double last_time_ = 0;
};

}  // namespace

SimResult run_event_profile(SimRun& run) {
  EventLoop loop(run);
  return loop.run();
}

}  // namespace dmlkit::cluster::detail
