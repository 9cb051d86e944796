// Tiresias: discretized two-dimensional least-attained-service (2D-LAS) scheduling of gang-scheduled
// GPU jobs whose durations are unknown. Gu et al., "Tiresias: A GPU Cluster Manager for Distributed
// Deep Learning", NSDI 2019 (spec cluster-schedulers.md section 6.8; its simulator's "dlas-gpu").
//
// Algorithm, at every decision:
//   1. Attained service of a job = GPUs requested x wall time it has held GPUs (restart delay
//      included) since it last entered queue 0 ("2D"; `tiresias.service=time` uses the time alone).
//   2. K priority queues; a new job enters queue 0; a running job whose service reaches the
//      threshold of its queue moves to the tail of the next queue (straight to the queue its service
//      belongs to, should a decision come late). The policy asks the simulator to wake it at the
//      next threshold crossing or promotion (Policy::next_wakeup_s, as the authors' simulator's
//      "next_job_jump" in run_sim.py, dlas_sim_jobs), so in the event-driven loop queue changes
//      happen at their exact times whatever the round length.
//   3. Starvation avoidance (PROMOTE knob): a waiting job in a lower queue whose waiting time since
//      its last promotion (counted once it has run) reaches knob x its service time since then is
//      reset to zero service and moves to the tail of queue 0 (the simulator's rule; 0 disables).
//   4. Walk queue 0, then 1, ..., each in queue order, with a countdown of the cluster's GPUs
//      ("count" placement): a job whose request fits the remaining count runs, one that does not
//      is not run (preempted if it was running) and the walk goes on, so later, smaller jobs may
//      still run. Higher queues therefore strictly preempt lower ones.
//   5. Jobs that keep running keep their GPUs; jobs that start are placed in walk order on the
//      free GPUs with PolicyOptions::placement.
//   6. Waiting jobs move behind the running jobs of their queue, keeping their relative order (the
//      simulator's "sort based on start time"; `tiresias.pending_to_tail`).
//
// Knobs (`--policy-param`), defaults of the Tiresias simulator unless marked [A]:
//   tiresias.queues=3              number of queues K
//   tiresias.thresholds=3250,7200,18000   service thresholds in GPU-seconds; the first K-1 are used
//   tiresias.promote_knob=2        starvation knob; 0 turns promotion off. [A] the simulator's plain
//                                  dlas-gpu runs without it; we default to its dlas-gpu-2 variant
//                                  so that a long job cannot starve behind a stream of short ones
//   tiresias.service=gpu-time      or "time" (the simulator's dlas)
//   tiresias.pending_to_tail=1     step 6 on (1) or off (0)
//   tiresias.wakeup=exact          when to ask to be woken for the next queue change: "exact" (the
//                                  crossing time), "whole-s" (rounded up to a whole second: the
//                                  authors' integer clock as their code intends) or "authors" (their
//                                  "next_job_jump" formula as it runs: for GPU-time service it
//                                  divides (limit - executed seconds) by the GPUs with floor
//                                  division, so a demotion can be noticed late; the default of the
//                                  tiresias-sim profile) or "none" (no wake-ups: queue changes
//                                  wait for the next round or event, as before issue 11)
// With PolicyOptions::profile == "tiresias-sim" the defaults become those of the authors' simulator's
// `--schedule=dlas` (SymbioticLab/Tiresias simulator/run_sim.py dlas_sim_jobs; queues and limits
// from jobs.py _TFJobs.__init__: 3 queues, limits 3250, 7200 s): service "time", no promotion
// (dlas-gpu is service=gpu-time, dlas-gpu-2 adds promote_knob=2); the rest as above.
// With PolicyOptions::profile == "pollux" the defaults become those of the Pollux study's copy of
// Tiresias (specs/pollux-reference-semantics.md): 2 queues, threshold 57600 GPU-s (16 GPU-hours),
// no promotion, no step 6, and placement "most-free" (repeatedly all free GPUs of the server with
// the most free GPUs, ties to the lowest index); explicit knobs still override.
// Assumptions [A]: a job's request is its workload GPU count; a job never runs with fewer GPUs.
// Cost (issue 11): with the simulator's hints (ClusterView::free_gpus, same_job_list, departed and
// num_arrived) a decision costs what changed, not the number of jobs: jobs are admitted and
// forgotten from the caller's account of the change; demotions and promotions are found in two
// min-heaps of the times they are due (checked exactly within a margin); the walk takes a queue's
// running prefix whole when the count covers it and skips its waiting jobs when the count is below
// their smallest request (walk_split). The waiting jobs' waiting times are still summed decision by
// decision, one flat addition loop: the sums are part of the results, which stay byte-identical to
// the full scan that callers without hints and tiresias.wakeup=authors keep.
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "cluster/policies/factories.h"
#include "core/csv.h"
#include "core/error.h"

