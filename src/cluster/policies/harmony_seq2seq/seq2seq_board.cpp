// The state of harmony-seq2seq; see seq2seq_board.h.
#include "cluster/policies/harmony_seq2seq/seq2seq_board.h"

#include <algorithm>

namespace dmlkit::cluster {

int s2s_type(const PsJobSpec& spec) { return spec.harmony_type >= 0 ? spec.harmony_type % kS2sTypes : 0; }

S2sPlacedJob s2s_placed_job(const PsJobSpec& spec, const Placement& placement) {
  S2sPlacedJob j;
  j.type = s2s_type(spec);
  j.allreduce = spec.allreduce;
  for (const Slice& s : placement) {
    if (s.workers + s.ps == 0) continue;
    j.workers += s.workers;
    j.ps += s.ps;
    j.on.push_back({s.server, {s.workers, s.ps}});
  }
  return j;
}

void s2s_reward_tokens(std::span<const S2sPlacedJob> jobs, int servers, std::vector<float>& out) {
  // Per server: tasks of each type.
  std::vector<int> type_on(static_cast<size_t>(servers) * kS2sTypes, 0);
  for (const S2sPlacedJob& j : jobs)
    for (const auto& [m, c] : j.on)
      if (m >= 0 && m < servers) type_on[static_cast<size_t>(m) * kS2sTypes + j.type] += c.first + c.second;
  out.assign(jobs.size() * kRewardFeatures, 0.0f);
  for (size_t k = 0; k < jobs.size(); ++k) {
    const S2sPlacedJob& j = jobs[k];
    float* t = out.data() + k * kRewardFeatures;
    t[j.type] = 1;
    t[kS2sTypes] = j.allreduce ? 1.0f : 0.0f;
    t[kS2sTypes + 1] = j.workers / 4.0f;
    t[kS2sTypes + 2] = j.ps / 4.0f;
    t[kS2sTypes + 3] = static_cast<float>(j.on.size()) / 4.0f;
    const int tasks = std::max(1, j.workers + j.ps);
    int most = 0, with_all_ps = 0;
    for (const auto& [m, c] : j.on) {
      most = std::max(most, std::max(c.first, c.second));
      if (j.ps > 0 && c.second == j.ps) with_all_ps += c.first;
    }
    t[kS2sTypes + 4] = most / 4.0f;                                                 // busiest server (intra)
    t[kS2sTypes + 5] = j.workers > 0 ? static_cast<float>(with_all_ps) / j.workers : 0;  // local to all PSs
    float others = 0;
    float* mean_co = t + kS2sTypes + 7;
    float* max_co = mean_co + kS2sTypes;
    for (const auto& [m, c] : j.on) {
      if (m < 0 || m >= servers) continue;
      const float share = static_cast<float>(c.first + c.second) / tasks;
      for (int y = 0; y < kS2sTypes; ++y) {
        int n = type_on[static_cast<size_t>(m) * kS2sTypes + y];
        if (y == j.type) n -= c.first + c.second;
        mean_co[y] += share * n / 4.0f;
        max_co[y] = std::max(max_co[y], n / 4.0f);
        others += share * n;
      }
    }
    t[kS2sTypes + 6] = others / 8.0f;  // other jobs' tasks beside its tasks
  }
}

Seq2SeqBoard::Seq2SeqBoard(const ClusterSpec& cluster) : cluster_(&cluster), pool_(cluster) { clear(); }

void Seq2SeqBoard::clear() {
  pool_.reset();
  jobs_.clear();
  type_on_.assign(static_cast<size_t>(servers()) * kS2sTypes, 0);
  tasks_on_.assign(static_cast<size_t>(servers()), 0);
}

int Seq2SeqBoard::add_running(const PsJobSpec& spec, const Placement& placement) {
  BoardJob j;
  j.spec = &spec;
  j.w_on.assign(static_cast<size_t>(servers()), 0);
  j.p_on.assign(static_cast<size_t>(servers()), 0);
  for (const Slice& s : placement) {
    if (s.server < 0 || s.server >= servers()) continue;
    j.w_on[s.server] += s.workers;
    j.p_on[s.server] += s.ps;
    j.placed_w += s.workers;
    j.placed_p += s.ps;
    pool_.add(s.server, spec.worker, s.workers);
    pool_.add(s.server, spec.ps, s.ps);
    type_on_[static_cast<size_t>(s.server) * kS2sTypes + s2s_type(spec)] += s.workers + s.ps;
    tasks_on_[s.server] += s.workers + s.ps;
  }
  j.want_w = j.placed_w;
  j.want_p = j.placed_p;
  jobs_.push_back(std::move(j));
  return jobs() - 1;
}

int Seq2SeqBoard::add_new(const PsJobSpec& spec) {
  BoardJob j;
  j.spec = &spec;
  j.fresh = true;
  j.want_w = spec.user_workers;
  j.want_p = spec.allreduce ? 0 : spec.user_ps;
  j.w_on.assign(static_cast<size_t>(servers()), 0);
  j.p_on.assign(static_cast<size_t>(servers()), 0);
  jobs_.push_back(std::move(j));
  return jobs() - 1;
}

int Seq2SeqBoard::next_kind(int j) const {
  const BoardJob& b = jobs_[static_cast<size_t>(j)];
  if (b.placed_p < b.want_p) return 1;
  if (b.placed_w < b.want_w) return 0;
  return -1;
}

bool Seq2SeqBoard::fits(int j, int kind, int server) const {
  const BoardJob& b = jobs_[static_cast<size_t>(j)];
  return pool_.fits(server, kind == 1 ? b.spec->ps : b.spec->worker);
}

int Seq2SeqBoard::mask(int j, unsigned char* mask) const {
  const int kind = next_kind(j);
  int n = 0;
  for (int m = 0; m < servers(); ++m) {
    mask[m] = kind >= 0 && fits(j, kind, m) ? 1 : 0;
    n += mask[m];
  }
  return n;
}

void Seq2SeqBoard::place(int j, int kind, int server) {
  BoardJob& b = jobs_[static_cast<size_t>(j)];
  pool_.add(server, kind == 1 ? b.spec->ps : b.spec->worker, 1);
  (kind == 1 ? b.p_on : b.w_on)[server] += 1;
  (kind == 1 ? b.placed_p : b.placed_w) += 1;
  type_on_[static_cast<size_t>(server) * kS2sTypes + s2s_type(*b.spec)] += 1;
  tasks_on_[server] += 1;
}

void Seq2SeqBoard::rollback(int j) {
  BoardJob& b = jobs_[static_cast<size_t>(j)];
  for (int m = 0; m < servers(); ++m) {
    pool_.add(m, b.spec->worker, -b.w_on[m]);
    pool_.add(m, b.spec->ps, -b.p_on[m]);
    type_on_[static_cast<size_t>(m) * kS2sTypes + s2s_type(*b.spec)] -= b.w_on[m] + b.p_on[m];
    tasks_on_[m] -= b.w_on[m] + b.p_on[m];
    b.w_on[m] = b.p_on[m] = 0;
  }
  b.placed_w = b.placed_p = 0;
}

Placement Seq2SeqBoard::placement(int j) const {
  const BoardJob& b = jobs_[static_cast<size_t>(j)];
  Placement p;
  for (int m = 0; m < servers(); ++m) {
    if (b.w_on[m] + b.p_on[m] == 0) continue;
    Slice s;
    s.server = m;
    s.workers = b.w_on[m];
    s.ps = b.p_on[m];
    s.gpus = b.w_on[m] * b.spec->worker.gpus;
    p.push_back(s);
  }
  return p;
}

bool Seq2SeqBoard::fits_whole(int j, int server) const {
  const BoardJob& b = jobs_[static_cast<size_t>(j)];
  return pool_.fits(server, b.spec->ps, b.want_p - b.placed_p, b.spec->worker, b.want_w - b.placed_w);
}

int Seq2SeqBoard::heuristic(int j, S2sHeuristic h) const {
  const int kind = next_kind(j);
  if (kind < 0) return -1;
  int best = -1;
  double best_score = 0;
  for (int m = 0; m < servers(); ++m) {
    if (!fits(j, kind, m)) continue;
    double score = 0;
    for (int r = 0; r < kResources; ++r) {
      const double cap = pool_.cap(m, r);
      if (cap <= 0) continue;
      score += h == S2sHeuristic::LoadBalancing ? pool_.used(m, r) / cap : pool_.free(m, r) / cap;
    }
    if (best < 0 || score < best_score) {
      best = m;
      best_score = score;
    }
  }
  return best;
}

void Seq2SeqBoard::job_features(std::vector<float>& out) const {
  out.assign(jobs_.size() * kJobFeatures, 0.0f);
  for (size_t k = 0; k < jobs_.size(); ++k) {
    const BoardJob& b = jobs_[k];
    float* t = out.data() + k * kJobFeatures;
    t[s2s_type(*b.spec)] = 1;
    t[kS2sTypes] = b.spec->allreduce ? 1.0f : 0.0f;
    t[kS2sTypes + 1] = b.want_w / 4.0f;
    t[kS2sTypes + 2] = b.want_p / 4.0f;
    t[kS2sTypes + 3] = b.fresh ? 1.0f : 0.0f;
    t[kS2sTypes + 4] = static_cast<float>(b.placed_w + b.placed_p) / std::max(1, b.want_w + b.want_p);
    int span = 0;
    for (int m = 0; m < servers(); ++m) span += (b.w_on[m] + b.p_on[m]) > 0;
    t[kS2sTypes + 5] = span / 4.0f;
  }
}

void Seq2SeqBoard::server_features(int current, std::vector<float>& out) const {
  out.assign(static_cast<size_t>(servers()) * kServerFeatures, 0.0f);
  for (int m = 0; m < servers(); ++m) {
    float* t = out.data() + static_cast<size_t>(m) * kServerFeatures;
    for (int r = 0; r < kResources; ++r) {
      const double cap = pool_.cap(m, r);
      t[r] = cap > 0 ? static_cast<float>(pool_.free(m, r) / cap) : 0.0f;
    }
    for (int y = 0; y < kS2sTypes; ++y) t[kResources + y] = type_on_[static_cast<size_t>(m) * kS2sTypes + y] / 4.0f;
    if (current >= 0) {
      t[kResources + kS2sTypes] = jobs_[static_cast<size_t>(current)].w_on[m] / 4.0f;
      t[kResources + kS2sTypes + 1] = jobs_[static_cast<size_t>(current)].p_on[m] / 4.0f;
    }
    t[kResources + kS2sTypes + 2] = tasks_on_[m] / 8.0f;
  }
}

void Seq2SeqBoard::query_features(int j, std::vector<float>& out) const {
  const BoardJob& b = jobs_[static_cast<size_t>(j)];
  const int kind = next_kind(j);
  out.assign(kQueryFeatures, 0.0f);
  out[0] = kind == 1 ? 1.0f : 0.0f;
  out[1] = kind == 0 ? 1.0f : 0.0f;
  out[2] = static_cast<float>(b.want_w + b.want_p - b.placed_w - b.placed_p) / std::max(1, b.want_w + b.want_p);
}

}  // namespace dmlkit::cluster
