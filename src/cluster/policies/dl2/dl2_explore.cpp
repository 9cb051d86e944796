// DL2's job-aware exploration; see dl2_explore.h.
#include "cluster/policies/dl2/dl2_explore.h"

#include <algorithm>

namespace dmlkit::cluster {

namespace {
constexpr double kMinProb = 1e-20;  // MIN_ACTION_PROB_FOR_SKIP
}

void dl2_explore_begin_slot(const Dl2ExploreConfig& cfg, Dl2ExploreState& st, Rng& rng) {
  st.ps_worker_ratio = static_cast<int>(rng.uniform_int(3, std::max(3, cfg.code_ratio_max)));
}

namespace {

int code_rules(const Dl2ExploreConfig& cfg, const Dl2Slot& slot, const unsigned char* mask,
               const std::vector<double>& probs, int action, Dl2ExploreState& st, Rng& rng) {
  const int L = slot.shape().window;
  auto allowed = [&](int a) { return mask[a] != 0 && probs[a] > kMinProb; };
  auto chance = [&](double p) { return rng.uniform() < p * cfg.override_scale; };
  // 1. balance
  int tmax = 0, tmin = 1 << 30, jmin = -1;
  for (int c = 0; c < L; ++c) {
    const int j = slot.window_job(c);
    if (j < 0) continue;
    const int t = slot.workers(j) + slot.ps(j);
    tmax = std::max(tmax, t);
    if (t < tmin) {
      tmin = t;
      jmin = c;
    }
  }
  if (jmin >= 0 && tmin > 0 && tmax / tmin > rng.uniform_int(3, 5)) {
    if (allowed(3 * jmin + 2) && allowed(3 * jmin)) action = chance(0.5) ? 3 * jmin + 2 : 3 * jmin;
  }
  // 2. scan
  const long total = st.kind_count[0] + st.kind_count[1] + st.kind_count[2];
  const long least = std::min({st.kind_count[0], st.kind_count[1], st.kind_count[2]});
  const int rare = static_cast<int>(std::min_element(st.kind_count, st.kind_count + 3) - st.kind_count);
  for (int c = 0; c < L; ++c) {
    const int j = slot.window_job(c);
    if (j < 0) continue;
    const int w = slot.workers(j), p = slot.ps(j);
    if (least > 0 && static_cast<double>(least) / static_cast<double>(total) < 0.001 && allowed(3 * c + rare)) {
      action = 3 * c + rare;
      break;
    }
    if (w == 0 || p == 0) {
      if (w == 0 && p == 0 && allowed(3 * c + 2) && chance(0.5)) action = 3 * c + 2;
      if (w == 0 && allowed(3 * c)) action = 3 * c;
      if (p == 0 && mask[3 * c + 1] != 0 && probs[3 * c] > kMinProb) action = 3 * c + 1;  // [C] checks 3c's prob
      break;
    }
    if (p > w * st.ps_worker_ratio) {
      if (chance(0.5)) {
        if (allowed(3 * c + 2) && allowed(3 * c)) {
          action = rng.uniform() < 0.5 ? 3 * c + 2 : 3 * c;
          break;
        }
      }
    } else if (2 * w >= p && chance(0.5)) {
      if (allowed(3 * c + 2) && allowed(3 * c + 1)) {
        action = rng.uniform() < 0.01 ? 3 * c + 2 : 3 * c + 1;
        break;
      }
    }
  }
  return action;
}

int paper_rules(const Dl2ExploreConfig& cfg, const Dl2Slot& slot, const unsigned char* mask, int action, Rng& rng) {
  if (!(rng.uniform() < cfg.paper_epsilon)) return action;
  for (int c = 0; c < slot.shape().window; ++c) {
    const int j = slot.window_job(c);
    if (j < 0) continue;
    const int w = slot.workers(j), p = slot.ps(j);
    int want = -1;
    if (w > 0 && p == 0)
      want = 3 * c + 1;
    else if (p > 0 && w == 0)
      want = 3 * c;
    else if (w > 0 && p > 0 && static_cast<double>(w) / p > cfg.paper_ratio)
      want = 3 * c + 1;
    else if (w > 0 && p > 0 && static_cast<double>(p) / w > cfg.paper_ratio)
      want = 3 * c;
    if (want >= 0 && mask[want] != 0) return want;
  }
  return action;
}

}  // namespace

int dl2_explore(const Dl2ExploreConfig& cfg, const Dl2Slot& slot, const unsigned char* mask,
                const std::vector<double>& probs, int sampled, Dl2ExploreState& st, Rng& rng) {
  int action = sampled;
  if (cfg.mode == Dl2Exploration::Code)
    action = code_rules(cfg, slot, mask, probs, sampled, st, rng);
  else if (cfg.mode == Dl2Exploration::Paper)
    action = paper_rules(cfg, slot, mask, sampled, rng);
  ++st.decisions;
  if (action != sampled) ++st.overrides;
  if (action != slot.shape().void_action()) ++st.kind_count[action % 3];
  return action;
}

}  // namespace dmlkit::cluster