namespace dmlkit::cluster {

namespace {

std::vector<double> parse_thresholds(const std::string& text) {
  std::vector<double> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    double v = 0;
    if (!parse_double(item, v) || !(v > 0) || !std::isfinite(v))
      throw Error("--policy-param tiresias.thresholds: not a positive number: '" + item + "'");
    if (!out.empty() && v <= out.back())
      throw Error("--policy-param tiresias.thresholds: thresholds must increase ('" + text + "')");
    out.push_back(v);
  }
  return out;
}

// Times by job id in a binary min-heap, for "which jobs are due by t" in O(log n) per change
// instead of a pass over every job at every decision.
class DueHeap {
 public:
  void clear() {
    for (const Node& n : heap_) pos_[n.id] = -1;
    heap_.clear();
  }
  size_t size() const { return heap_.size(); }
  double min() const { return heap_.empty() ? std::numeric_limits<double>::infinity() : heap_[0].t; }
  // Sets job id's time (inserts it if absent); an infinite time removes it.
  void set(int id, double t) {
    if (static_cast<size_t>(id) >= pos_.size()) pos_.resize(static_cast<size_t>(id) + 1, -1);
    if (!(t < std::numeric_limits<double>::infinity())) {
      erase(id);
      return;
    }
    int p = pos_[id];
    if (p < 0) {
      p = static_cast<int>(heap_.size());
      heap_.push_back({t, id});
      pos_[id] = p;
      up(p);
    } else {
      const double old = heap_[p].t;
      heap_[p].t = t;
      if (t < old)
        up(p);
      else
        down(p);
    }
  }
  void erase(int id) {
    if (static_cast<size_t>(id) >= pos_.size() || pos_[id] < 0) return;
    const int p = pos_[id];
    pos_[id] = -1;
    const int last = static_cast<int>(heap_.size()) - 1;
    if (p != last) {
      heap_[p] = heap_[last];
      heap_.pop_back();
      const int moved = heap_[p].id;
      pos_[moved] = p;
      up(p);
      if (pos_[moved] == p) down(p);
    } else {
      heap_.pop_back();
    }
  }
  // Calls f(id) for every job whose time is <= t (any order).
  template <typename F>
  void for_each_upto(double t, F f) {
    if (heap_.empty() || !(heap_[0].t <= t)) return;
    stack_.clear();
    stack_.push_back(0);
    while (!stack_.empty()) {
      const int p = stack_.back();
      stack_.pop_back();
      f(heap_[p].id);
      for (int c = 2 * p + 1; c <= 2 * p + 2 && c < static_cast<int>(heap_.size()); ++c)
        if (heap_[c].t <= t) stack_.push_back(c);
    }
  }

 private:
  struct Node {
    double t;
    int id;
  };
  void up(int p) {
    const Node n = heap_[p];
    while (p > 0) {
      const int parent = (p - 1) / 2;
      if (!(n.t < heap_[parent].t)) break;
      heap_[p] = heap_[parent];
      pos_[heap_[p].id] = p;
      p = parent;
    }
    heap_[p] = n;
    pos_[n.id] = p;
  }
  void down(int p) {
    const int size = static_cast<int>(heap_.size());
    const Node n = heap_[p];
    while (true) {
      int c = 2 * p + 1;
      if (c >= size) break;
      if (c + 1 < size && heap_[c + 1].t < heap_[c].t) ++c;
      if (!(heap_[c].t < n.t)) break;
      heap_[p] = heap_[c];
      pos_[heap_[p].id] = p;
      p = c;
    }
    heap_[p] = n;
    pos_[n.id] = p;
  }
  std::vector<Node> heap_;
  std::vector<int> pos_;  // by id: index in heap_, -1 if absent
  std::vector<int> stack_;
};

class TiresiasPolicy final : public Policy {
 public:
  TiresiasPolicy(const PolicyOptions& options, const Knobs& knobs) {
    const bool pollux = options.profile == "pollux";
    const bool authors = options.profile == "tiresias-sim";
    num_queues_ = static_cast<int>(knobs.get_int("tiresias.queues", pollux ? 2 : 3));  // declared range [1, 64]
    thresholds_ = parse_thresholds(knobs.get_string("tiresias.thresholds", pollux ? "57600" : "3250,7200,18000"));
    if (static_cast<int>(thresholds_.size()) < num_queues_ - 1)
      throw Error("--policy-param tiresias.thresholds: " + std::to_string(num_queues_) + " queues need " +
                  std::to_string(num_queues_ - 1) + " thresholds");
    thresholds_.resize(num_queues_ - 1);
    promote_knob_ = knobs.get_double("tiresias.promote_knob", pollux || authors ? 0 : 2);           // declared >= 0
    gpu_time_ = knobs.get_string("tiresias.service", authors ? "time" : "gpu-time") == "gpu-time";  // gpu-time|time
    pending_to_tail_ = knobs.get_bool("tiresias.pending_to_tail", !pollux);
    placement_ = pollux ? PlacementKind::MostFree : options.placement;
    if (knobs.given("tiresias.placement")) placement_ = parse_placement_kind(knobs.get_string("tiresias.placement"));
    const std::string wakeup = knobs.get_string("tiresias.wakeup", authors ? "authors" : "exact");  // declared enum
    if (wakeup == "exact")
      wakeup_ = Wakeup::Exact;
    else if (wakeup == "whole-s")
      wakeup_ = Wakeup::WholeSeconds;
    else if (wakeup == "authors")
      wakeup_ = Wakeup::Authors;
    else
      wakeup_ = Wakeup::None;
    queues_.resize(num_queues_);
    split_ = pending_to_tail_;
    split_of_.resize(num_queues_);
    for (QueueSplit& m : split_of_) m.hist.assign(kBuckets, 0);
    for (double t : thresholds_) margin_s_ = std::max(margin_s_, 1e-8 * t);
  }

