// The advantage actor-critic update shared by the learned schedulers (DL2's learner,
// cluster/train/dl2_train.cpp; Harmony's, cluster/train/harmony_train.cpp): from a batch of
// (state, action mask, action, target, importance weight) it computes each row's advantage
//   A = (target - b(s)) * weight,  b(s) = V(s) from the critic, or without a critic the batch's
//   mean target ([A] ours: the value-network-off ablation of Harmony's deep-dive study),
// and adds to the trainers' gradients the actor loss -mean(log pi(a|s) A) + beta mean(pi log pi)
// (pi the masked, renormalised softmax) and the critic loss mean (V(s) - target)^2. The caller
// then applies Adam (MlpTrainerEngine::step), so gradients of several batches can be averaged.
// Also the discounted returns of a reward sequence (Monte-Carlo targets).
#pragma once
#include <functional>
#include <vector>

#include "learn/mlp.h"
#include "learn/torch_plugin.h"

namespace dmlkit::learn {

struct ActorCriticBatch {
  int state_size = 0;
  int actions = 0;
  std::vector<float> states;           // rows x state_size
  std::vector<unsigned char> masks;    // rows x actions
  std::vector<int> taken;              // rows
  std::vector<float> targets;          // rows
  std::vector<double> weights;         // rows (importance weights; 1 without prioritised replay)
  int rows() const { return static_cast<int>(taken.size()); }
  void reset(int state_size_, int actions_);
  void add(const float* state, const unsigned char* mask, int action, float target, double weight = 1.0);
};

struct ActorCriticStats {
  double policy_loss = 0;
  double value_loss = 0;  // 0 without a critic
  double entropy = 0;     // mean pi log pi (negative entropy)
  double mean_abs_advantage = 0;
};

// `value` (the critic's current weights, for V(s)) and `value_trainer` are both set or both null.
// abs_errors, if not null, receives |target - b(s)| per row (DL2's new replay priorities).
// `standardize`: the batch's advantages are divided by their standard deviation (plus 1e-8) before
// the actor loss (Harmony's option; DL2 never sets it); `center` [A]: the batch's mean advantage is
// subtracted first (normalize_advantages).
ActorCriticStats add_actor_critic_gradients(const ActorCriticBatch& batch, MlpTrainerEngine& policy,
                                            MlpTrainerEngine* value_trainer, MlpForward* value,
                                            double entropy_weight, std::vector<double>* abs_errors = nullptr,
                                            bool standardize = false, bool center = false);

// The same with any critic: `baseline(state)` gives V(s) (empty: the batch's mean target, no critic;
// then value_trainer must be null). Used by networks that do not run on MlpForward (learn/attn_net.h).
ActorCriticStats add_actor_critic_gradients(const ActorCriticBatch& batch, MlpTrainerEngine& policy,
                                            MlpTrainerEngine* value_trainer,
                                            const std::function<double(const float*)>& baseline,
                                            double entropy_weight, std::vector<double>* abs_errors = nullptr,
                                            bool standardize = false, bool center = false);

// A batch's advantages in place: `center` subtracts their mean (so they sum to 0: the actor step
// pushes up the better half of the batch's actions and down the worse, whatever the critic's bias),
// then `standardize` divides them by their standard deviation (plus 1e-8). A batch of one row is
// left as it is.
void normalize_advantages(std::vector<float>& adv, bool center, bool standardize);

// G_t = r_t + gamma G_{t+1} over the sequence (G after the last = 0).
std::vector<double> discounted_returns(const std::vector<double>& rewards, double gamma);

}  // namespace dmlkit::learn
