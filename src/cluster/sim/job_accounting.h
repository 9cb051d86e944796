// The bookkeeping a policy reads about a job's history (the service fields of cluster::JobView:
// attained GPU-seconds, executed time, preemptions, restarts, last stopped, queued since), written
// in one place and used by both worlds that run policies: the simulator (sim/sim_core.cpp) and the
// live controller on Slurm (live/controller.cpp). Both report the same three kinds of fact --
// "the job held G GPUs for T seconds", "it (re)started on a placement", "it lost its GPUs at t" --
// so a policy sees the same numbers for the same history in simulation and on a real cluster.
// Header-only: credit() runs in the simulator's inner loop.
#pragma once

#include "cluster/policy.h"

namespace dmlkit::cluster {

struct JobAccount {
  double attained_gpu_s = 0;  // sum over time of GPUs held (2D attained service, Tiresias)
  double executed_s = 0;      // time holding at least one GPU (restart delay included)
  double last_stopped_s = 0;  // arrival, or when the job last lost its GPUs
  double queued_since_s = 0;  // start of the current wait (arrival, or the last stop)
  int preemptions = 0;        // times it lost its GPUs before finishing
  int restarts = 0;           // starts on a new non-empty placement (the first start too)

  // A job that arrives at arrival_s starts waiting then.
  static JobAccount arrived_at(double arrival_s) {
    JobAccount a;
    a.last_stopped_s = arrival_s;
    a.queued_since_s = arrival_s;
    return a;
  }
  // The job held `gpus` GPUs for `held_s` seconds.
  void credit(double held_s, int gpus) {
    executed_s += held_s;
    attained_gpu_s += held_s * gpus;
  }
  // The job (re)started on a new non-empty placement.
  void started() { ++restarts; }
  // The job lost its GPUs at now_s (preempted, moved through a stop, or its node failed).
  void stopped(double now_s) {
    ++preemptions;
    last_stopped_s = now_s;
    queued_since_s = now_s;
  }
  // Writes the service fields of a policy's view (job, placement and oracle are the caller's).
  void fill(JobView& v) const {
    v.attained_gpu_s = attained_gpu_s;
    v.executed_s = executed_s;
    v.last_stopped_s = last_stopped_s;
    v.queued_since_s = queued_since_s;
    v.preemptions = preemptions;
    v.restarts = restarts;
  }
  // Only the fields that change while a job runs (attained service and executed time).
  void fill_service(JobView& v) const {
    v.attained_gpu_s = attained_gpu_s;
    v.executed_s = executed_s;
  }
};

}  // namespace dmlkit::cluster