  void schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) override {
    const double now = view.now_s;
    // Same jobs as at the last decision and no threshold crossed since: the walk would return the
    // placements the jobs already hold (out starts as them), so there is nothing to do. At a
    // wake-up time the decision is always made: with tiresias.wakeup=authors it may come before
    // the crossing, and it must then compute the next wake-up as the authors' loop does.
    if (view.changes) view.changes->listed = true;  // every change made below is listed
    bool same = view.jobs_unchanged || view.same_job_list || same_jobs(jobs);
    if (view.free_gpus.size() != view.cluster->servers.size()) {
      // Callers without the simulator's hints (the live controller) may show a cluster that shrank
      // or grew (a node lost or back): that is a change too.
      int total = 0;
      for (const auto& sv : view.cluster->servers) total += std::max(0, sv.gpus);
      if (total != shown_gpus_) same = false;
      shown_gpus_ = total;
    }
    if (now < next_change_s_ && now < next_jump_s_ && same) return;
    // Every job was last checked at the last full decision: the waiting time since is one number.
    const double waited_s = now - last_check_s_;
    last_check_s_ = now;
    if (!same && !(view.num_arrived >= 0 && admit_changes(jobs, view.departed, view.num_arrived))) admit(jobs);
    // Demotion of running jobs, promotion of starving waiting jobs (in arrival order).
    const size_t num_servers = view.cluster->servers.size();
    const bool have_free = view.free_gpus.size() == num_servers;
    if (fast_ && (!have_free || wakeup_ == Wakeup::Authors)) leave_fast();
    int running_in_view = 0;
    if (fast_)
      running_in_view = scan_fast(jobs, waited_s, now);
    else
      running_in_view = scan_full(jobs, waited_s);
    // Walk the queues with a GPU countdown. Running jobs keep their GPUs (out starts as them);
    // those that do not fit stop, the others start afterwards, placed in walk order on the free
    // GPUs: the cluster's minus the kept placements, i.e. the simulator's free GPUs (those not
    // held by any current placement) plus the placements of the jobs that stop.
    // (The cluster of a run that gives the hints does not change: its GPU count is kept.)
    if (!have_free || view.cluster != counted_cluster_) {
      cluster_gpus_ = 0;
      for (const auto& s : view.cluster->servers) cluster_gpus_ += std::max(0, s.gpus);
      counted_cluster_ = have_free ? view.cluster : nullptr;
    }
    int count = cluster_gpus_;
    if (have_free) {
      pool_.assign(view.free_gpus);
    } else {
      free_.resize(num_servers);
      for (size_t s = 0; s < num_servers; ++s) free_[s] = view.cluster->servers[s].gpus;
      pool_.assign(free_);  // a member: no allocation per decision
    }
    starters_.clear();
    cleared_.clear();
    if (split_)
      walk_split(jobs, out, view.changes, count);
    else
      walk_plain(jobs, out, view.changes, count, running_in_view, have_free);
    bool place_failed = false;
    for (int i : starters_) {
      if (!pool_.place(state_[ids_[i]].need, placement_, out[i])) {
        out[i].clear();
        place_failed = true;
      }
      if (view.changes && !out[i].empty() && !jobs[i].running()) view.changes->indices.push_back(i);
    }
    if (split_) {
      for (size_t qi = 0; qi < queues_.size(); ++qi) partition_split(qi, out);
    } else if (pending_to_tail_) {
      for (size_t qi = 0; qi < queues_.size(); ++qi) {
        if (!reorder_[qi] && !place_failed) continue;  // already running jobs first
        auto& q = queues_[qi];
        scratch_.clear();
        size_t k = 0;
        for (const Entry& e : q) {
          if (!out[state_[e.id].index].empty())
            q[k++] = e;
          else
            scratch_.push_back(e);
        }
        std::copy(scratch_.begin(), scratch_.end(), q.begin() + static_cast<long>(k));
      }
    }
    if (fast_) {
      after_fast(jobs, out, now);
      remember_fast(now, jobs);
    } else {
      remember(now, jobs, out);
    }
  }

  double next_wakeup_s(const ClusterView&, std::span<const JobView>) const override { return next_jump_s_; }

 private:
  struct Entry {
    int id;    // job id (its view index: state_[id].index)
    int need;  // GPUs requested
  };
  // Split mode (walk_split): each queue is R, W, then the entries added since the last decision.
  static constexpr int kBuckets = 65;  // requests counted per size 1..63, and 64 or more
  struct QueueSplit {
    size_t r_len = 0;       // R = [0, r_len)
    size_t old_len = 0;     // W = [r_len, old_len); the entries from old_len on are new
    long r_need = 0;        // GPUs requested by R
    std::vector<int> hist;  // W and new entries by request (bucket())
    // This decision's walk: the first position of R that stopped, one past the last position
    // after R that runs, and whether either happened.
    size_t first_stop = 0;
    size_t last_run = 0;
    bool touched = false;
  };
  struct JobState {
    int queue = -1;                // -1: not seen yet
    bool queued = false;           // has an entry in queues_[queue] (false once forgotten)
    int need = 1;                  // GPUs requested (request())
    double executed_offset_s = 0;  // executed time at the last (re)entry to queue 0
    double pending_s = 0;          // waiting time since the last promotion, once it has run
    unsigned long seen = 0;        // stamp of the last job list that held the job
    int rpos = -1;                 // position in running_ (fast mode), -1: not there
    int wpos = -1;                 // position in the w_* arrays (fast mode), -1: not there
    int index = 0;                 // index in the current view
  };

  static int request(const JobView& v) { return std::max(1, v.job->num_gpus); }

  // `value` has reached `limit`, up to rounding: at a wake-up time the simulator's sum of the run's
  // stretches may fall an ulp short of the predicted crossing.
  static bool reached(double value, double limit) { return value >= slack_below(limit); }
  // `x` less the rounding slack that reached() allows.
  static double slack_below(double x) { return x - 1e-9 * std::max(1.0, std::fabs(x)); }
  // The queue a job in queue q with attained `service` belongs to (demotion only).
  int demoted_queue(int q, double service) const {
    while (q < num_queues_ - 1 && reached(service, thresholds_[q])) ++q;
    return q;
  }
  // When a running job crosses its queue's threshold, at the rate its service grows.
  double crossing_s(double now, const JobState& st, double executed_s) const {
    const double per_s = gpu_time_ ? st.need : 1.0;
    return now + (thresholds_[st.queue] / per_s - executed_s);
  }

