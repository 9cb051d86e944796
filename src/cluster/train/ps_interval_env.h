// The interval loop both Harmony training environments run (harmony_env.h, harmony_seq2seq_env.h;
// the rules and [A] simplifications are in harmony_env.h): the trace's PS jobs arrive, every
// interval the placer places the new ones (never moving running ones), every running job trains
// for the interval at its predicted speed (floored at min_speed_share of its reference speed), and
// the interval's reward is (IntervalReward):
//  - progress (default): DL2's normalised progress sum_j (epochs trained by j) / E_j;
//  - jct [A] (ours): minus the job-time spent in the system during the interval, in intervals:
//    -(1 / round_s) sum_j |[arrival_j, finish_j) & [t, t + round_s)| over every job that has
//    arrived (running, waiting for a placement, or arriving between two decisions) and not finished.
//    A job that waits is charged like a running one, so the undiscounted return of an episode is
//    -(sum of its jobs' JCTs) / round_s: maximising it minimises the average JCT.
// [A] Ours, off by default (RewardScale, `--reward-scale`): the reward divided by the trace's number
// of jobs (`jobs`), and also multiplied by reward_factor (the trainer's 1 - gamma: `jobs-gamma`), so
// that the discounted returns are O(1) (with jct: minus the share of the trace's jobs in the system,
// averaged over the discount's horizon) rather than -(jobs present) / (1 - gamma).
#pragma once
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "cluster/model/job.h"
#include "cluster/model/placement.h"
#include "cluster/model/ps_job.h"
#include "core/error.h"

