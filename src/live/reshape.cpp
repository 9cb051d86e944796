// Decisions -> Slurm actions (see reshape.h): uniform GPUs per node, the request cap, moves as
// stop-then-place, restarts on just-left nodes deferred.
#include "live/reshape.h"

#include <algorithm>

#include "core/error.h"

namespace dmlkit::live {

namespace cl = dmlkit::cluster;

namespace {

Alloc sorted(Alloc a) {
  std::sort(a.begin(), a.end());
  return a;
}

}  // namespace

Unexpressible parse_unexpressible(const std::string& s) {
  if (s == "wait") return Unexpressible::Wait;
  if (s == "narrow") return Unexpressible::Narrow;
  throw Error("--unexpressible: expected wait or narrow, got '" + s + "'");
}

const char* const kUnexpressibleHelp =
    "A placement Slurm cannot express (different GPU counts per node) with no uniform shape of its GPU count "
    "free: wait (the job waits for one; a count no uniform shape of the usable nodes can ever give gets the "
    "largest count that has one) or narrow (runs at once on fewer GPUs)";

namespace {

// Whether some uniform shape (k nodes x g GPUs, k * g = gpus) fits the cluster's servers when no
// job holds any GPU: the most any number of rounds of waiting can give.
bool uniform_shape_exists(const cl::ClusterSpec& cluster, int gpus) {
  for (int g = std::min(gpus, cluster.max_gpus_per_server()); g >= 1; --g) {
    if (gpus % g) continue;
    int nodes = 0;
    for (const auto& s : cluster.servers) nodes += s.gpus >= g;
    if (nodes >= gpus / g) return true;
  }
  return false;
}

}  // namespace

std::string alloc_text(const Alloc& a) {
  std::string s;
  for (const auto& [n, g] : a) s += (s.empty() ? "" : ",") + n + ":" + std::to_string(g);
  return s.empty() ? "-" : s;
}

Shape reshape_uniform(const cl::ClusterSpec& cluster, const cl::Placement& decided, int cap_gpus,
                      std::vector<int>& free_gpus, Unexpressible unexpressible) {
  const int num_servers = cluster.num_servers();
  std::vector<int> own(num_servers, 0);
  std::vector<int> servers;  // the policy's, in its order
  int total = 0, min_g = 0, max_g = 0;
  for (const auto& sl : decided) {
    if (sl.gpus <= 0 || sl.server < 0 || sl.server >= num_servers) continue;
    if (own[sl.server] == 0) servers.push_back(sl.server);
    own[sl.server] += sl.gpus;
    total += sl.gpus;
  }
  Shape shape;
  if (total == 0) return shape;
  for (int s : servers) {
    min_g = min_g == 0 ? own[s] : std::min(min_g, own[s]);
    max_g = std::max(max_g, own[s]);
  }
  std::vector<int> taken(num_servers, 0);
  const int goal = std::min(total, cap_gpus);
  if (goal == total && min_g == max_g) {
    for (int s : servers) taken[s] = own[s];
  } else {
    // A uniform shape of `gpus` GPUs on free GPUs, the policy's servers first.
    auto try_shape = [&](int gpus) {
      for (int g = std::min(gpus, cluster.max_gpus_per_server()); g >= 1; --g) {
        if (gpus % g) continue;
        const int k = gpus / g;
        std::vector<int> pick;
        for (int s : servers)
          if (free_gpus[s] + own[s] >= g && static_cast<int>(pick.size()) < k) pick.push_back(s);
        std::vector<int> others;
        for (int s = 0; s < num_servers; ++s)
          if (!own[s] && free_gpus[s] >= g) others.push_back(s);
        std::stable_sort(others.begin(), others.end(), [&](int a, int b) { return free_gpus[a] > free_gpus[b]; });
        for (int s : others)
          if (static_cast<int>(pick.size()) < k) pick.push_back(s);
        if (static_cast<int>(pick.size()) == k) {
          for (int s : pick) taken[s] = g;
          return std::to_string(k) + " node(s) x " + std::to_string(g) + " GPUs";
        }
      }
      return std::string();
    };
    std::string found = try_shape(goal), how = "reshaped to ", why;
    if (found.empty() && unexpressible == Unexpressible::Wait) {
      // Waiting for a count no uniform shape of the usable nodes can give would never end: the
      // largest count that has one is the goal instead (11 GPUs on 8 nodes of 4: 10 as 5 x 2).
      int reachable = goal;
      while (reachable > 0 && !uniform_shape_exists(cluster, reachable)) --reachable;
      if (reachable < goal) {
        why = " (no uniform shape of " + std::to_string(goal) + " GPUs on the usable nodes)";
        if (reachable > 0) found = try_shape(reachable);
        how = "narrowed to ";
      }
      if (found.empty() && reachable > 0) {
        shape.waits = true;
        shape.note = "waits for " + std::to_string(reachable) + " GPUs as a uniform shape (none free)" + why;
      }
    }
    const bool shaped = !found.empty();
    if (shaped) shape.note = how + found + (why.empty() ? " (uniform per node)" : why);
    if (!shaped && !shape.waits) {  // Narrow (waiting takes nothing: the decision's GPUs go back)
      int kept = 0;
      for (int s : servers)
        if ((kept + 1) * min_g <= goal) {
          taken[s] = min_g;
          ++kept;
        }
      shape.note = "narrowed to " + std::to_string(kept) + " node(s) x " + std::to_string(min_g) +
                   " GPUs (uniform per node, <= decided)";
    }
  }
  for (int s : servers)
    if (taken[s]) shape.alloc.emplace_back(cluster.servers[s].name, taken[s]);
  for (int s = 0; s < num_servers; ++s)
    if (taken[s] && !own[s]) shape.alloc.emplace_back(cluster.servers[s].name, taken[s]);
  for (int s = 0; s < num_servers; ++s) free_gpus[s] += own[s] - taken[s];
  return shape;
}

namespace {

// A restart of a job that is not running on a node it was just requeued from must wait.
bool must_wait(const PlanJob& job, const Alloc& want, double wall_s) {
  if (job.running || want.empty() || wall_s >= job.requeue_ready_wall_s) return false;
  for (const auto& w : want)
    if (std::find(job.requeued_nodes.begin(), job.requeued_nodes.end(), w.first) != job.requeued_nodes.end())
      return true;
  return false;
}

// The job keeps `current` instead of its decision `decided` if current's GPUs are free of the
// other decisions; then free_gpus gives back the decision's GPUs and takes current's.
bool keeps(const cl::ClusterSpec& cluster, const cl::Placement& decided, const Alloc& current,
           std::vector<int>& free_gpus) {
  const int num_servers = cluster.num_servers();
  std::vector<int> after = free_gpus;
  for (const auto& sl : decided)
    if (sl.server >= 0 && sl.server < num_servers) after[sl.server] += sl.gpus;
  for (const auto& [node, g] : current) {
    int s = 0;
    while (s < num_servers && cluster.servers[s].name != node) ++s;
    if (s == num_servers || after[s] < g) return false;
    after[s] -= g;
  }
  free_gpus = std::move(after);
  return true;
}

}  // namespace

std::vector<PlannedAction> plan_actions(const cl::ClusterSpec& cluster, std::span<const PlanJob> jobs,
                                        std::span<const cl::Placement> decided, double wall_s,
                                        Unexpressible unexpressible) {
  const int num_servers = cluster.num_servers();
  std::vector<int> free_gpus(num_servers);
  for (int s = 0; s < num_servers; ++s) free_gpus[s] = cluster.servers[s].gpus;
  for (const auto& p : decided)
    for (const auto& sl : p)
      if (sl.server >= 0 && sl.server < num_servers) free_gpus[sl.server] -= sl.gpus;
  std::vector<PlannedAction> actions;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const PlanJob& job = jobs[i];
    const bool holds = !job.current.empty() && (job.running || job.released);
    if (holds && !job.kept_decision.empty() && decided[i] == job.kept_decision &&
        keeps(cluster, decided[i], job.current, free_gpus))
      continue;
    Shape shape = reshape_uniform(cluster, decided[i], job.cap_gpus, free_gpus, unexpressible);
    // The new decision waits for a uniform shape (its GPUs went back to free_gpus): meanwhile the
    // job keeps what it has, unless another decision takes those GPUs (then it is stopped and waits
    // pending).
    if (shape.waits && holds && keeps(cluster, {}, job.current, free_gpus)) continue;
    const Alloc& cur = job.current;
    if (sorted(shape.alloc) == sorted(cur)) continue;  // also: neither had GPUs
    PlannedAction a;
    a.job = i;
    if (must_wait(job, shape.alloc, wall_s)) {
      a.kind = PlannedAction::Kind::Defer;
      a.start = std::move(shape.alloc);
      a.note = "restart on " + alloc_text(a.start) + " once the requeue has settled";
      actions.push_back(std::move(a));
      continue;
    }
    a.stop = !cur.empty() && (job.running || job.released);
    a.start = std::move(shape.alloc);
    a.note = std::move(shape.note);
    if (a.start.empty()) {
      a.kind = PlannedAction::Kind::Stop;
    } else if (job.running) {
      // `scontrol requeuehold` returns before Slurm has finished the requeue, and a job updated
      // and released in between is held again by it with a ~2 min BeginTime. So a move is a
      // preemption now and a placement at the round right after Slurm shows the job held.
      a.kind = PlannedAction::Kind::Restart;
      a.note = "restart on " + alloc_text(a.start) + (a.note.empty() ? "" : " (" + a.note + ")") + " once requeued";
    } else {
      a.kind = PlannedAction::Kind::Start;
    }
    actions.push_back(std::move(a));
  }
  return actions;
}

}  // namespace dmlkit::live