  // The job list differs from the last decision's: note each job's view index, admit new jobs to
  // queue 0 in arrival order, forget finished ones.
  void admit(std::span<const JobView> jobs) {
    ++stamp_;
    ids_.resize(jobs.size());
    last_jobs_.resize(jobs.size());
    for (size_t i = 0; i < jobs.size(); ++i) {
      const int id = jobs[i].job->id;
      if (id < 0) throw Error("tiresias: job '" + jobs[i].job->name + "' has a negative id");
      if (static_cast<size_t>(id) >= state_.size()) state_.resize(static_cast<size_t>(id) + 1);
      ids_[i] = id;
      last_jobs_[i] = jobs[i].job;
      JobState& st = state_[id];
      st.seen = stamp_;
      st.index = static_cast<int>(i);
      if (st.queue < 0)
        enter_first_queue(id, jobs[i]);
      else if (!st.queued)
        reenter_queue(id, jobs[i]);
    }
    if (is_running_.size() < state_.size()) is_running_.resize(state_.size(), 0);
    for (size_t k = running_.size(); k-- > 0;)
      if (state_[running_[k]].seen != stamp_) r_remove(running_[k]);
    for (size_t k = w_id_.size(); k-- > 0;)
      if (state_[w_id_[k]].seen != stamp_) w_remove(w_id_[k]);
    for (size_t qi = 0; qi < queues_.size(); ++qi) {
      auto& q = queues_[qi];
      size_t k = 0;
      QueueSplit& m = split_of_[qi];
      const size_t r_len = m.r_len, old_len = m.old_len;
      for (size_t p = 0; p < q.size(); ++p) {
        const Entry e = q[p];
        JobState& st = state_[e.id];
        if (st.seen != stamp_) {
          st.queued = false;
          if (split_) forget(m, p < r_len, p < old_len, e.need);
          continue;
        }
        q[k++] = e;
      }
      q.resize(k);
    }
  }

  // admit() from the caller's account of the change (ClusterView::departed, num_arrived): the jobs
  // that left are forgotten one by one, the view indices after the first of them shift down, and
  // the new jobs, at the end, join queue 0. Returns false (nothing done) if the account does not
  // fit the list this policy saw last.
  bool admit_changes(std::span<const JobView> jobs, std::span<const int> departed, int num_arrived) {
    const size_t prev = ids_.size();
    if (departed.size() > prev || prev - departed.size() + static_cast<size_t>(num_arrived) != jobs.size())
      return false;
    for (size_t k = 0; k < departed.size(); ++k)
      if (departed[k] < 0 || static_cast<size_t>(departed[k]) >= prev || (k > 0 && departed[k] <= departed[k - 1]))
        return false;
    for (int d : departed) {
      const int id = ids_[d];
      const JobState& st = state_[id];
      if (st.rpos >= 0) r_remove(id);
      if (st.wpos >= 0) w_remove(id);
      remove_entry(id);
    }
    if (!departed.empty()) {
      size_t k = static_cast<size_t>(departed[0]), next = 0;
      for (size_t i = k; i < prev; ++i) {
        if (next < departed.size() && static_cast<size_t>(departed[next]) == i) {
          ++next;
          continue;
        }
        ids_[k] = ids_[i];
        last_jobs_[k] = last_jobs_[i];
        state_[ids_[k]].index = static_cast<int>(k);
        ++k;
      }
      ids_.resize(k);
      last_jobs_.resize(k);
    }
    for (size_t i = ids_.size(); i < jobs.size(); ++i) {
      const int id = jobs[i].job->id;
      if (id < 0) throw Error("tiresias: job '" + jobs[i].job->name + "' has a negative id");
      if (static_cast<size_t>(id) >= state_.size()) state_.resize(static_cast<size_t>(id) + 1);
      ids_.push_back(id);
      last_jobs_.push_back(jobs[i].job);
      JobState& st = state_[id];
      st.index = static_cast<int>(i);
      if (st.queue < 0)
        enter_first_queue(id, jobs[i]);
      else if (!st.queued)
        reenter_queue(id, jobs[i]);
    }
    if (is_running_.size() < state_.size()) is_running_.resize(state_.size(), 0);
    return true;
  }

  // Takes job id's entry out of its queue.
  void remove_entry(int id) {
    JobState& st = state_[id];
    auto& q = queues_[st.queue];
    const auto it = std::find_if(q.begin(), q.end(), [&](const Entry& e) { return e.id == id; });
    if (it == q.end()) throw Error("tiresias: internal error: job " + std::to_string(id) + " is not in its queue");
    st.queued = false;
    if (split_) {
      const size_t p = static_cast<size_t>(it - q.begin());
      QueueSplit& m = split_of_[st.queue];
      forget(m, p < m.r_len, p < m.old_len, st.need);
    }
    q.erase(it);
  }

  // Queue bookkeeping of split mode: an entry at old position p (before the change) leaves.
  void forget(QueueSplit& m, bool in_r, bool in_old, int need) {
    if (in_r) {
      --m.r_len;
      m.r_need -= need;
    } else {
      --m.hist[bucket(need)];
    }
    if (in_r || in_old) --m.old_len;
  }

  // A job seen for the first time enters queue 0 with its request; its service counts from now.
  void enter_first_queue(int id, const JobView& v) {
    JobState& st = state_[id];
    st.queue = 0;
    st.need = request(v);
    st.executed_offset_s = v.executed_s;
    st.pending_s = 0;
    append(0, {id, st.need});
  }

