// The assignment-policy interface of `dmlkit ps`: a policy maps the gradient tensors' bytes to
// parameter servers before the run (initial) and, if dynamic, may re-plan after every observed
// iteration (observe): a Change is a new placement plus the server-to-server moves that realise it.
// The runner (runner.h) carries a change out with the low-interruption switch protocol: the moves
// start at once as real SimGrid transfers, workers flip their key map at the agreed future
// iteration (waiting there only if the moves are not done). Registry: policy_registry()
// (registry.cpp); each policy lives in policies/<name>.cpp with what it implements and assumes.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "comm/workload.h"
#include "core/knobs.h"
#include "core/registry.h"
#include "ps/placement.h"

namespace dmlkit::ps {

struct PsContext {
  const comm::TrainingWorkload* workload = nullptr;
  int servers = 1;  // parameter servers at the start (and of every static policy)
  int workers = 1;
  double bandwidth_Bps = 1.25e9;  // NIC bandwidth (migration cost estimates)
  uint64_t seed = 1;
};

// What the runner saw of one finished iteration, per server host.
struct ServerObservation {
  double bytes = 0;   // bytes of the pieces it served (each pushed by every worker and pulled back)
  double busy_s = 0;  // length of the union of its pieces' [push start, last pull end]
};
struct IterationObservation {
  int iteration = 0;
  double duration_s = 0;  // forward start to the next forward start
  std::vector<ServerObservation> servers;
};

enum class ChangeKind { rebalance, explore, scale_in, scale_out };
const char* to_string(ChangeKind kind);

struct Move {
  int from = 0, to = 0;
  double bytes = 0;
};

struct Change {
  ChangeKind kind = ChangeKind::rebalance;
  Placement placement;      // the key map after the switch
  std::vector<Move> moves;  // one per (from, to) pair; their bytes are exactly the moved blocks'
  int switch_after = 1;     // the map flips at (decision iteration + switch_after)
  double predicted_gain = 0;  // relative predicted reduction of the slowest server's time
};

class AssignmentPolicy {
 public:
  virtual ~AssignmentPolicy() = default;
  // Server hosts the policy may use (spares included).
  virtual int server_hosts(const PsContext& ctx) const { return ctx.servers; }
  virtual Placement initial(const PsContext& ctx) = 0;
  // Called with every complete observation while no switch is pending; a change to start, if any.
  virtual std::optional<Change> observe(const IterationObservation& obs) { return std::nullopt; }
  // The change decided last took effect at the start of `iteration`.
  virtual void on_switched(int iteration) {}
  // Per-server throughput estimates in bytes/s (dynamic policies; empty otherwise).
  virtual std::vector<double> estimates() const { return {}; }
};

using AssignmentFactory = std::unique_ptr<AssignmentPolicy> (*)(const Knobs& knobs);
using AssignmentEntry = RegistryEntry<AssignmentFactory>;
using AssignmentRegistry = Registry<AssignmentEntry>;

// The policies in the order `dmlkit ps list` shows them.
const AssignmentRegistry& policy_registry();
// Error naming the field "policies" for an unknown name; knobs checked against the entry.
std::unique_ptr<AssignmentPolicy> make_policy(const std::string& name, const KnobValues& params);

}  // namespace dmlkit::ps
