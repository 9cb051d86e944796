// The pure step between a policy's decision and Slurm: it turns the placements a policy returned
// for one round into the actions the controller applies (stop, place + release, or wait), with no
// Slurm call and no state of its own, so it is tested directly (tests/live/reshape_test.cpp).
//
// Slurm runs one GPU count on every node of a job. A placement with different counts per server
// (4+2) is reshaped to the same total with a uniform count (3+3, or 2+2+2) on servers that have the
// GPUs free after every other decision, preferring the policy's servers. If no such shape is free,
// what happens is the Unexpressible knob: the job waits for one (default) or is narrowed to the
// smallest count on each of its servers. Either way a job never gets more GPUs than decided in
// total nor more than its request (cap).
#pragma once
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cluster/model/cluster_spec.h"
#include "cluster/model/placement.h"

namespace dmlkit::live {

using Alloc = std::vector<std::pair<std::string, int>>;  // (node, GPUs on it)

// [A] What a decision Slurm cannot express (different GPU counts per node) becomes when no uniform
// shape of its GPU count is free this round (`--unexpressible`, docs/live-mode.md):
//   Wait:   the job gets no GPUs until such a shape is free (a pending job stays pending; a running
//           or released one keeps what it has if its GPUs are free of the other decisions, else it
//           is stopped), and a running job whose decision did not change is never reshaped again.
//           A GPU count no uniform shape of the usable cluster can give even when empty (5 GPUs on
//           2 nodes of 4, 11 on 8 nodes of 4) would wait forever: such a job gets the largest count
//           that has one instead (4 as 1 x 4, 10 as 5 x 2), or waits for it if it is not free.
//   Narrow: the job runs at once on fewer GPUs (the smallest count on each of its servers), and is
//           reshaped again at every round (the behaviour before 2026-12-03).
enum class Unexpressible { Wait, Narrow };
// "wait" / "narrow"; throws Error for anything else.
Unexpressible parse_unexpressible(const std::string& s);
// The help text of `--unexpressible` (cluster serve and cluster replay).
extern const char* const kUnexpressibleHelp;

// "node1:2,node2:2" ("-" if empty).
std::string alloc_text(const Alloc& a);

// One job's decision made expressible in Slurm. `free_gpus` (per server of `cluster`: GPUs not
// taken by any decision of this round) is updated for what the job gives back or takes in addition.
struct Shape {
  Alloc alloc;         // empty: the job is given no GPUs
  std::string note;    // "" if the decision was taken as it is
  bool waits = false;  // Unexpressible::Wait and no uniform shape free: alloc is empty
};
Shape reshape_uniform(const cluster::ClusterSpec& cluster, const cluster::Placement& decided, int cap_gpus,
                      std::vector<int>& free_gpus, Unexpressible unexpressible = Unexpressible::Wait);

// What the planner needs to know about one job.
struct PlanJob {
  int cap_gpus = 0;       // never more GPUs than this (the user's Slurm request)
  bool running = false;   // Slurm runs it now, on `current`
  bool released = false;  // pending, released by the controller on `current`
  Alloc current;          // its running allocation or released decision (empty: neither)
  // The policy's decision `current` was placed for, when that is not `current` itself: a PS job's
  // tasks (which Slurm runs as `current`), and with Unexpressible::Wait any job's reshaped decision
  // (4+2+2 running as 2x4); empty otherwise. A decision equal to it keeps `current` as it is (if its
  // GPUs are still free of other decisions): the policy did not change its mind, so the job is not
  // reshaped again, and never moved by the reshaping alone.
  cluster::Placement kept_decision;
  // Nodes it was requeued from and until when (wall s) a restart on them must wait: slurmd refuses
  // to launch a job in the same second its previous run there was killed.
  std::vector<std::string> requeued_nodes;
  double requeue_ready_wall_s = 0;
};

struct PlannedAction {
  enum class Kind {
    Stop,     // requeuehold a running job / hold a released one; nothing to start
    Start,    // place + release on `start` (a released job is held first: a move)
    Restart,  // a running job moves: requeuehold now, place at the round after Slurm shows it held
    Defer,    // restart on nodes it just left: no action now, a round follows once they settle
  };
  size_t job = 0;  // index into the jobs given
  Kind kind = Kind::Start;
  bool stop = false;  // a stop comes first (requeuehold or hold)
  Alloc start;        // Start: where to place it; Restart: where the policy wants it
  std::string note;
};

// The actions for one round: `decided[i]` is the policy's placement of `jobs[i]` on `cluster` (the
// servers' GPUs are those usable this round). Jobs whose decision equals what they have get no
// action. Deterministic; in job order.
std::vector<PlannedAction> plan_actions(const cluster::ClusterSpec& cluster, std::span<const PlanJob> jobs,
                                        std::span<const cluster::Placement> decided, double wall_s,
                                        Unexpressible unexpressible = Unexpressible::Wait);

}  // namespace dmlkit::live