  // The caller changed a job's GPU request (the live controller caps it at the GPUs of the nodes
  // that are up): the job keeps its place in its queue with the new request (plain mode only;
  // split mode, with the simulator's hints, never sees a request change).
  void refresh_need(int id, int need) {
    JobState& st = state_[id];
    for (Entry& e : queues_[st.queue])
      if (e.id == id) e.need = need;
    st.need = need;
  }

  // A job that left the job list and is back (the live controller can lose sight of a job for a
  // while, e.g. when Slurm requeues it after a node failure) re-enters the queue it was in, at its
  // tail, with its attained service and waiting time kept [A]; its request is read again.
  void reenter_queue(int id, const JobView& v) {
    JobState& st = state_[id];
    st.need = request(v);
    append(static_cast<size_t>(st.queue), {id, st.need});
  }

  void append(size_t qi, Entry e) {
    queues_[qi].push_back(e);
    state_[e.id].queued = true;
    if (split_) ++split_of_[qi].hist[bucket(e.need)];
  }

  bool same_jobs(std::span<const JobView> jobs) const {
    if (jobs.size() != last_jobs_.size()) return false;
    for (size_t i = 0; i < jobs.size(); ++i)
      if (jobs[i].job != last_jobs_[i]) return false;
    return true;
  }

  // The full scan (callers without the simulator's hints): every job's view.
  int scan_full(std::span<const JobView> jobs, double waited_s) {
    const bool promote = promote_knob_ > 0;
    int running_in_view = 0;
    for (size_t i = 0; i < jobs.size(); ++i) {
      const JobView& v = jobs[i];
      JobState& st = state_[ids_[i]];
      if (!split_ && request(v) != st.need) refresh_need(ids_[i], request(v));
      const double executed_s = v.executed_s - st.executed_offset_s;
      if (v.running()) {
        ++running_in_view;
        const double service = gpu_time_ ? executed_s * st.need : executed_s;
        const int q = demoted_queue(st.queue, service);
        if (q != st.queue) move(ids_[i], q);
      } else if (executed_s > 0) {
        st.pending_s += waited_s;
        if (promote && st.queue > 0 && reached(st.pending_s, executed_s * promote_knob_)) {
          st.executed_offset_s = v.executed_s;
          st.pending_s = 0;
          move(ids_[i], 0);
        }
      }
    }
    return running_in_view;
  }

  // How far a running job's crossing time computed when it started (or changed queue) may be from
  // the one computed now from its executed time: the simulator's sum of its stretches drifts from
  // the wall time by rounding (an ulp of the clock per stretch, about 1e-9 s per decision on a
  // 1e7 s trace), and reached() allows a relative 1e-9 of the threshold. The margin is orders of
  // magnitude above both; it only decides which jobs are looked at exactly.
  double margin(double t) const { return 1.0 + 1e-6 * std::fabs(t) + margin_s_; }
  // Crossing time of a running job at `now`, or +inf in the last queue.
  double key(double now, const JobState& st, double executed_s) const {
    return st.queue >= num_queues_ - 1 ? std::numeric_limits<double>::infinity() : crossing_s(now, st, executed_s);
  }

  // With the simulator's hints the jobs running in the view are those this policy left running,
  // and a waiting job's executed time does not move: only the running jobs near their crossing are
  // read (r_due_ holds each running job's crossing time as computed when it started or changed
  // queue: the crossing does not move while it runs, up to rounding, see margin()), and the
  // waiting jobs that count waiting time (executed > 0) sit in dense arrays (w_*).
  int scan_fast(std::span<const JobView> jobs, double waited_s, double now) {
    moves_.clear();
    const size_t num_running = running_.size();
    r_due_.for_each_upto(now + margin(now), [&](int id) {
      const JobState& st = state_[id];
      const double executed_s = jobs[st.index].executed_s - st.executed_offset_s;
      const double service = gpu_time_ ? executed_s * st.need : executed_s;
      const int q = demoted_queue(st.queue, service);
      if (q != st.queue) moves_.push_back({st.index, id, q});
    });
    // Every waiting job's waiting time grows by the same amount, one addition each (the sums are
    // part of the results); only those whose promotion is near are compared.
    const size_t nw = w_id_.size();
    double* pend = w_pend_.data();
    for (size_t k = 0; k < nw; ++k) pend[k] += waited_s;
    w_due_.for_each_upto(now + margin(now), [&](int id) {
      const JobState& st = state_[id];
      if (pend[st.wpos] >= w_lim_[st.wpos]) moves_.push_back({st.index, id, -1});
    });
    if (!moves_.empty()) {
      std::sort(moves_.begin(), moves_.end(), [](const Move& a, const Move& b) { return a.index < b.index; });
      for (const Move& m : moves_) {
        if (m.to >= 0) {
          move(m.id, m.to);
        } else {
          JobState& st = state_[m.id];
          w_remove(m.id);
          st.executed_offset_s = jobs[st.index].executed_s;
          st.pending_s = 0;
          move(m.id, 0);
        }
      }
    }
    return static_cast<int>(num_running);
  }

  // The walk over the queues as they are (callers without hints, pending_to_tail=0): every entry
  // until the count is 0 and every running job has been seen.
  void walk_plain(std::span<const JobView> jobs, std::span<Placement> out, ChangeList* changes, int count,
                  int running_left, bool have_free) {
    reorder_.assign(queues_.size(), 0);
    const char* is_running = is_running_.data();
    for (size_t qi = 0; qi < queues_.size() && (count > 0 || running_left > 0); ++qi) {
      bool waiting_seen = false;
      for (const Entry& e : queues_[qi]) {
        if (count == 0 && running_left == 0) break;
        const int i = state_[e.id].index;
        const JobView& v = jobs[i];
        const bool run = e.need <= count;
        if (run) count -= e.need;
        const int held = fast_ ? is_running[e.id] : (v.running() ? (v.gpus() == e.need ? 1 : 2) : 0);
        const bool running = held != 0;
        if (running) --running_left;
        if (run && held == 1) {
          if (!have_free) {
            if (out[i] != v.placement) out[i] = v.placement;
            pool_.take(out[i]);
          }
        } else {
          if (running) {
            if (have_free) pool_.release(v.placement);
            out[i].clear();
            if (changes) changes->indices.push_back(i);
            cleared_.push_back(i);
          }
          if (run) starters_.push_back(i);
        }
        if (!run)
          waiting_seen = true;
        else if (waiting_seen)
          reorder_[qi] = 1;
      }
    }
  }

