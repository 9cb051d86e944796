// Scheduling policies of the GNN iteration simulator (simulate.h): which ready sampling task gets
// freed CPU cores first, and how concurrent flows share bandwidth. Registry: scheduler_registry()
// (registry.cpp); each policy lives in schedulers/<name>.cpp with what it assumes.
#pragma once
#include <memory>
#include <string>
#include <utility>

#include "core/knobs.h"
#include "core/registry.h"

namespace dmlkit::gnn {

// A sampling task waiting for cores.
struct ReadyTaskView {
  int iteration = 0;
  double ready_s = 0;           // when it became ready
  long seq = 0;                 // creation order (ties)
  double critical_path_s = 0;   // its own time + the estimated transfer, compute and sync after it
};

// A flow waiting for (more) bandwidth.
struct FlowView {
  int iteration = 0;
  double remaining_bytes = 0;
  double ready_s = 0;
  long seq = 0;
  double downstream_s = 0;  // compute time after it on its trainer's GPU (0 for gradient flows)
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  // Smaller keys start first.
  virtual std::pair<double, double> task_key(const ReadyTaskView& t) const = 0;
  // false: every flow starts at once, whole, and SimGrid shares links max-min fairly.
  // true: at every event (a task or flow starts or ends) the capacity of each link is handed to
  // the unfinished flows in flow_key order, each taking the residual of its path as its rate
  // cap, so higher-priority flows get bandwidth first and lower ones what is left.
  virtual bool prioritise_flows() const = 0;
  virtual std::pair<double, double> flow_key(const FlowView& f) const { return {f.ready_s, static_cast<double>(f.seq)}; }
  // true: flows whose flow_key().first is equal form a class that shares what the earlier
  // classes left max-min fairly (instead of strict order within the class).
  virtual bool share_within_class() const { return false; }
  // A running flow keeps its rate when the new one differs by at most this fraction (fewer
  // restarts of SimGrid flows; prioritised flows only).
  virtual double rerate_tolerance() const { return 0.01; }
};

using SchedulerFactory = std::unique_ptr<Scheduler> (*)(const Knobs& knobs);
using SchedulerEntry = RegistryEntry<SchedulerFactory>;
using SchedulerRegistry = Registry<SchedulerEntry>;

const SchedulerRegistry& scheduler_registry();
std::unique_ptr<Scheduler> make_scheduler(const std::string& name, const KnobValues& params);

}  // namespace dmlkit::gnn
