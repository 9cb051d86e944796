// online: the online scheduler of training tasks and graph-data transfers, as reconstructed from
// the abstracts of Luo, Bao and Wu, "Optimizing Task Placement and Online Scheduling for
// Distributed GNN Training Acceleration" (INFOCOM 2022; TNET 2024, heterogeneous clusters). The
// papers' exact rule and its guarantee could not be read (spec A.4 is [R]); this is our
// list-scheduling + priority-flow heuristic, event-driven:
//   - a ready sampling task gets free cores by (iteration, then longest remaining critical path:
//     its own time + estimated transfer + compute on its trainer's GPU + synchronisation), so the
//     current iteration and the slowest trainer's pipeline go first;
//   - flows get bandwidth by (iteration, then shortest remaining bytes; online.flow_order can
//     instead put first the flow whose trainer computes longest after it, or share max-min
//     within an iteration [A]): at every event (a task
//     or flow starts or ends) the capacity of each link is handed out in that order, each flow
//     taking the residual of its path as its rate, and what is left goes to the rest; a running
//     flow whose rate changes by more than online.rerate_tolerance is re-rated (in SimGrid:
//     cancelled and restarted at the new rate cap, keeping the bytes it moved) [A].
#include <algorithm>
#include <string>

#include "gnn/schedulers/factories.h"

namespace dmlkit::gnn {
namespace {

class Online final : public Scheduler {
 public:
  Online(double tolerance, bool critical_path, std::string flow_order)
      : tolerance_(tolerance), critical_path_(critical_path), flow_order_(std::move(flow_order)) {}
  std::pair<double, double> task_key(const ReadyTaskView& t) const override {
    return {static_cast<double>(t.iteration), critical_path_ ? -t.critical_path_s : t.ready_s};
  }
  bool prioritise_flows() const override { return true; }
  std::pair<double, double> flow_key(const FlowView& f) const override {
    // Within an iteration: shortest remaining first, or (flow_order critical-path) the flow with
    // the most compute after it first, remaining bytes breaking ties (folded into one key).
    if (flow_order_ == "critical-path") return {static_cast<double>(f.iteration), -f.downstream_s * 1e15 + f.remaining_bytes};
    if (flow_order_ == "fair") return {static_cast<double>(f.iteration), 0.0};
    return {static_cast<double>(f.iteration), f.remaining_bytes};
  }
  double rerate_tolerance() const override { return tolerance_; }
  bool share_within_class() const override { return flow_order_ == "fair"; }

 private:
  double tolerance_;
  bool critical_path_;
  std::string flow_order_;
};

}  // namespace

SchedulerEntry online_entry() {
  return {"online",
          "tasks by (iteration, longest critical path); flows by (iteration, shortest remaining), leftover bandwidth shared",
          [](const Knobs& k) -> std::unique_ptr<Scheduler> {
            return std::make_unique<Online>(k.get_double("online.rerate_tolerance"),
                                            k.get_string("online.task_order") == "critical-path",
                                            k.get_string("online.flow_order"));
          },
          {knob_double("online.rerate_tolerance", 0.01,
                       "a running flow keeps its rate if the planned one differs by at most this fraction")
               .range(0, 1),
           knob_enum("online.task_order", "critical-path", {"critical-path", "fifo"},
                     "order of ready sampling tasks within an iteration"),
           knob_enum("online.flow_order", "srpt", {"srpt", "critical-path", "fair"},
                     "flows within an iteration: shortest remaining bytes first (spec A.4), the flow whose "
                     "trainer computes longest after it first, or max-min fair shares [A]")}};
}

}  // namespace dmlkit::gnn
