// Harmony's imitation warm start; see harmony_imitation.h.
#include "cluster/train/harmony_imitation.h"

#include <algorithm>

#include "core/error.h"
#include "core/parallel_for.h"
#include "learn/mlp.h"

namespace dmlkit::cluster {

void HarmonyImitationData::append(const HarmonyImitationData& o) {
  states.insert(states.end(), o.states.begin(), o.states.end());
  masks.insert(masks.end(), o.masks.begin(), o.masks.end());
  labels.insert(labels.end(), o.labels.begin(), o.labels.end());
  decisions += o.decisions;
  dropped_jobs += o.dropped_jobs;
}

TeacherTasks::TeacherTasks(const Placement& p, int servers)
    : w_(static_cast<size_t>(servers), 0), p_(static_cast<size_t>(servers), 0) {
  for (const Slice& sl : p)
    if (sl.server >= 0 && sl.server < servers) {
      w_[static_cast<size_t>(sl.server)] += sl.workers;
      p_[static_cast<size_t>(sl.server)] += sl.ps;
    }
}

int TeacherTasks::first(int kind, const std::function<bool(int)>& allowed) const {
  const std::vector<int>& left = kind == 0 ? w_ : p_;
  for (int m = 0; m < static_cast<int>(left.size()); ++m)
    if (left[static_cast<size_t>(m)] > 0 && allowed(m)) return m;
  return -1;
}

HarmonyBoardReplay::HarmonyBoardReplay(const HarmonyShape& shape, const ClusterSpec& cluster)
    : board_(shape, cluster), state_(static_cast<size_t>(shape.state_size())), mask_(static_cast<size_t>(shape.actions())) {}

void HarmonyBoardReplay::record(int action, HarmonyImitationData& data) {
  board_.observe(state_.data());
  data.states.insert(data.states.end(), state_.begin(), state_.end());
  data.masks.insert(data.masks.end(), mask_.begin(), mask_.end());
  data.labels.push_back(action);
  board_.apply(action);
}

void HarmonyBoardReplay::replay(std::span<const RunningPsJob> running, std::span<const PsJobSpec* const> fresh,
                                std::span<const Placement> out, HarmonyImitationData& data) {
  const HarmonyShape& shape = board_.shape();
  std::vector<HarmonyRunningJob> placed;
  for (size_t first = 0; first < fresh.size(); first += static_cast<size_t>(shape.new_jobs)) {
    const size_t last = std::min(fresh.size(), first + static_cast<size_t>(shape.new_jobs));
    board_.clear();
    for (const RunningPsJob& r : running) board_.add_running(*r.spec, r.placement);
    for (const HarmonyRunningJob& r : placed) board_.add_running(*r.spec, r.placement);
    for (size_t k = first; k < last; ++k) board_.add_new(*fresh[k], fresh[k]->user_workers, fresh[k]->user_ps);
    for (size_t k = first; k < last; ++k) {
      const int n = static_cast<int>(k - first);
      const Placement& p = out[k];
      const PsJobSpec& s = *fresh[k];
      if (p.empty()) {
        board_.mask(mask_.data());
        if (shape.defer && mask_[static_cast<size_t>(shape.defer_action(n))]) record(shape.defer_action(n), data);
        continue;
      }
      TeacherTasks left(p, shape.servers);
      int pw = 0, pp = 0;
      bool ok = true;
      while (ok && !board_.complete(n)) {
        const bool want_ps = pw >= s.user_workers || (pp < s.user_ps && next_task_is_ps(s, pp, pw));
        board_.mask(mask_.data());
        int action = -1;
        for (int kind : {want_ps ? 1 : 0, want_ps ? 0 : 1}) {
          const int m = left.first(kind, [&](int m) { return mask_[static_cast<size_t>(shape.action(n, kind, m))] != 0; });
          if (m >= 0) {
            action = shape.action(n, kind, m);
            break;
          }
        }
        if (action < 0) {
          ok = false;
          break;
        }
        const int kind = shape.action_kind(action), m = shape.action_server(action);
        left.take(kind, m);
        (kind == 0 ? pw : pp) += 1;
        record(action, data);
      }
      if (!ok) {
        ++data.dropped_jobs;
        board_.rollback(n);
        continue;
      }
      placed.push_back({&s, board_.placement(n)});
    }
  }
}

HarmonyImitationRecorder::HarmonyImitationRecorder(std::unique_ptr<Policy> teacher,
                                                   std::unique_ptr<ImitationReplay> replay, HarmonyImitationData& out)
    : teacher_(std::move(teacher)), replay_(std::move(replay)), data_(out) {}

HarmonyImitationRecorder::HarmonyImitationRecorder(std::unique_ptr<Policy> teacher, const HarmonyShape& shape,
                                                   const ClusterSpec& cluster, HarmonyImitationData& out)
    : HarmonyImitationRecorder(std::move(teacher), std::make_unique<HarmonyBoardReplay>(shape, cluster), out) {
  data_.state_size = shape.state_size();
  data_.actions = shape.actions();
}

void HarmonyImitationRecorder::schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) {
  teacher_->schedule(view, jobs, out);
  running_.clear();
  fresh_.clear();
  placed_.clear();
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (jobs[i].job->ps == nullptr) continue;
    if (jobs[i].running()) {
      running_.push_back({jobs[i].job->ps.get(), jobs[i].placement});
    } else {
      fresh_.push_back(jobs[i].job->ps.get());
      placed_.push_back(out[i]);
    }
  }
  if (fresh_.empty()) return;
  ++data_.decisions;
  replay_->replay(running_, fresh_, placed_, data_);
}