namespace dmlkit::cluster {

enum class IntervalReward { progress, jct };
// "progress" | "jct"; throws Error naming `who` and --reward otherwise.
inline IntervalReward parse_interval_reward(const std::string& name, const std::string& who) {
  if (name == "progress") return IntervalReward::progress;
  if (name == "jct") return IntervalReward::jct;
  throw Error(who + " training: --reward must be progress or jct, not '" + name + "'");
}

enum class RewardScale { none, jobs, jobs_gamma };
// "none" | "jobs" | "jobs-gamma"; throws Error naming `who` and --reward-scale otherwise.
inline RewardScale parse_reward_scale(const std::string& name, const std::string& who) {
  if (name == "none") return RewardScale::none;
  if (name == "jobs") return RewardScale::jobs;
  if (name == "jobs-gamma") return RewardScale::jobs_gamma;
  throw Error(who + " training: --reward-scale must be none, jobs or jobs-gamma, not '" + name + "'");
}

struct IntervalEnvConfig {
  double round_s = 600;
  IntervalReward reward = IntervalReward::progress;
  bool reward_per_job = false;  // [A] the reward divided by the trace's number of jobs
  double reward_factor = 1.0;   // [A] ... and multiplied by this
  double min_speed_share = 0.02;  // floor of a predicted speed, share of the reference speed
  long max_intervals = 5000;
};

struct IntervalEpisode {
  double avg_jct_s = 0;
  std::vector<double> rewards;  // per interval
  long unfinished = 0;
};

// The jct reward of the interval [t, t + round_s): minus the job-time spent in the system in it, in
// intervals, over `jobs` (arrival(j) and finish(j) in seconds; finish < 0: not finished).
template <class Jobs, class Arrival, class Finish>
double jct_interval_reward(const Jobs& jobs, double t, double round_s, Arrival arrival, Finish finish) {
  // Job-time in the system during [t, t + round_s), finished jobs up to their finish.
  const double end = t + round_s;
  double in_system_s = 0;
  for (const auto& j : jobs) {
    const double a = arrival(j), f = finish(j);
    if (a >= end || (f >= 0 && f < t)) continue;
    const double until = f >= 0 ? std::min(f, end) : end;
    in_system_s += std::max(0.0, until - std::max(a, t));
  }
  return -in_system_s / round_s;
}

// An interval's reward with the [A] scale of the config (a trace of `jobs` jobs).
inline double scale_interval_reward(double reward, size_t jobs, const IntervalEnvConfig& c) {
  if (c.reward_per_job) reward /= static_cast<double>(jobs);
  if (c.reward_factor != 1.0) reward *= c.reward_factor;
  return reward;
}

// Placer::decide(running, fresh, out) with
// `Running` {spec, placement}; placed(spec, placement) describes a running job to speeds(placed,
// out), which fills out[i] (samples/s); reference(placed[i]) is the floor's reference speed.
template <class Running, class Placed, class Placer>
IntervalEpisode run_interval_env(const std::string& who, const Workload& workload, Placer& placer, const IntervalEnvConfig& c,
                                 Placed (*placed_of)(const PsJobSpec&, const Placement&),
                                 const std::function<void(const std::vector<Placed>&, std::vector<double>&)>& speeds,
                                 const std::function<double(const Placed&)>& reference,
                                 const std::function<void(double)>& on_interval) {
  struct EnvJob {
    const Job* job;
    double done = 0;
    Placement placement;
    double finish_s = -1;
  };
  std::vector<EnvJob> jobs;
  for (const Job& j : workload.jobs) {
    if (!j.ps) throw Error(who + " training: job '" + j.name + "' is not a parameter-server job");
    jobs.push_back({&j, 0, {}, -1});
  }
  IntervalEpisode ep;
  size_t finished = 0;
  std::vector<Running> running;
  std::vector<const PsJobSpec*> fresh;
  std::vector<size_t> fresh_idx, run_idx;
  std::vector<Placement> out;
  std::vector<Placed> placed;
  std::vector<double> sp;
  for (long k = 0; finished < jobs.size() && k < c.max_intervals; ++k) {
    const double t = static_cast<double>(k) * c.round_s;
    running.clear();
    fresh.clear();
    fresh_idx.clear();
    for (size_t i = 0; i < jobs.size(); ++i) {
      EnvJob& j = jobs[i];
      if (j.finish_s >= 0 || j.job->arrival_s > t + 1e-9) continue;
      if (j.placement.empty()) {
        fresh.push_back(j.job->ps.get());
        fresh_idx.push_back(i);
      } else {
        running.push_back({j.job->ps.get(), j.placement});
      }
    }
    if (!fresh.empty()) {
      placer.decide(running, fresh, out);
      for (size_t f = 0; f < fresh.size(); ++f) jobs[fresh_idx[f]].placement = out[f];
    }
    placed.clear();
    run_idx.clear();
    for (size_t i = 0; i < jobs.size(); ++i) {
      const EnvJob& j = jobs[i];
      if (j.finish_s >= 0 || j.placement.empty()) continue;
      placed.push_back(placed_of(*j.job->ps, j.placement));
      run_idx.push_back(i);
    }
    speeds(placed, sp);
    double reward = 0;
    for (size_t r = 0; r < run_idx.size(); ++r) {
      EnvJob& j = jobs[run_idx[r]];
      const PsJobSpec& s = *j.job->ps;
      const double v = std::max(sp[r], c.min_speed_share * reference(placed[r]));
      const double epoch_size = s.job_type().epoch_size;
      const double epochs = v * c.round_s / epoch_size;
      const double left = s.total_epochs - j.done;
      if (epochs >= left) {
        j.finish_s = t + left * epoch_size / v;
        reward += left / s.total_epochs;
        j.done = s.total_epochs;
        ++finished;
      } else {
        j.done += epochs;
        reward += epochs / s.total_epochs;
      }
    }
    if (c.reward == IntervalReward::jct)
      reward = jct_interval_reward(jobs, t, c.round_s, [](const EnvJob& j) { return j.job->arrival_s; },
                                   [](const EnvJob& j) { return j.finish_s; });
    reward = scale_interval_reward(reward, jobs.size(), c);
    ep.rewards.push_back(reward);
    if (on_interval) on_interval(reward);
  }
  double sum = 0;
  long n = 0;
  for (const EnvJob& j : jobs) {
    if (j.finish_s < 0) {
      ++ep.unfinished;
      continue;
    }
    sum += j.finish_s - j.job->arrival_s;
    ++n;
  }
  ep.avg_jct_s = n > 0 ? sum / static_cast<double>(n) : 0.0;
  return ep;
}

}  // namespace dmlkit::cluster
