// OASiS's resource prices (spec 5.3 [P], second-pass.md 1): the unit price of resource r on server
// h in slot t rises exponentially with what is already allocated there,
//   P(g) = L * (U / L)^(g / c),   L at an empty server, U at a full one,
// with one (L, U) per price family: (worker pool, r) -- p_h^r(t) -- and (PS pool, r) -- q_k^r(t) --,
// or one family per r on a shared pool. L and U come from the workload's parameter ranges, known in
// advance as the framework assumes; their exact form in the paper is unverified, ours is [A]:
//   U = (largest priority) / (smallest usage of r any one job can have),
//   L = (smallest priority / 2) / (eta * largest usage of r any one job can have),
// eta = the number of priced families (so that an empty cluster charges any job less than half of
// its smallest value), usages in resource-slots (a job's worker usage of r is D_i * alpha_i[r] for
// every schedule; its PS usage is between ceil(D_i / gamma_i) * beta_i[r] and D_i * beta_i[r]).
// A resource no task of the family uses is not priced. Both bounds have a scale knob.
#pragma once
#include <string>
#include <vector>

#include "cluster/oasis/oasis_cluster.h"
#include "cluster/oasis/oasis_workload.h"

namespace dmlkit::cluster::oasis {

struct PriceFamily {
  bool priced = false;
  double lower = 0;  // L
  double upper = 0;  // U
  // P(g / c), fraction in [0, 1] (clamped).
  double price(double used_fraction) const;
};

struct PriceBounds {
  // [0][r]: workers' servers (or the shared pool), [1][r]: PS servers (unused with a shared pool).
  PriceFamily family[2][kNumResources];
  bool shared = false;
  const PriceFamily& of(bool ps_server, int r) const { return family[shared ? 0 : (ps_server ? 1 : 0)][r]; }
  // The theoretical competitive ratio 2 * alpha, alpha = max(1, max over families of ln(U / L)).
  double competitive_ratio() const;
  // One line per priced family, for the run log ("L/U worker gpu: L=... U=...").
  std::vector<std::string> describe() const;
};

PriceBounds price_bounds(const OasisWorkloadSpec& spec, bool shared_pool, double l_scale = 1, double u_scale = 1);

// The unit price of resource r on server h in slot t given `ledger`'s allocations.
inline double unit_price(const PriceBounds& b, const SlotLedger& ledger, int t, int h, int r) {
  const OasisServer& s = ledger.cluster().servers[h];
  const PriceFamily& f = b.of(s.pool == Pool::Ps, r);
  if (!f.priced || s.capacity[r] <= 0) return 0;
  return f.price(ledger.used(t, h, r) / s.capacity[r]);
}

}  // namespace dmlkit::cluster::oasis
