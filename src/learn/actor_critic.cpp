// The advantage actor-critic update; see actor_critic.h.
#include "learn/actor_critic.h"

#include <cmath>

#include "core/error.h"

namespace dmlkit::learn {

void ActorCriticBatch::reset(int state_size_, int actions_) {
  state_size = state_size_;
  actions = actions_;
  states.clear();
  masks.clear();
  taken.clear();
  targets.clear();
  weights.clear();
}

void ActorCriticBatch::add(const float* state, const unsigned char* mask, int action, float target, double weight) {
  states.insert(states.end(), state, state + state_size);
  masks.insert(masks.end(), mask, mask + actions);
  taken.push_back(action);
  targets.push_back(target);
  weights.push_back(weight);
}

ActorCriticStats add_actor_critic_gradients(const ActorCriticBatch& b, MlpTrainerEngine& policy,
                                            MlpTrainerEngine* value_trainer, MlpForward* value,
                                            double entropy_weight, std::vector<double>* abs_errors,
                                            bool standardize, bool center) {
  if ((value == nullptr) != (value_trainer == nullptr))
    throw Error("", 0, "critic", "a critic needs both its weights and its trainer");
  std::function<double(const float*)> baseline;
  if (value != nullptr) baseline = [value](const float* s) { return static_cast<double>(value->run(s)[0]); };
  return add_actor_critic_gradients(b, policy, value_trainer, baseline, entropy_weight, abs_errors, standardize, center);
}

ActorCriticStats add_actor_critic_gradients(const ActorCriticBatch& b, MlpTrainerEngine& policy,
                                            MlpTrainerEngine* value_trainer,
                                            const std::function<double(const float*)>& baseline,
                                            double entropy_weight, std::vector<double>* abs_errors,
                                            bool standardize, bool center) {
  const int n = b.rows();
  if (n == 0) throw Error("", 0, "batch", "empty actor-critic batch");
  if (!baseline && value_trainer != nullptr)
    throw Error("", 0, "critic", "a critic needs both its weights and its trainer");
  double mean_target = 0;
  if (!baseline) {
    for (float t : b.targets) mean_target += t;
    mean_target /= n;
  }
  std::vector<float> adv(n);
  if (abs_errors != nullptr) abs_errors->resize(n);
  ActorCriticStats s;
  for (int k = 0; k < n; ++k) {
    const double base = baseline ? baseline(b.states.data() + static_cast<size_t>(k) * b.state_size) : mean_target;
    const double td = b.targets[k] - base;
    if (abs_errors != nullptr) (*abs_errors)[k] = std::abs(td);
    adv[k] = static_cast<float>(td * b.weights[k]);
  }
  normalize_advantages(adv, center, standardize);
  for (float v : adv) s.mean_abs_advantage += std::abs(v) / n;
  const LossStats p = policy.add_policy_gradient(b.states.data(), n, b.masks.data(), b.taken.data(), adv.data(),
                                                 entropy_weight);
  s.policy_loss = p.loss;
  s.entropy = p.entropy;
  if (value_trainer != nullptr) s.value_loss = value_trainer->add_value_gradient(b.states.data(), n, b.targets.data()).loss;
  return s;
}

void normalize_advantages(std::vector<float>& adv, bool center, bool standardize) {
  const int n = static_cast<int>(adv.size());
  if (n < 2 || !(center || standardize)) return;
  // The arithmetic of the standardisation alone is kept as it was (trainings without `center`
  // reproduce their earlier runs bit for bit).
  double mean = 0, sq = 0;
  for (float v : adv) mean += v / n;
  for (float v : adv) sq += (v - mean) * (v - mean) / n;
  const double sd = standardize ? std::sqrt(sq) + 1e-8 : 1.0;
  if (center) {
    for (float& v : adv) v = static_cast<float>((v - mean) / sd);
  } else {
    for (float& v : adv) v = static_cast<float>(v / sd);
  }
}

std::vector<double> discounted_returns(const std::vector<double>& rewards, double gamma) {
  std::vector<double> ret(rewards.size() + 1, 0.0);
  for (long t = static_cast<long>(rewards.size()) - 1; t >= 0; --t) ret[t] = rewards[t] + gamma * ret[t + 1];
  ret.pop_back();
  return ret;
}

}  // namespace dmlkit::learn