  // The walk in split mode (hints and pending_to_tail): after every decision the jobs that run form
  // a prefix of their queue (step 6), so a queue is R (the jobs that ran at the last decision, all
  // still running), then W (those that waited), then the entries added since (arrivals, demotions,
  // promotions). R runs whole when the count covers its GPUs (they fit one after the other), and
  // no job of W can start when the count is below W's smallest request; only the new entries are
  // then looked at, for the running ones among them (demoted jobs), which stop. In steady state a
  // decision is a few steps per queue instead of a walk over every waiting job.
  void walk_split(std::span<const JobView> jobs, std::span<Placement> out, ChangeList* changes, int count) {
    const char* is_running = is_running_.data();
    for (size_t qi = 0; qi < queues_.size(); ++qi) {
      auto& q = queues_[qi];
      QueueSplit& m = split_of_[qi];
      m.first_stop = m.r_len;
      m.last_run = 0;
      m.touched = false;
      auto visit = [&](size_t p) {
        const Entry& e = q[p];
        const int i = state_[e.id].index;
        const bool run = e.need <= count;
        if (run) count -= e.need;
        const int held = is_running[e.id];
        if (run && held == 1) {
          if (p >= m.r_len) {
            m.touched = true;
            m.last_run = p + 1;
          }
          return;
        }
        if (held) {
          pool_.release(jobs[i].placement);
          out[i].clear();
          if (changes) changes->indices.push_back(i);
          cleared_.push_back(i);
          if (p < m.r_len) {
            m.touched = true;
            m.first_stop = std::min(m.first_stop, p);
          }
        }
        if (run) {
          starters_.push_back(i);
          m.touched = true;
          m.last_run = std::max(m.last_run, p + 1);
        }
      };
      if (count >= m.r_need && held_other_ == 0) {
        count -= static_cast<int>(m.r_need);
      } else {
        for (size_t p = 0; p < m.r_len; ++p) visit(p);
      }
      const size_t size = q.size();
      size_t p = m.r_len;
      if (count >= min_need(m)) {
        for (; p < size && count > 0; ++p) visit(p);
      }
      for (p = std::max(p, m.old_len); p < size; ++p)
        if (is_running[q[p].id]) visit(p);
    }
  }

  // Smallest request in W and the new entries (a lower bound when it is kBuckets - 1 or more).
  int min_need(const QueueSplit& m) const {
    for (int b = 1; b < kBuckets; ++b)
      if (m.hist[b] > 0) return b;
    return std::numeric_limits<int>::max();
  }
  static int bucket(int need) { return std::min(need, kBuckets - 1); }

  // Step 6 in split mode: moves the jobs that run in front of the waiting ones, keeping their order,
  // over the part of the queue that can have changed: from the first job of R that stopped to the
  // last job after R that runs.
  void partition_split(size_t qi, std::span<Placement> out) {
    auto& q = queues_[qi];
    QueueSplit& m = split_of_[qi];
    if (m.touched) {
      const size_t a = m.first_stop, b = std::max(m.r_len, m.last_run);
      scratch_.clear();
      size_t k = a;
      for (size_t p = a; p < b; ++p) {
        const Entry& e = q[p];
        const bool runs = !out[state_[e.id].index].empty();
        const bool was_r = p < m.r_len;
        if (runs && !was_r) {
          m.r_need += e.need;
          --m.hist[bucket(e.need)];
        } else if (!runs && was_r) {
          m.r_need -= e.need;
          ++m.hist[bucket(e.need)];
        }
        if (runs)
          q[k++] = e;
        else
          scratch_.push_back(e);
      }
      std::copy(scratch_.begin(), scratch_.end(), q.begin() + static_cast<long>(k));
      m.r_len = k;
    }
    m.old_len = q.size();
  }

  // After a fast decision: the jobs that stopped leave running_ (and count waiting time from the
  // next decision if they have run), those that started join it, and the running jobs whose queue
  // changed get their crossing time again.
  void after_fast(std::span<const JobView> jobs, std::span<Placement> out, double now) {
    for (int i : cleared_) {
      if (!out[i].empty()) continue;  // restarted on a new placement
      const int id = ids_[i];
      if (state_[id].rpos < 0) continue;
      r_remove(id);
      const JobState& st = state_[id];
      const double executed_s = jobs[i].executed_s - st.executed_offset_s;
      if (executed_s > 0) w_add(id, executed_s);
    }
    for (int i : starters_) {
      if (out[i].empty()) continue;
      const int id = ids_[i];
      JobState& st = state_[id];
      if (st.wpos >= 0) w_remove(id);
      if (st.rpos < 0) {
        st.rpos = static_cast<int>(running_.size());
        running_.push_back(id);
      }
      r_due_.set(id, key(now, st, jobs[i].executed_s - st.executed_offset_s));
      set_held(id, placement_gpus(out[i]) == st.need ? 1 : 2);  // the placement held from now on
    }
    for (const Move& mv : moves_) {
      const JobState& st = state_[mv.id];
      if (mv.to >= 0 && st.rpos >= 0) r_due_.set(mv.id, key(now, st, jobs[st.index].executed_s - st.executed_offset_s));
    }
  }

