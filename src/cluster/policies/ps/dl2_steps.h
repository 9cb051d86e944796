// The single allocation steps of the DL2 simulator's heuristics (policies/ps/dl2_baselines.cpp),
// for DL2's supervised warm-up, which records every step of a teacher (pengyanghua/DL2
// scheduler_base.py Scheduler._state, called by each *_env.py _schedule).
#pragma once
#include <cstddef>

namespace dmlkit::cluster {

class Dl2StepObserver {
 public:
  virtual ~Dl2StepObserver() = default;
  // Job `job` (index into the decision's jobs) is about to get `workers` workers and `ps` PSs
  // (a bundle: 1 and 1); called once the step is known to fit, before it is applied.
  virtual void on_step(size_t job, int workers, int ps) = 0;
};

// Implemented by the DL2 heuristics: the observer (may be null) sees each of their steps.
class Dl2Teacher {
 public:
  virtual ~Dl2Teacher() = default;
  virtual void observe_steps(Dl2StepObserver* observer) = 0;
};

}  // namespace dmlkit::cluster
