// Harmony's state and actions; see harmony_state.h.
#include "cluster/policies/harmony/harmony_state.h"

#include <algorithm>
#include <limits>
#include <string>

#include "core/error.h"

namespace dmlkit::cluster {

void HarmonyShape::validate() const {
  if (servers < 1) throw Error("", 0, "harmony.servers", "must be positive");
  if (jobs < 1) throw Error("", 0, "harmony.jobs", "must be positive");
  if (new_jobs < 1 || new_jobs > jobs) throw Error("", 0, "harmony.new_jobs", "must be in 1..jobs");
  if (types < 1) throw Error("", 0, "harmony.types", "must be positive");
}

int harmony_type_index(const PsJobSpec& spec) {
  const int t = spec.harmony_type >= 0 ? spec.harmony_type : spec.type;
  return std::clamp(t, 0, kHarmonyTypes - 1);
}

HarmonyBoard::HarmonyBoard(const HarmonyShape& shape, const ClusterSpec& cluster) : shape_(shape), pool_(cluster) {
  shape_.validate();
  if (cluster.num_servers() != shape.servers)
    throw Error("", 0, "harmony.servers",
                "the model is for " + std::to_string(shape.servers) + " servers, the cluster has " +
                    std::to_string(cluster.num_servers()));
  max_cap_.assign(kResources, 0.0);
  for (int m = 0; m < shape.servers; ++m)
    for (int r = 0; r < kResources; ++r) max_cap_[r] = std::max(max_cap_[r], pool_.cap(m, r));
  d_.assign(static_cast<size_t>(shape.servers) * 2 * shape.jobs, 0);
  tc_.assign(static_cast<size_t>(shape.servers) * 2 * shape.types, 0);
}

void HarmonyBoard::count_type(int type, int m, int kind, int count) {
  if (!shape_.type_counts || m < 0 || m >= shape_.servers) return;
  tc_[static_cast<size_t>(m) * 2 * shape_.types + 2 * std::clamp(type, 0, shape_.types - 1) + kind] += count;
}

void HarmonyBoard::clear() {
  pool_.reset();
  new_.clear();
  running_.clear();
  std::fill(d_.begin(), d_.end(), 0);
  std::fill(tc_.begin(), tc_.end(), 0);
}

void HarmonyBoard::put(int slot, int m, int kind, int count) {
  d_[static_cast<size_t>(m) * 2 * shape_.jobs + 2 * slot + kind] += count;
}

int HarmonyBoard::add_running(const PsJobSpec& spec, const Placement& placement) {
  pool_.take(spec, placement);
  for (const Slice& s : placement) {
    count_type(harmony_type_index(spec), s.server, 0, s.workers);
    count_type(harmony_type_index(spec), s.server, 1, s.ps);
  }
  if (static_cast<int>(running_.size()) >= shape_.jobs - shape_.new_jobs) return -1;
  SlotJob j;
  j.spec = &spec;
  placement_counts(placement, j.ps, j.workers);
  j.placed_w = j.workers;
  j.placed_p = j.ps;
  const int slot = shape_.new_jobs + static_cast<int>(running_.size());
  running_.push_back(j);
  for (const Slice& s : placement) {
    if (s.server < 0 || s.server >= shape_.servers) continue;
    put(slot, s.server, 0, s.workers);
    put(slot, s.server, 1, s.ps);
  }
  return slot;
}

int HarmonyBoard::add_new(const PsJobSpec& spec, int workers, int ps) {
  if (static_cast<int>(new_.size()) >= shape_.new_jobs) return -1;
  SlotJob j;
  j.spec = &spec;
  j.workers = workers;
  j.ps = ps;
  new_.push_back(j);
  return static_cast<int>(new_.size()) - 1;
}

void HarmonyBoard::observe(float* s) const {
  std::fill(s, s + shape_.state_size(), 0.0f);
  auto job = [&](int slot, const SlotJob& j) {
    s[shape_.x_at() + slot * shape_.types + harmony_type_index(*j.spec)] = 1.0f;
    double wd[kResources], pd[kResources];
    demand_vector(j.spec->worker, wd);
    demand_vector(j.spec->ps, pd);
    float* r = s + shape_.r_at() + slot * 2 * kResources;
    for (int k = 0; k < kResources; ++k) {
      r[k] = max_cap_[k] > 0 ? static_cast<float>(wd[k] / max_cap_[k]) : 0.0f;
      r[kResources + k] = max_cap_[k] > 0 ? static_cast<float>(pd[k] / max_cap_[k]) : 0.0f;
    }
    s[shape_.w_at() + slot] = static_cast<float>(j.workers);
    s[shape_.p_at() + slot] = static_cast<float>(j.ps);
  };
  for (size_t n = 0; n < new_.size(); ++n)
    if (!new_[n].deferred) job(static_cast<int>(n), new_[n]);
  for (size_t i = 0; i < running_.size(); ++i) job(shape_.new_jobs + static_cast<int>(i), running_[i]);
  for (int m = 0; m < shape_.servers; ++m)
    for (int k = 0; k < kResources; ++k) {
      const double cap = pool_.cap(m, k);
      s[shape_.v_at() + m * kResources + k] = cap > 0 ? static_cast<float>(std::max(0.0, pool_.free(m, k)) / cap) : 0.0f;
    }
  float* d = s + shape_.d_at();
  for (size_t i = 0; i < d_.size(); ++i) d[i] = static_cast<float>(d_[i]);
  if (shape_.type_counts) {
    float* t = s + shape_.t_at();
    for (size_t i = 0; i < tc_.size(); ++i) t[i] = static_cast<float>(tc_[i]);
  }
}

bool HarmonyBoard::allowed(int n, int kind, int m) const {
  const SlotJob& j = new_[n];
  if (j.deferred) return false;
  if (kind == 0 ? j.placed_w >= j.workers : j.placed_p >= j.ps) return false;
  return pool_.fits(m, kind == 0 ? j.spec->worker : j.spec->ps);
}

void HarmonyBoard::mask(unsigned char* mk) const {
  std::fill(mk, mk + shape_.actions(), 0);
  for (size_t n = 0; n < new_.size(); ++n)
    for (int kind = 0; kind < 2; ++kind)
      for (int m = 0; m < shape_.servers; ++m)
        if (allowed(static_cast<int>(n), kind, m)) mk[shape_.action(static_cast<int>(n), kind, m)] = 1;
  if (shape_.defer)
    for (size_t n = 0; n < new_.size(); ++n)
      if (may_defer(static_cast<int>(n))) mk[shape_.defer_action(static_cast<int>(n))] = 1;
}

bool HarmonyBoard::may_defer(int n) const {
  const SlotJob& j = new_[n];
  return shape_.defer && !j.deferred && j.placed_w == 0 && j.placed_p == 0 && (j.workers > 0 || j.ps > 0);
}

bool HarmonyBoard::any_action() const {
  for (size_t n = 0; n < new_.size(); ++n)
    for (int kind = 0; kind < 2; ++kind)
      for (int m = 0; m < shape_.servers; ++m)
        if (allowed(static_cast<int>(n), kind, m)) return true;
  for (size_t n = 0; n < new_.size(); ++n)
    if (may_defer(static_cast<int>(n))) return true;
  return false;
}

void HarmonyBoard::apply(int a) {
  if (shape_.defer && shape_.is_defer(a)) {
    const int n = a - shape_.place_actions();
    if (n >= static_cast<int>(new_.size()) || !may_defer(n))
      throw Error("harmony: action " + std::to_string(a) + " is not allowed");  // a bug in the caller
    new_[n].deferred = true;
    return;
  }
  const int n = shape_.action_job(a), kind = shape_.action_kind(a), m = shape_.action_server(a);
  if (n >= static_cast<int>(new_.size()) || !allowed(n, kind, m))
    throw Error("harmony: action " + std::to_string(a) + " is not allowed");  // a bug in the caller
  SlotJob& j = new_[n];
  pool_.add(m, kind == 0 ? j.spec->worker : j.spec->ps, 1);
  (kind == 0 ? j.placed_w : j.placed_p) += 1;
  put(n, m, kind, 1);
  count_type(harmony_type_index(*j.spec), m, kind, 1);
}

int HarmonyBoard::heuristic_action(HarmonyHeuristic h) const {
  for (size_t n = 0; n < new_.size(); ++n) {
    const SlotJob& j = new_[n];
    if (j.placed_w >= j.workers && j.placed_p >= j.ps) continue;
    // The next task keeps the counts proportional to the request; if that kind fits nowhere, the other.
    int first = j.placed_p >= j.ps ? 0 : j.placed_w >= j.workers ? 1 : (next_task_is_ps(*j.spec, j.placed_p, j.placed_w) ? 1 : 0);
    for (int kind : {first, 1 - first}) {
      int best = -1;
      double best_v = std::numeric_limits<double>::infinity();
      for (int m = 0; m < shape_.servers; ++m) {
        if (!allowed(static_cast<int>(n), kind, m)) continue;
        double v = 0;
        if (h == HarmonyHeuristic::LoadBalancing) {
          v = pool_.load(m);
        } else {
          for (int k = 0; k < kResources; ++k)
            if (pool_.cap(m, k) > 0) v += pool_.free(m, k) / pool_.cap(m, k);
        }
        if (v < best_v - 1e-12) {
          best_v = v;
          best = m;
        }
      }
      if (best >= 0) return shape_.action(static_cast<int>(n), kind, best);
    }
  }
  return -1;
}

bool HarmonyBoard::complete(int n) const { return new_[n].placed_w >= new_[n].workers && new_[n].placed_p >= new_[n].ps; }

void HarmonyBoard::rollback(int n) {
  SlotJob& j = new_[n];
  for (int m = 0; m < shape_.servers; ++m) {
    const int w = workers_on(n, m), p = ps_on(n, m);
    if (w > 0) pool_.add(m, j.spec->worker, -w);
    if (p > 0) pool_.add(m, j.spec->ps, -p);
    put(n, m, 0, -w);
    put(n, m, 1, -p);
    count_type(harmony_type_index(*j.spec), m, 0, -w);
    count_type(harmony_type_index(*j.spec), m, 1, -p);
  }
  j.placed_w = j.placed_p = 0;
  j.deferred = false;
}

Placement HarmonyBoard::placement(int n) const {
  Placement p;
  for (int m = 0; m < shape_.servers; ++m) {
    const int w = workers_on(n, m), ps = ps_on(n, m);
    if (w > 0 || ps > 0) add_tasks(p, *new_[n].spec, m, w, ps);
  }
  return p;
}

int harmony_reward_input_size(const HarmonyShape& s) {
  return s.jobs * s.types + 2 * s.jobs + s.servers * 2 * s.jobs + s.type_count_size();
}

void harmony_reward_input(const HarmonyShape& s, std::span<const HarmonyPlacedJob> jobs, float* out) {
  std::fill(out, out + harmony_reward_input_size(s), 0.0f);
  const int w_at = s.jobs * s.types, p_at = w_at + s.jobs, d_at = p_at + s.jobs;
  const size_t n = std::min(jobs.size(), static_cast<size_t>(s.jobs));
  for (size_t i = 0; i < n; ++i) {
    const HarmonyPlacedJob& j = jobs[i];
    out[i * s.types + std::clamp(j.type, 0, s.types - 1)] = 1.0f;
    out[w_at + i] = static_cast<float>(j.workers);
    out[p_at + i] = static_cast<float>(j.ps);
    for (const auto& [m, c] : j.on) {
      if (m < 0 || m >= s.servers) continue;
      out[d_at + m * 2 * s.jobs + 2 * i] += static_cast<float>(c.first);
      out[d_at + m * 2 * s.jobs + 2 * i + 1] += static_cast<float>(c.second);
      if (s.type_counts) {
        const int t_at = d_at + s.servers * 2 * s.jobs, type = std::clamp(j.type, 0, s.types - 1);
        out[t_at + m * 2 * s.types + 2 * type] += static_cast<float>(c.first);
        out[t_at + m * 2 * s.types + 2 * type + 1] += static_cast<float>(c.second);
      }
    }
  }
}

HarmonyPlacedJob harmony_placed_job(const PsJobSpec& spec, const Placement& placement) {
  HarmonyPlacedJob j;
  j.type = harmony_type_index(spec);
  placement_counts(placement, j.ps, j.workers);
  for (const Slice& s : placement) j.on.push_back({s.server, {s.workers, s.ps}});
  return j;
}

}  // namespace dmlkit::cluster
