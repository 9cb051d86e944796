// The placement and scheduling policies of `dmlkit gnn`. Adding one: write placements/<name>.cpp
// or schedulers/<name>.cpp with the policy and its entry, declare the entry in that folder's
// factories.h, and add one line here.
#include "core/error.h"
#include "gnn/placements/factories.h"
#include "gnn/schedulers/factories.h"

namespace dmlkit::gnn {

const PlacementRegistry& placement_registry() {
  static const PlacementRegistry registry({"placement", "placements", "", "--placement-param"},
                                          {colocate_entry(), random_entry(), greedy_entry(), explore_entry()});
  return registry;
}

const SchedulerRegistry& scheduler_registry() {
  static const SchedulerRegistry registry({"scheduler", "schedulers", "", "--scheduler-param"},
                                          {fifo_fair_entry(), online_entry()});
  return registry;
}

std::unique_ptr<PlacementPolicy> make_placement(const std::string& name, const KnobValues& params) {
  const auto& r = placement_registry();
  const auto& e = r.get(name);
  r.check_knobs_any(params);
  return e.make(Knobs(params, e.knobs, r.style().knob_flag));
}

std::unique_ptr<Scheduler> make_scheduler(const std::string& name, const KnobValues& params) {
  const auto& r = scheduler_registry();
  const auto& e = r.get(name);
  r.check_knobs_any(params);
  return e.make(Knobs(params, e.knobs, r.style().knob_flag));
}

int least_loaded_machine(const ClusterSpec& c, const Job& job, const Placement& p, int task) {
  const auto& t = job.tasks[task];
  int best = -1;
  double best_load = 0;
  for (int m = 0; m < static_cast<int>(c.machines.size()); ++m) {
    if (!fits(c, job, p, task, m)) continue;
    const auto& mc = c.machines[m];
    double load = 0;
    if (t.gpus > 0) {
      int there = 0;
      for (size_t k = 0; k < p.size(); ++k)
        if (p[k] == m && static_cast<int>(k) != task && job.tasks[k].gpus > 0) ++there;
      load = (there + 1.0) / (mc.gpus * mc.gpu_speed);
    } else {
      int cores = 0;
      for (size_t k = 0; k < p.size(); ++k)
        if (p[k] == m && static_cast<int>(k) != task) cores += job.tasks[k].cores;
      load = static_cast<double>(cores + t.cores) / mc.cores;
    }
    if (best < 0 || load < best_load - 1e-12) best = m, best_load = load;
  }
  return best;
}

void require_feasible(const ClusterSpec& c, const Job& job, const Placement& p, const std::string& policy) {
  std::string why;
  if (!feasible(c, job, p, &why)) throw Error("", 0, "placement", policy + ": infeasible placement (" + why + ")");
}

}  // namespace dmlkit::gnn
