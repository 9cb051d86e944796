// The seam between a scheduling policy and the world: a policy reads a view of the cluster and of
// the active jobs and returns, for the next round, each job's placement. The simulator provides the
// view, and so will the live controller; a policy never knows which one it runs on.
#pragma once
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cluster/model/cluster_spec.h"
#include "cluster/model/job.h"
#include "cluster/model/placement.h"
#include "cluster/model/ps_job.h"
#include "core/knobs.h"
#include "core/registry.h"

namespace dmlkit::cluster {

// What a policy may ask about a job's future (an oracle: only policies that are documented as
// clairvoyant, e.g. srtf, tetris, optimus-oracle, use it).
class JobOracle {
 public:
  virtual ~JobOracle() = default;
  // Remaining wall time if the job ran from now on with `gpus` GPUs on a consolidated placement
  // (no restart delay).
  virtual double remaining_time_s(int gpus) const = 0;
  // Step time (s) of one iteration with `gpus` GPUs on a packed placement (profile jobs); for
  // fixed-duration jobs, the remaining time.
  virtual double step_time_s(int gpus) const = 0;
  // Remaining iterations (profile jobs, at the job's batch size); 0 if not applicable.
  virtual double remaining_iterations() const = 0;
  // Largest useful GPU count (profile jobs: batch_size / min local batch; trace jobs: request).
  virtual int max_gpus() const = 0;
};

struct JobView {
  const Job* job = nullptr;
  Placement placement;                // current placement (empty: not running)
  double attained_gpu_s = 0;          // 2D attained service: sum over time of GPUs held
  double executed_s = 0;              // wall time holding at least one GPU
  double last_stopped_s = 0;          // when the job last stopped running (or its arrival)
  double queued_since_s = 0;          // start of the current wait (valid when not running)
  int preemptions = 0;                // times it lost its GPUs before finishing
  int restarts = 0;                   // allocation changes (including the first start)
  const JobOracle* oracle = nullptr;  // for parameter-server jobs also a PsJobMonitor: ps_monitor()
  bool running() const { return !placement.empty(); }
  int gpus() const { return placement_gpus(placement); }
};

// What a scheduler may observe about a parameter-server job (null for other jobs): the object
// behind JobView::oracle also implements PsJobMonitor (cluster/model/ps_job.h). A cast rather than a
// JobView member keeps the view of GPU jobs small (it is scanned at every decision of a trace).
inline const PsJobMonitor* ps_monitor(const JobView& v) {
  return v.oracle != nullptr ? dynamic_cast<const PsJobMonitor*>(v.oracle) : nullptr;
}

// Which outputs a policy changed (ClusterView::changes).
struct ChangeList {
  bool listed = false;       // set by the policy: out[i] == jobs[i].placement for every i not listed
  std::vector<int> indices;  // the i whose out[i] may differ, each at most once, any order
};

struct ClusterView {
  const ClusterSpec* cluster = nullptr;
  double now_s = 0;
  double round_s = 60;
  // Optional, so that a policy need not redo a full pass at every event of a long trace (the
  // simulator fills them; a caller that does not leaves the defaults). A policy may ignore them.
  // GPUs per server not held by the jobs' current placements (empty: not provided).
  std::span<const int> free_gpus;
  // True if the job list and every job's placement are those of this policy's previous call
  // (only time, and the service counters of running jobs, moved on).
  bool jobs_unchanged = false;
  // True if the job list (the same jobs in the same order) is that of this policy's previous
  // call; placements may have changed. Implied by jobs_unchanged. Lets a policy that keeps
  // per-job state skip re-matching the list after a decision that only moved jobs.
  bool same_job_list = false;
  // How the job list changed since this policy's previous call, when the caller knows it
  // (num_arrived >= 0): the previous list without the jobs at `departed` (their indices in the
  // previous list, increasing), followed by num_arrived new jobs (the last ones of the list). Lets
  // a policy admit and forget jobs without re-reading the whole list at every arrival and
  // completion.
  std::span<const int> departed;
  int num_arrived = -1;
  // If not null (cleared, listed = false), a policy may list the outputs it changed; the caller
  // then checks and applies only those.
  ChangeList* changes = nullptr;
};

// Options every policy is created with. `params` holds the policy knobs the user gave
// (`--policy-param tiresias.queues=2`); a policy reads them, typed and with their declared
// defaults, through the Knobs its factory receives (PolicyEntry::knobs declares them).
struct PolicyOptions {
  std::string profile = "default";  // "default", "pollux" or "tiresias-sim" (reference-compatible semantics)
  PlacementKind placement = PlacementKind::Consolidate;
  uint64_t seed = 1;  // the run's --seed, for policies that draw random numbers
  KnobValues params;
  // The run's context when known ("" otherwise): the experiment preset's name and its interference
  // model. Only for picking a default (e.g. the bundled model a learned policy loads, harmony.model
  // = auto); a policy must not read the ground truth through them.
  std::string experiment;
  std::string interference;
};

// Adds knobs given as "key=value" (the --policy-param flag) to `params`; throws Error naming the
// flag on a malformed entry.
void add_policy_params(KnobValues& params, const std::vector<std::string>& key_values);

class Policy {
 public:
  virtual ~Policy() = default;
  // Fills out[i] with the placement job i should have during the next round (empty = not
  // running). `jobs` holds the active (arrived, unfinished) jobs in arrival order; `out` has the
  // same size and starts as each job's current placement. A decision that exceeds a server's
  // GPUs is a bug in the policy: the simulator rejects it.
  virtual void schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) = 0;
  // Asked right after schedule() with the jobs as that decision left them: the earliest time
  // (absolute, > view.now_s) at which the policy wants to decide again even if no job arrives or
  // completes and no round falls due (e.g. Tiresias' next queue demotion or promotion); +inf for
  // none. The event-driven simulator then decides at that time (when it re-plans on events: not
  // with --no-event-replan, which decides at rounds only), so such a policy is exact at any
  // round length. Loops with fixed ticks (Pollux profile) and the live controller may ignore it.
  virtual double next_wakeup_s(const ClusterView& /*view*/, std::span<const JobView> /*jobs*/) const {
    return std::numeric_limits<double>::infinity();
  }
  // How this policy's parameter-server jobs spread parameters over their PSs ("mxnet",
  // "round-robin" or "paa"); the simulator turns it into the PS load-balance factor of their speed.
  virtual const char* ps_assignment() const { return "mxnet"; }
  // Whether the policy can schedule parameter-server jobs (WorkKind::ParameterServer); the
  // simulator refuses a PS workload with a policy that cannot.
  virtual bool handles_ps_jobs() const { return false; }
  // Whether the simulator charges its restart delay (SimConfig::restart_delay_s) when this policy
  // changes a job's placement. false: the policy's re-allocations take effect in place at no cost,
  // as in the DL2 authors' simulator, which rebuilds every allocation every slot (docs/dl2.md).
  virtual bool charges_restarts() const { return true; }
  // Whether the policy is the user's code (a Python policy file): its invalid decision (a server
  // over-filled, a job index out of range) is then bad input, a one-line error with exit status 2
  // naming the policy, the job and the server, not an internal error of dmlkit.
  virtual bool user_code() const { return false; }
};

