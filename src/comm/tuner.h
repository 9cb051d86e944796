// Auto-tuning of scheduler knobs by Bayesian optimisation, as ByteScheduler's tuner does (spec
// 1.6: a Gaussian process, expected improvement, a few random initial points, then EI steps), and
// the grid search it is compared with. Each probe is a call of the objective (a simulated run).
//
// GP: inputs mapped to [0,1] per dimension (log scale when asked); outputs standardised;
// Matern-5/2 kernel with one length scale chosen by maximising the log marginal likelihood over a
// fixed grid; a small jitter (1e-6) because the simulator is deterministic. EI for minimisation
// with exploration margin xi (in standardised units), maximised over 2048 random candidates plus
// perturbations of the incumbent. Deterministic for a given Rng seed.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "core/rng.h"

namespace dmlkit::comm {

struct TuneDimension {
  std::string name;
  double lo, hi;
  bool log_scale = true;
};

struct TuneProbe {
  std::vector<double> x;
  double value = 0;  // objective (smaller is better)
};

struct TuneResult {
  std::vector<TuneProbe> probes;  // in the order they were run
  size_t best = 0;                // index of the best probe
  const TuneProbe& best_probe() const { return probes[best]; }
};

using TuneObjective = std::function<double(const std::vector<double>&)>;

struct BayesOptions {
  int initial_points = 5;
  int max_probes = 20;
  double xi = 0.01;
};

TuneResult bayes_optimize(const std::vector<TuneDimension>& dims, const TuneObjective& f, const BayesOptions& o,
                          Rng rng);
// Every combination of `points_per_dim` values per dimension (evenly spaced, on the log scale
// when asked), in row-major order.
TuneResult grid_search(const std::vector<TuneDimension>& dims, const TuneObjective& f, int points_per_dim);

}  // namespace dmlkit::comm