  void set_held(int id, char held) {
    held_other_ += (held == 2) - (is_running_[id] == 2);
    is_running_[id] = held;
  }

  void remember_fast(double now, std::span<const JobView> jobs) {
    constexpr double inf = std::numeric_limits<double>::infinity();
    // The earliest crossing among the running jobs: only those whose crossing time noted at start
    // is within two margins of the smallest can be it; theirs is computed again exactly, as a scan
    // of every running job would.
    double next = inf;
    const double r_lo = r_due_.min();
    if (r_lo < inf) {
      r_due_.for_each_upto(r_lo + 2 * margin(r_lo), [&](int id) {
        const JobState& st = state_[id];
        next = std::min(next, crossing_s(now, st, jobs[st.index].executed_s - st.executed_offset_s));
      });
    }
    // The earliest promotion: now + the smallest gap (now + x grows with x), among the waiting jobs
    // whose promotion time noted when they stopped is near the smallest (a gap exceeds the waiting
    // time that promotes by at most w_slack_s_).
    const double w_lo = w_due_.min();
    if (w_lo < inf) {
      double gap = inf;
      const double* g = w_gap_.data();
      const double* pend = w_pend_.data();
      w_due_.for_each_upto(w_lo + 2 * margin(w_lo) + w_slack_s_, [&](int id) {
        const int k = state_[id].wpos;
        gap = std::min(gap, g[k] - pend[k]);
      });
      if (gap < inf) next = std::min(next, now + gap);
    }
    set_wakeup(now, next, inf);
  }

  void w_add(int id, double executed_s) {
    JobState& st = state_[id];
    st.wpos = static_cast<int>(w_id_.size());
    w_id_.push_back(id);
    w_pend_.push_back(st.pending_s);
    const bool eligible = promote_knob_ > 0 && st.queue > 0;
    const double limit = executed_s * promote_knob_;
    w_lim_.push_back(eligible ? slack_below(limit) : std::numeric_limits<double>::infinity());
    w_gap_.push_back(eligible ? limit : std::numeric_limits<double>::infinity());
    if (eligible) {
      // Its waiting time grows by the time between decisions from now (the last check) on.
      w_due_.set(id, last_check_s_ + (w_lim_.back() - st.pending_s));
      w_slack_s_ = std::max(w_slack_s_, limit - w_lim_.back());
    }
  }

  void w_remove(int id) {
    JobState& st = state_[id];
    const size_t k = static_cast<size_t>(st.wpos), last = w_id_.size() - 1;
    st.pending_s = w_pend_[k];
    if (k != last) {
      w_id_[k] = w_id_[last];
      w_pend_[k] = w_pend_[last];
      w_lim_[k] = w_lim_[last];
      w_gap_[k] = w_gap_[last];
      state_[w_id_[k]].wpos = static_cast<int>(k);
    }
    w_id_.pop_back();
    w_pend_.pop_back();
    w_lim_.pop_back();
    w_gap_.pop_back();
    w_due_.erase(id);
    st.wpos = -1;
  }

  void r_remove(int id) {
    JobState& st = state_[id];
    const size_t k = static_cast<size_t>(st.rpos), last = running_.size() - 1;
    if (k != last) {
      running_[k] = running_[last];
      state_[running_[k]].rpos = static_cast<int>(k);
    }
    running_.pop_back();
    r_due_.erase(id);
    st.rpos = -1;
    set_held(id, 0);
  }

  // Back to full scans: the waiting times go back to the job states.
  void leave_fast() {
    while (!w_id_.empty()) w_remove(w_id_.back());
    while (!running_.empty()) r_remove(running_.back());
    fast_ = false;
    split_ = false;
  }

  // Records the earliest time at which, with no arrival or completion, a decision could differ: a
  // running job reaching its queue's threshold or a waiting job reaching the promotion condition
  // (both grow one second per second). A small margin keeps the check on the safe side of rounding.
  void remember(double now, std::span<const JobView> jobs, std::span<Placement> out) {
    constexpr double inf = std::numeric_limits<double>::infinity();
    double next = inf;  // exact: for the early return
    double wake = inf;  // as tiresias.wakeup=authors asks
    const bool authors_wake = wakeup_ == Wakeup::Authors;
    const bool promote = promote_knob_ > 0;
    for (size_t i = 0; i < jobs.size(); ++i) {
      const JobState& st = state_[ids_[i]];
      if (!out[i].empty()) {
        if (st.queue < num_queues_ - 1) {
          const double executed_s = jobs[i].executed_s - st.executed_offset_s;
          next = std::min(next, crossing_s(now, st, executed_s));
          if (authors_wake) {
            // run_sim.py dlas_sim_jobs, "next_job_jump": whole seconds, and for GPU-time the limit
            // minus the executed *seconds*, divided by the GPUs with Python 2's floor division.
            const double limit = thresholds_[st.queue];
            const double authors = now + (gpu_time_ ? std::floor((limit - std::floor(executed_s)) / st.need)
                                                    : limit - std::floor(executed_s));
            if (authors > now) wake = std::min(wake, authors);  // theirs only when diff_time > 0
          }
        }
      } else if (promote && st.queue > 0) {
        const double executed_s = jobs[i].executed_s - st.executed_offset_s;
        if (executed_s > 0) {
          next = std::min(next, now + (executed_s * promote_knob_ - st.pending_s));
          if (authors_wake) {
            const double authors = now + std::floor(executed_s * promote_knob_ - st.pending_s);
            if (authors > now) wake = std::min(wake, authors);
          }
        }
      }
    }
    set_wakeup(now, next, wake);
  }

