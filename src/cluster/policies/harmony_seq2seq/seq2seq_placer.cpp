// harmony-seq2seq's per-interval decoding; see seq2seq_placer.h.
#include "cluster/policies/harmony_seq2seq/seq2seq_placer.h"

#include <algorithm>

#include "core/error.h"

namespace dmlkit::cluster {

Seq2SeqPlacer::Seq2SeqPlacer(const ClusterSpec& cluster, const S2sNet& policy, uint64_t seed)
    : LearnedPlacerBase(Rng(seed).split(0x5e2)), board_(cluster), net_(policy.shape, policy.parameters) {}

void Seq2SeqPlacer::set_parameters(const std::vector<float>& parameters) {
  net_ = learn::AttnPointerIncremental(net_.shape(), parameters);
}

JobExploration parse_job_exploration(const std::string& name, const std::string& who) {
  if (name == "off") return JobExploration::off;
  if (name == "occupied") return JobExploration::occupied;
  if (name == "any") return JobExploration::any;
  throw Error(who + " training: --job-exploration must be off, occupied or any, not '" + name + "'");
}

int Seq2SeqPlacer::explore_whole(int j) {
  if (!(epsilon_ > 0) || rng_.uniform() >= epsilon_) return -1;
  candidates_.clear();
  for (int m = 0; m < board_.servers(); ++m)
    if (board_.fits_whole(j, m) && (job_exploration_ == JobExploration::any || board_.occupied(m)))
      candidates_.push_back(m);
  if (candidates_.empty()) return -1;
  return candidates_[static_cast<size_t>(rng_.uniform_int(0, static_cast<int64_t>(candidates_.size()) - 1))];
}

int Seq2SeqPlacer::choose(int job, int first) {
  // Per-task exploration only without whole-job exploration (that one is drawn in decide).
  if (const auto h = job_exploration_ == JobExploration::off ? explore() : std::nullopt) {
    const int a = board_.heuristic(job, *h);
    if (a >= 0) {
      ++stats_.explored;
      return a;
    }
  }
  const int J = board_.jobs() - first, S = board_.servers();
  return pick(net_.run(J, S, job - first, jx_.data() + static_cast<size_t>(first) * kJobFeatures, sx_.data(),
                       qx_.data(), mask_.data()),
              mask_);
}

void Seq2SeqPlacer::decide(std::span<const S2sRunningJob> running, std::span<const PsJobSpec* const> fresh,
                           std::vector<Placement>& out) {
  out.assign(fresh.size(), Placement{});
  board_.clear();
  for (const S2sRunningJob& r : running) board_.add_running(*r.spec, r.placement);
  const int first_new = board_.jobs();
  for (const PsJobSpec* f : fresh) board_.add_new(*f);
  // Job tokens left out: the oldest running ones beyond max_tokens_.
  const int first = max_tokens_ > 0 ? std::min(first_new, std::max(0, board_.jobs() - max_tokens_)) : 0;
  const int S = board_.servers();
  const bool wait = net_.shape().wait_target;
  mask_.resize(static_cast<size_t>(S + (wait ? 1 : 0)));
  // Waiting: s2s_wait_offered (seq2seq_placer.h).
  bool occupied = !running.empty();
  for (size_t i = 0; i < fresh.size(); ++i) {
    const int j = first_new + static_cast<int>(i);
    bool waits = false;
    const int whole = job_exploration_ != JobExploration::off ? explore_whole(j) : -1;
    for (int kind = board_.next_kind(j), task = 0; kind >= 0; kind = board_.next_kind(j), ++task) {
      if (board_.mask(j, mask_.data()) == 0) break;
      if (wait) mask_[static_cast<size_t>(S)] = s2s_wait_offered(task, occupied) ? 1 : 0;
      board_.job_features(jx_);
      board_.server_features(j, sx_);
      board_.query_features(j, qx_);
      int a;
      if (whole >= 0) {
        a = whole;  // fits: the whole job fitted there before its first task
        ++stats_.explored;
      } else {
        a = choose(j, first);
      }
      if (a < 0) break;
      if (sink_ != nullptr)
        sink_->on_step(board_.jobs() - first, S, j - first, jx_.data() + static_cast<size_t>(first) * kJobFeatures,
                       sx_.data(), qx_.data(), mask_.data(), a);
      ++stats_.steps;
      if (a == S) {
        waits = true;
        break;
      }
      board_.place(j, kind, a);
    }
    if (waits) ++stats_.waited;
    if (!board_.complete(j)) {
      board_.rollback(j);
      if (!waits) ++stats_.rolled_back;
      continue;
    }
    out[i] = board_.placement(j);
    occupied = true;
  }
}

}  // namespace dmlkit::cluster
