// explore: the exploratory task-placement scheme, as reconstructed from the abstracts of Luo, Bao
// and Wu (INFOCOM 2022; TNET 2024). The papers' exact rule could not be read (spec A.4 [R]); this
// is a Markov-approximation / simulated-annealing search, the style of C. Wu's group:
//   - start from a feasible placement (explore.start: colocate, greedy or random), evaluated by
//     the caller's evaluator (gnn compare: simulate explore.iterations iterations with the run's
//     scheduler and extrapolate the epoch as the run does);
//   - each step proposes a neighbour: move one task to another machine that can host it, or (with
//     probability explore.swap_prob) swap the machines of two tasks of the same kind; infeasible
//     proposals are redrawn (at most 50 times);
//   - accept with probability min(1, exp(beta (T_cur - T_new) / T_start)), beta growing linearly
//     from explore.beta0 by explore.beta_growth per step (so the search cools) [A];
//   - keep the best placement seen; after explore.candidates evaluated candidates return it. The
//     start is a candidate, so the result is never worse than the start (by the same evaluation).
#include <cmath>

#include "core/error.h"
#include "core/rng.h"
#include "gnn/placements/factories.h"

namespace dmlkit::gnn {
namespace {

class Explore final : public PlacementPolicy {
 public:
  Explore(std::string start, int candidates, double swap_prob, double beta0, double growth)
      : start_(std::move(start)), candidates_(candidates), swap_prob_(swap_prob), beta0_(beta0), growth_(growth) {}

  PlacementOutcome place(const PlacementContext& ctx) override {
    if (!ctx.evaluate || !ctx.place_by) throw std::logic_error("explore needs an evaluator");
    const auto& c = *ctx.cluster;
    const auto& job = *ctx.job;
    const int M = static_cast<int>(c.machines.size());
    const int K = static_cast<int>(job.tasks.size());
    Rng rng = Rng(ctx.seed).split(41);
    PlacementOutcome out;
    Placement cur = ctx.place_by(start_);
    double t_cur = ctx.evaluate(cur);
    const double t_start = t_cur;
    out.placement = cur;
    out.start_estimate_s = out.best_estimate_s = t_cur;
    out.evaluations = 1;
    out.trace_s.push_back(t_cur);
    out.best_trace_s.push_back(t_cur);
    for (int step = 1; step < candidates_; ++step) {
      Placement next = cur;
      bool found = false;
      for (int attempt = 0; attempt < 50 && !found; ++attempt) {
        next = cur;
        if (rng.uniform() < swap_prob_) {
          const int a = static_cast<int>(rng.uniform_int(0, K - 1)), b = static_cast<int>(rng.uniform_int(0, K - 1));
          if (a == b || job.tasks[a].kind != job.tasks[b].kind || next[a] == next[b]) continue;
          std::swap(next[a], next[b]);
        } else {
          const int a = static_cast<int>(rng.uniform_int(0, K - 1));
          const int m = static_cast<int>(rng.uniform_int(0, M - 1));
          if (m == next[a] || !fits(c, job, next, a, m)) continue;
          next[a] = m;
        }
        found = feasible(c, job, next);
      }
      if (!found) break;  // no feasible neighbour could be drawn
      const double t_new = ctx.evaluate(next);
      ++out.evaluations;
      out.trace_s.push_back(t_new);
      const double beta = beta0_ + growth_ * step;
      const double accept = std::min(1.0, std::exp(beta * (t_cur - t_new) / t_start));
      if (rng.uniform() < accept) {
        cur = next;
        t_cur = t_new;
        ++out.accepted;
      }
      if (t_new < out.best_estimate_s) {
        out.best_estimate_s = t_new;
        out.placement = next;
      }
      out.best_trace_s.push_back(out.best_estimate_s);
    }
    return out;
  }

 private:
  std::string start_;
  int candidates_;
  double swap_prob_, beta0_, growth_;
};

}  // namespace

PlacementEntry explore_entry() {
  return {"explore",
          "exploratory search: moves and swaps evaluated by simulation, accepted by an annealing rule, best kept",
          [](const Knobs& k) -> std::unique_ptr<PlacementPolicy> {
            return std::make_unique<Explore>(k.get_string("explore.start"), static_cast<int>(k.get_int("explore.candidates")),
                                             k.get_double("explore.swap_prob"), k.get_double("explore.beta0"),
                                             k.get_double("explore.beta_growth"));
          },
          {knob_enum("explore.start", "colocate", {"colocate", "greedy", "random"}, "placement the search starts from"),
           knob_int("explore.candidates", 100, "placements evaluated (the start included)").range(1, 100000),
           knob_int("explore.iterations", 6, "iterations simulated to evaluate a candidate").range(2, 1000),
           knob_double("explore.swap_prob", 0.3, "probability that a proposal swaps two tasks (else moves one)").range(0, 1),
           knob_double("explore.beta0", 20, "initial inverse temperature (per relative change of iteration time)").at_least(0),
           knob_double("explore.beta_growth", 2, "beta added per step").at_least(0)}};
}

}  // namespace dmlkit::gnn
