// Harmony's online updates; see harmony_online.h.
#include "cluster/policies/harmony/harmony_online.h"

#include <algorithm>
#include <numeric>

#include "cluster/policies/harmony/harmony_policy.h"
#include "learn/actor_critic.h"
#include "learn/mlp_trainer.h"

namespace dmlkit::cluster {

HarmonyOnline::HarmonyOnline(const HarmonyModel& model, const HarmonyPolicyConfig& config, uint64_t seed)
    : model_(model),
      config_(config),
      rng_(Rng(seed).split(0x0471)),
      replay_(4096, model.shape.state_size(), model.shape.actions()) {
  data_.inputs = harmony_reward_input_size(model.shape);
  data_.outputs = model.shape.jobs;
}

HarmonyOnline::~HarmonyOnline() = default;

void HarmonyOnline::on_step(const float* state, const unsigned char* mask, int action) {
  pend_states_.insert(pend_states_.end(), state, state + model_.shape.state_size());
  pend_masks_.insert(pend_masks_.end(), mask, mask + model_.shape.actions());
  pend_actions_.push_back(action);
}

void HarmonyOnline::before_decision(const PlacementState& state, HarmonyPlacer& placer) {
  // 1. The reward of the interval since the last decision: normalised progress of the jobs then known.
  std::map<int, double> now;
  for (int i = 0; i < state.num_jobs(); ++i)
    if (const PsJobMonitor* m = ps_monitor(state.job(i))) now[state.job(i).job->id] = m->epochs_done();
  double reward = 0;
  for (const auto& [id, then] : snapshot_) {
    auto it = now.find(id);
    const double e = it != now.end() ? it->second : then.second;  // gone = finished
    reward += (e - then.first) / then.second;
  }
  const int d = model_.shape.state_size(), a = model_.shape.actions();
  for (size_t k = 0; k < pend_actions_.size(); ++k)
    replay_.add(pend_states_.data() + k * d, pend_masks_.data() + k * a, pend_actions_[k], static_cast<float>(reward));
  pend_states_.clear();
  pend_masks_.clear();
  pend_actions_.clear();
  snapshot_.clear();
  for (int i = 0; i < state.num_jobs(); ++i)
    if (const PsJobMonitor* m = ps_monitor(state.job(i)))
      snapshot_[state.job(i).job->id] = {m->epochs_done(), std::max(1e-9, m->spec().total_epochs)};

  // 2. A reward-model sample: the running jobs' placement and measured speeds.
  if (model_.has_reward()) {
    std::vector<HarmonyPlacedJob> jobs;
    std::vector<float> y(model_.shape.jobs, 0.0f), w(model_.shape.jobs, 0.0f);
    for (int i = 0; i < state.num_jobs() && static_cast<int>(jobs.size()) < model_.shape.jobs; ++i) {
      if (!state.running(i)) continue;
      const PsJobMonitor* m = ps_monitor(state.job(i));
      if (m == nullptr) continue;
      jobs.push_back(harmony_placed_job(state.spec(i), state.job(i).placement));
      const size_t k = jobs.size() - 1;
      y[k] = static_cast<float>(m->observed_speed() / model_.speed_scale[jobs.back().type]);
      w[k] = 1.0f;
    }
    if (!jobs.empty()) {
      std::vector<float> x(data_.inputs);
      harmony_reward_input(model_.shape, jobs, x.data());
      data_.add(x.data(), y.data(), w.data());
    }
  }

  // 3. Updates every online_every decisions.
  if (++decisions_ % config_.online_every != 0) return;
  if (model_.has_reward() && data_.rows() > 0) {
    if (!rm_) rm_ = std::make_unique<learn::RegressionTrainer>(model_.reward.shape, model_.reward.parameters, config_.online_lr);
    std::vector<size_t> rows(data_.rows());
    std::iota(rows.begin(), rows.end(), 0);
    for (int e = 0; e < config_.online_rm_epochs; ++e) rm_->epoch(data_, rows, 32, rng_);
    model_.reward.parameters = rm_->parameters();
  }
  if (replay_.size() >= 8) {
    if (!actor_) actor_ = learn::make_mlp_trainer(model_.policy.shape, model_.policy.parameters, config_.online_lr);
    if (!critic_ && model_.has_value())
      critic_ = learn::make_mlp_trainer(model_.value.shape, model_.value.parameters, config_.online_lr);
    std::unique_ptr<learn::MlpForward> vf;
    learn::ActorCriticBatch batch;
    std::vector<size_t> slots;
    for (int s = 0; s < config_.online_rl_steps; ++s) {
      if (critic_) vf = std::make_unique<learn::MlpForward>(model_.value.shape, critic_->parameters());
      replay_.sample(64, rng_, slots);
      batch.reset(d, a);
      for (size_t k : slots) batch.add(replay_.state(k), replay_.mask(k), replay_.action(k), replay_.target(k));
      learn::add_actor_critic_gradients(batch, *actor_, critic_.get(), vf.get(), config_.entropy_weight);
      actor_->step(1);
      if (critic_) critic_->step(1);
    }
    model_.policy.parameters = actor_->parameters();
    placer.set_parameters(model_.policy.parameters);
  }
  ++updates_;
}

}  // namespace dmlkit::cluster
