// `lif-line`: least interference first, Harmony's baseline "LIF-Line" (Bao, Peng, Wu, INFOCOM'19,
// second-pass.md 3.5; only the name "least-interference-first" is known, so this is our reading
// [A]). Placement only, with the user's (PS, worker) counts: each task of a new job goes to the
// fitting server where it is predicted to interfere least with what is already there.
//
// What it knows about interference [A]: each job type's usage profile over a server's shared
// resources (CPU, memory bandwidth, PCIe, disk I/O, NIC), as an operator would measure by running
// each type alone (by default the profiles of data/harmony/contention.yaml; knob lif-line.profiles
// for another file). It does NOT know the ground truth: neither the capacities nor the sharing rule
// of the `contention` model, nor Gavel's measured pairs under `--interference gavel`.
//
// Predicted interference of a task t on server m: overlap = sum_r u_t[r] * U_m[r], where U_m is the
// total usage of the tasks already on m (this job's included); least overlap first, ties by the
// least-loaded server (load as `lb`), then lowest id. Tasks alternate PS and worker in the
// request's proportion; jobs that do not fit wait (placement_policy.h).
#include <string>

#include "cluster/model/ps_job.h"
#include "cluster/policies/factories.h"
#include "cluster/policies/placement/placement_policy.h"
#include "cluster/speed/interference.h"
#include "core/data_dir.h"
#include "core/error.h"

namespace dmlkit::cluster {

namespace {
class LifLine final : public GreedyTaskPlacement {
 public:
  explicit LifLine(ContentionProfiles p) : p_(std::move(p)) {}

 protected:
  Score score(const PlacementState& state, int i, TaskRole role, int server) const override {
    refresh_classes(state);
    const size_t K = p_.resources.size();
    // Total usage of the tasks on the server (this job's included).
    on_.assign(K, 0.0);
    for (int j = 0; j < state.num_jobs(); ++j) {
      const int w = state.workers_on(j, server), q = state.ps_on(j, server);
      if (w == 0 && q == 0) continue;
      const auto& uw = p_.worker[static_cast<size_t>(cls_[static_cast<size_t>(j)])];
      const auto& up = p_.ps[static_cast<size_t>(cls_[static_cast<size_t>(j)])];
      for (size_t k = 0; k < K; ++k) on_[k] += w * uw[k] + q * up[k];
    }
    const auto c = static_cast<size_t>(cls_[static_cast<size_t>(i)]);
    const std::vector<double>& u = role == TaskRole::Worker ? p_.worker[c] : p_.ps[c];
    double overlap = 0;
    for (size_t k = 0; k < K; ++k) overlap += u[k] * on_[k];
    return {overlap, server_load(state, server)};
  }

 private:
  // Each job's profile index, looked up once per decision.
  void refresh_classes(const PlacementState& state) const {
    if (decision_ == state.decision()) return;
    decision_ = state.decision();
    cls_.resize(static_cast<size_t>(state.num_jobs()));
    for (int j = 0; j < state.num_jobs(); ++j) {
      const std::string& name = colocation_class(state.spec(j));
      const int c = p_.find(name);
      if (c < 0)
        throw Error("lif-line: no usage profile for job type '" + name + "' in its profiles (knob lif-line.profiles)");
      cls_[static_cast<size_t>(j)] = c;
    }
  }
  mutable uint64_t decision_ = 0;
  mutable std::vector<int> cls_;
  mutable std::vector<double> on_;
  ContentionProfiles p_;
};
}  // namespace

PolicyEntry lif_line_entry() {
  return {"lif-line",
          "Harmony baseline: least interference first, each task of a new job where its usage profile overlaps "
          "least with the server's (placement only, user's PS/worker counts)",
          [](const PolicyOptions&, const Knobs& k) -> std::unique_ptr<Policy> {
            std::string path = k.get_string("lif-line.profiles");
            if (path.empty()) path = default_contention_file(default_data_dir());
            return std::make_unique<LifLine>(load_contention_profiles(path));
          },
          {knob_string("lif-line.profiles", "",
                       "usage profiles it knows (YAML as data/harmony/contention.yaml; empty: that file)")
               .shown("data/harmony/contention.yaml")},
          {.gpu_jobs = false, .ps_jobs = true}};
}

}  // namespace dmlkit::cluster