  // `next`: the earliest exact queue change; `authors_wake`: that of tiresias.wakeup=authors.
  void set_wakeup(double now, double next, double authors_wake) {
    constexpr double inf = std::numeric_limits<double>::infinity();
    switch (wakeup_) {
      case Wakeup::Exact:
        next_jump_s_ = next;
        break;
      case Wakeup::WholeSeconds:
        // The rounding below is monotone, so the earliest rounded crossing is the rounded earliest.
        if (std::isfinite(next)) {
          double t = std::ceil(slack_below(next));
          if (t <= now) t = std::floor(now) + 1;
          next_jump_s_ = t;
        } else {
          next_jump_s_ = inf;
        }
        break;
      case Wakeup::Authors:
        next_jump_s_ = authors_wake;
        break;
      case Wakeup::None:
        next_jump_s_ = inf;
        break;
    }
    next_change_s_ = next - 1e-6 * std::max(1.0, std::fabs(next));
  }

  void move(int id, int to) {
    JobState& st = state_[id];
    remove_entry(id);
    append(static_cast<size_t>(to), {id, st.need});
    st.queue = to;
  }

  int num_queues_ = 3;
  std::vector<double> thresholds_;
  double promote_knob_ = 2;
  bool gpu_time_ = true;
  bool pending_to_tail_ = true;
  PlacementKind placement_ = PlacementKind::Consolidate;
  enum class Wakeup { Exact, WholeSeconds, Authors, None } wakeup_ = Wakeup::Exact;

  std::vector<std::vector<Entry>> queues_;  // in queue order
  bool split_ = true;
  std::vector<QueueSplit> split_of_;
  double margin_s_ = 1e-8;       // margin(): the part that scales with the thresholds
  std::vector<JobState> state_;  // by job id
  unsigned long stamp_ = 0;
  std::vector<int> free_;
  const ClusterSpec* counted_cluster_ = nullptr;  // the cluster whose GPUs cluster_gpus_ counts
  int cluster_gpus_ = 0;
  int shown_gpus_ = -1;  // GPUs of the cluster of the last decision (callers without hints)
  FreeGpus pool_;
  std::vector<Entry> scratch_;
  struct Move {
    int index;  // view index: moves are made in arrival order
    int id;
    int to;  // queue, or -1: promotion
  };
  std::vector<Move> moves_;
  // Fast mode (the simulator's hints, wake-ups other than "authors"; left for good otherwise).
  bool fast_ = true;
  std::vector<int> running_;           // ids of the jobs this policy left running
  DueHeap r_due_;                      // their crossing times, as noted at start (key(); none in the last queue)
  DueHeap w_due_;                      // when the waiting jobs' promotion is due, as noted when they stopped
  double w_slack_s_ = 0;               // largest gap - limit of a waiting job (reached()'s slack)
  std::vector<char> is_running_;       // by id: 1 in running_ with its request, 2 with another count
  int held_other_ = 0;                 // running jobs whose placement is not their request
  std::vector<int> w_id_;              // waiting jobs that have run since entering queue 0: ids,
  std::vector<double> w_pend_;         // their waiting time (JobState::pending_s while here),
  std::vector<double> w_lim_;          // the waiting time that promotes them (infinite: never),
  std::vector<double> w_gap_;          // and knob x executed time (infinite: never)
  std::vector<int> starters_;          // view indices of the jobs that start, in walk order
  std::vector<int> cleared_;           // view indices of the running jobs the walk stopped
  std::vector<char> reorder_;          // per queue: a running job follows a waiting one
  std::vector<int> ids_;               // job id per view index, this decision
  std::vector<const Job*> last_jobs_;  // the jobs of the last full decision, in view order
  double last_check_s_ = 0;            // time of the last full decision
  double next_change_s_ = -std::numeric_limits<double>::infinity();
  double next_jump_s_ = std::numeric_limits<double>::infinity();  // exact time of that change
};

}  // namespace

PolicyEntry tiresias_entry() {
  return {"tiresias",
          "discretized 2D-LAS priority queues, gang, preemptive, starvation promotion (NSDI'19)",
          [](const PolicyOptions& options, const Knobs& knobs) -> std::unique_ptr<Policy> {
            return std::make_unique<TiresiasPolicy>(options, knobs);
          },
          {knob_int("tiresias.queues", 3, "number of priority queues K").range(1, 64).shown("3 (pollux profile: 2)"),
           knob_string("tiresias.thresholds", "3250,7200,18000", "increasing service thresholds (the first K-1 used)")
               .shown("3250,7200,18000 (pollux profile: 57600)"),
           knob_double("tiresias.promote_knob", 2, "starvation promotion knob; 0 turns promotion off")
               .at_least(0)
               .shown("2 (pollux and tiresias-sim profiles: 0)"),
           knob_enum("tiresias.service", "gpu-time", {"gpu-time", "time"}, "attained service: GPUs x time, or time")
               .shown("gpu-time (tiresias-sim profile: time)"),
           knob_bool("tiresias.pending_to_tail", true, "waiting jobs move behind the running jobs of their queue")
               .shown("1 (pollux profile: 0)"),
           knob_enum("tiresias.placement", "", {"consolidate", "spread", "first-fit", "most-free"},
                     "placement of starting jobs")
               .shown("--placement (pollux profile: most-free)"),
           knob_enum("tiresias.wakeup", "exact", {"exact", "whole-s", "authors", "none"},
                     "when to wake for the next demotion/promotion: at the crossing, rounded up to a whole second, "
                     "by the authors' simulator's formula, or never (decide at rounds and events only)")
               .shown("exact (tiresias-sim profile: authors)")}};
}

}  // namespace dmlkit::cluster