// Builds a policy from the run's options and its declared knobs (read them in the constructor:
// the Knobs object does not outlive the call). A std::function so that an entry added at run time
// (a Python class, register_policy) can carry what it builds from.
using PolicyFactory = std::function<std::unique_ptr<Policy>(const PolicyOptions&, const Knobs&)>;

// What a policy schedules, declared in its registry entry and shown by `dmlkit cluster policies -v`.
struct PolicyTraits {
  bool gpu_jobs = true;  // GPU (all-reduce / trace / profile) jobs
  bool ps_jobs = false;  // parameter-server jobs (WorkKind::ParameterServer)
  // A policy whose PS jobs are scheduled by a separate implementation: make_policy() builds both
  // and runs `make_ps` on a parameter-server workload (with_ps_variant; a workload is one kind or
  // the other). `ps_variant` names it for the listing.
  PolicyFactory make_ps = nullptr;
  std::string ps_variant;
};

using PolicyEntry = RegistryEntry<PolicyFactory, PolicyTraits>;
using PolicyRegistry = Registry<PolicyEntry>;

// All built-in policies, in the order `dmlkit cluster policies` lists them (registry.cpp), then the
// ones registered at run time.
const PolicyRegistry& policy_registry();
// Adds a policy at run time (a Python class: python/, `--policy-file`; docs/python.md). Replaces an
// earlier run-time entry of the same name; Error for a built-in name. Call before runs start.
void register_policy(PolicyEntry entry);
// Creates a policy by name; throws Error("unknown policy 'x' (known: ...)") otherwise, and Error
// on a knob no policy declares or a value its knob does not accept.
std::unique_ptr<Policy> make_policy(const std::string& name, const PolicyOptions& options);
// Rejects (Error naming the valid ones) a knob in `params` that none of `policies` declares, or a
// bad value: every command that takes --policy-param calls it before running anything.
// `flag` names the option in the messages (default --policy-param; DL2 training's --teacher-param).
void check_policy_params(const std::vector<std::string>& policies, const KnobValues& params,
                         const std::string& flag = "");

}  // namespace dmlkit::cluster
