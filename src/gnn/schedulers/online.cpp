// online: the online scheduler of training tasks and graph-data transfers, as reconstructed from
// the abstracts of Luo, Bao and Wu, "Optimizing Task Placement and Online Scheduling for
// Distributed GNN Training Acceleration" (INFOCOM 2022; TNET 2024, heterogeneous clusters). The
// papers' exact rule and its guarantee could not be read (spec A.4 is [R]); this is our
// list-scheduling + priority-flow heuristic, event-driven:
//   - a ready sampling task gets free cores by (iteration, then longest remaining critical path:
//     its own time + estimated transfer + compute on its trainer's GPU + synchronisation), so the
//     current iteration and the slowest trainer's pipeline go first;
//   - flows get bandwidth by (iteration, then shortest remaining bytes): at every event the free
//     capacity of each link is handed out in that order, each flow taking the residual of its
//     path (its rate is capped there), and what is left is shared by the rest;
//   - rates change only at chunk boundaries: a flow is sent in `online.chunks` chunks (at least
//     online.min_chunk_MB each), so a higher-priority flow waits at most one chunk [A].
#include <algorithm>

#include "gnn/schedulers/factories.h"

namespace dmlkit::gnn {
namespace {

class Online final : public Scheduler {
 public:
  Online(int chunks, double min_chunk_bytes, bool critical_path)
      : chunks_(chunks), min_chunk_(min_chunk_bytes), critical_path_(critical_path) {}
  std::pair<double, double> task_key(const ReadyTaskView& t) const override {
    return {static_cast<double>(t.iteration), critical_path_ ? -t.critical_path_s : t.ready_s};
  }
  bool prioritise_flows() const override { return true; }
  std::pair<double, double> flow_key(const FlowView& f) const override {
    return {static_cast<double>(f.iteration), f.remaining_bytes};
  }
  double chunk_bytes(double flow_bytes) const override { return std::max(min_chunk_, flow_bytes / chunks_); }

 private:
  int chunks_;
  double min_chunk_;
  bool critical_path_;
};

}  // namespace

SchedulerEntry online_entry() {
  return {"online",
          "tasks by (iteration, longest critical path); flows by (iteration, shortest remaining), leftover bandwidth shared",
          [](const Knobs& k) -> std::unique_ptr<Scheduler> {
            return std::make_unique<Online>(static_cast<int>(k.get_int("online.chunks")),
                                            k.get_double("online.min_chunk_MB") * 1e6,
                                            k.get_string("online.task_order") == "critical-path");
          },
          {knob_int("online.chunks", 8, "a flow is sent in this many chunks; rates are re-planned between chunks")
               .range(1, 1024),
           knob_double("online.min_chunk_MB", 0.25, "smallest chunk (MB)").range(0.001, 1e6),
           knob_enum("online.task_order", "critical-path", {"critical-path", "fifo"},
                     "order of ready sampling tasks within an iteration")}};
}

}  // namespace dmlkit::gnn
