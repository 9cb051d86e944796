// Registry of the OASiS-model methods and the per-run invariants and metrics (see method.h).
#include "cluster/oasis/method.h"

#include <cmath>
#include <stdexcept>

#include "cluster/oasis/methods.h"
#include "core/error.h"

namespace dmlkit::cluster::oasis {

const OasisMethodRegistry& oasis_method_registry() {
  static const OasisMethodRegistry registry({"method", "", "", "--policy-param"}, {
                                                                                      oasis_entry(),
                                                                                      fifo_entry(),
                                                                                      drf_entry(),
                                                                                      rrh_entry(),
                                                                                      dorm_entry(),
                                                                                      tetris_entry(),
                                                                                  });
  return registry;
}

std::unique_ptr<OasisMethod> make_oasis_method(const std::string& name, const KnobValues& params, uint64_t seed) {
  const OasisMethodRegistry& registry = oasis_method_registry();
  const OasisMethodEntry& entry = registry.get(name);
  registry.check_knobs_any(params);
  const Knobs knobs(params, entry.knobs, registry.style().knob_flag);
  OasisMethodOptions options;
  options.seed = seed;
  return entry.make(options, knobs);
}

OasisMetrics check_and_measure(const OasisProblem& p, const OasisRun& run) {
  const auto& jobs = *p.jobs;
  if (run.jobs.size() != jobs.size()) throw std::logic_error("oasis run: one outcome per job expected");
  OasisMetrics m;
  m.jobs = static_cast<int>(jobs.size());
  // Re-add every schedule into a fresh ledger: the capacity check of SlotLedger::add.
  SlotLedger check(*p.cluster);
  for (size_t i = 0; i < jobs.size(); ++i) {
    const OasisJob& j = jobs[i];
    const JobOutcome& o = run.jobs[i];
    long work = 0;
    int last = -1;
    for (const auto& a : o.schedule) {
      if (!o.admitted) throw std::logic_error("oasis run: a rejected job holds resources");
      if (a.slot < j.arrival_slot) throw std::logic_error("oasis run: tasks before arrival");
      const int w = a.workers(), ps = a.ps();
      if (w > j.max_workers) throw std::logic_error("oasis run: more workers than data chunks");
      if (w > 0 && ps < j.ps_for(w)) throw std::logic_error("oasis run: too few PSs");
      check.add(j, a);
      work += w;
      if (w > 0) last = std::max(last, a.slot);
    }
    m.admitted += o.admitted ? 1 : 0;
    if (o.completion_slot >= 0) {
      if (work < j.work_worker_slots || last != o.completion_slot)
        throw std::logic_error("oasis run: job " + std::to_string(j.id) + " completed without its work");
      const double u = j.utility.value(o.completion_slot - j.arrival_slot + 1);
      if (std::abs(u - o.utility) > 1e-9 * std::max(1.0, u)) throw std::logic_error("oasis run: utility mismatch");
      ++m.completed;
      m.total_utility += o.utility;
    } else if (o.utility != 0) {
      throw std::logic_error("oasis run: utility of an unfinished job");
    }
  }
  m.max_server_utilization = check.max_utilization();
  if (m.max_server_utilization > 1 + 1e-6) throw std::logic_error("oasis run: capacity exceeded");
  m.worker_gpu_utilization = check.mean_utilization(false, kGpu);
  m.worker_cpu_utilization = check.mean_utilization(false, kCpu);
  m.ps_cpu_utilization = check.mean_utilization(true, kCpu);
  return m;
}

}  // namespace dmlkit::cluster::oasis