void imitation_warm_start(const HarmonyDrlConfig& c, const ClusterSpec& cluster, const SimConfig& sim,
                          const HarmonyTraces& traces, learn::MlpTrainerEngine& actor, int row_size, int actions,
                          const ImitationHooks& hooks, HarmonyDrlResult& res,
                          const std::function<void(const std::string&, long, long, const std::string&)>& report) {
  std::string teacher = c.imitate;
  if (teacher == "auto") {
    double best = 0;
    teacher.clear();
    for (const auto& [p, j] : res.baseline_val_jct_s)
      if (teacher.empty() || j < best) {
        teacher = p;
        best = j;
      }
  }
  res.imitate_policy = teacher;
  const Experiment& e = c.experiment;
  const int n_traces = c.il_traces > 0 ? c.il_traces : c.train_traces;
  std::vector<Workload> il_traces;
  for (int k = 0; k < n_traces; ++k)
    il_traces.push_back(k < static_cast<int>(traces.train.size()) ? traces.train[static_cast<size_t>(k)]
                                                                 : ps_workload(e.workload, kHarmonyTrainSeedBase + k, c.data_dir));
  std::vector<HarmonyImitationData> per(il_traces.size());
  report("imitation samples", 0, static_cast<long>(il_traces.size()), teacher);
  parallel_for(il_traces.size(), std::max(1, c.threads), [&](size_t k) {
    PolicyOptions o;
    o.seed = c.seed * 7919 + 100003 + k;
    HarmonyImitationRecorder rec(make_policy(teacher, o), hooks.replay(), per[k]);
    simulate(cluster, il_traces[k], teacher, rec, sim);
  });
  const int d = row_size, A = actions;
  HarmonyImitationData il;
  il.state_size = d;
  il.actions = A;
  for (const auto& p : per) il.append(p);
  res.il_samples = il.rows();
  if (il.rows() == 0) throw Error("imitation: the teacher '" + teacher + "' gave no imitation sample");
  for (size_t r = 0; r < il.rows(); ++r)
    res.il_chance += 1.0 / std::max<double>(1.0, static_cast<double>(std::count(il.masks.begin() + static_cast<long>(r * A),
                                                                            il.masks.begin() + static_cast<long>((r + 1) * A), 1)));
  res.il_chance /= static_cast<double>(il.rows());
  actor.set_learning_rate(c.il_lr);
  Rng il_rng = Rng(c.seed).split(0x1317);
  std::vector<float> bx, ones(static_cast<size_t>(c.batch), 1.0f), lg;
  std::vector<unsigned char> bm, mk;
  std::vector<int> by;
  std::vector<double> pr;
  long correct = 0, seen = 0;
  for (long s = 0; s < c.il_steps; ++s) {
    bx.clear();
    bm.clear();
    by.clear();
    for (int b = 0; b < c.batch; ++b) {
      const size_t r = static_cast<size_t>(il_rng.uniform_int(0, static_cast<int64_t>(il.rows()) - 1));
      bx.insert(bx.end(), il.states.begin() + static_cast<long>(r * d), il.states.begin() + static_cast<long>((r + 1) * d));
      bm.insert(bm.end(), il.masks.begin() + static_cast<long>(r * A), il.masks.begin() + static_cast<long>((r + 1) * A));
      by.push_back(il.labels[r]);
    }
    // Masked cross-entropy = the policy-gradient loss with advantage 1 and no entropy term.
    const learn::LossStats st = actor.add_policy_gradient(bx.data(), c.batch, bm.data(), by.data(), ones.data(), 0.0);
    actor.step(1);
    if (s >= c.il_steps - 10) {
      // Accuracy of the updated network on this batch (masked arg-max).
      const learn::RowPredictor f = hooks.forward(actor.parameters());
      for (int b = 0; b < c.batch; ++b) {
        const std::vector<float>& o = f(bx.data() + static_cast<size_t>(b) * d);
        lg.assign(o.begin(), o.end());
        mk.assign(bm.begin() + static_cast<long>(b) * A, bm.begin() + static_cast<long>(b + 1) * A);
        if (learn::masked_softmax(lg, mk, pr) &&
            static_cast<int>(std::max_element(pr.begin(), pr.end()) - pr.begin()) == by[static_cast<size_t>(b)])
          ++correct;
        ++seen;
      }
    }
    res.curve.push_back({-c.il_steps + s + 1, st.loss, 0, st.entropy, 0, -1});
    if ((s + 1) % 100 == 0) report("imitation", s + 1, c.il_steps, teacher);
  }
  res.il_accuracy = seen > 0 ? static_cast<double>(correct) / static_cast<double>(seen) : 0.0;
  actor.set_learning_rate(c.lr);
  res.il_val_jct_s = hooks.take_and_validate(actor.parameters(), teacher);
  if (!res.curve.empty()) res.curve.back().val_avg_jct_s = res.il_val_jct_s;
  hooks.save("imitation.json");
  if (res.il_val_jct_s < res.best_val_jct_s) {
    res.best_val_jct_s = res.il_val_jct_s;
    hooks.save("best.json");
  }
  res.last_val_jct_s = res.il_val_jct_s;
  report("imitation", c.il_steps, c.il_steps, "val JCT " + std::to_string(res.il_val_jct_s));
}

}  // namespace dmlkit::cluster
