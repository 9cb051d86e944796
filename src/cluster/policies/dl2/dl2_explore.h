// DL2's job-aware exploration (Peng et al., TPDS 2021), applied while training only, after the
// action was sampled from the policy. Two versions:
//  - code: the public trainer's override rules (pengyanghua/DL2 rl_env.py RL_Env.step, the
//    INJECT_SAMPLES / JOB_RESR_BALANCE branch; spec cluster-schedulers.md 3.6):
//      1. balance: tmax, tmin = max, min over window jobs of w + p (the first job attaining tmin);
//         if tmin > 0 and floor(tmax / tmin) > U{3,4,5}: bundle or worker of that job (50/50) if
//         both are allowed;
//      2. scan the window's columns in order; the first rule that fires decides:
//         a. an action kind used < 0.1% of the time so far (each at least once): that kind here;
//         b. w == 0 or p == 0: both 0 -> bundle with probability 1/2; w == 0 -> worker; p == 0
//            -> PS (the code checks the worker action's probability for this one; kept); stop;
//         c. p > w * ratio and U < 1/2: bundle or worker (50/50) if both allowed;
//         d. w >= p / 2 and U < 1/2: PS (99%) or bundle (1%) if both allowed.
//      ratio ~ U{3..7} is drawn per slot. "Allowed" = not masked and probability > 1e-20.
//  - paper: epsilon-greedy job-aware exploration as the paper states it (second-pass.md 6.3): with
//    probability epsilon (0.4), the first window job with workers but no PS gets a PS, with PSs but
//    no workers a worker, with w/p or p/w above `ratio` (10) a task of the scarcer kind; if no job
//    qualifies the sampled action stands [A: the paper does not say what happens then].
// `override_scale` multiplies every override probability of the code rules (1 = as in the code;
// spec 3.6 caveat: rule 2d fires for most jobs) [A].
#pragma once
#include <vector>

#include "cluster/policies/dl2/dl2_slot.h"
#include "core/rng.h"

namespace dmlkit::cluster {

enum class Dl2Exploration { None, Code, Paper };

struct Dl2ExploreConfig {
  Dl2Exploration mode = Dl2Exploration::Code;
  double override_scale = 1.0;
  double paper_epsilon = 0.4;
  double paper_ratio = 10.0;
  // Code rules: the per-slot PS/worker ratio is drawn from U{3..code_ratio_max} (7 in the code,
  // VARYING_PS_WORKER_RATIO); past it, the rules add workers. [A] knob for the study of
  // reproduction-dl2.md: the measured optimum of vgg-16 has 14 PSs per worker.
  int code_ratio_max = 7;
};

// Per-episode state of the code rules (action-kind counts) and per-slot ratio.
struct Dl2ExploreState {
  long kind_count[3] = {0, 0, 0};
  int ps_worker_ratio = 5;
  long overrides = 0;  // how many sampled actions were replaced (reported)
  long decisions = 0;
};

// Draws the per-slot constants (code: ratio ~ U{3..code_ratio_max}).
void dl2_explore_begin_slot(const Dl2ExploreConfig& cfg, Dl2ExploreState& st, Rng& rng);

// Returns the action to take instead of `sampled` (or `sampled`).
int dl2_explore(const Dl2ExploreConfig& cfg, const Dl2Slot& slot, const unsigned char* mask,
                const std::vector<double>& probs, int sampled, Dl2ExploreState& st, Rng& rng);

}  // namespace dmlkit::cluster
