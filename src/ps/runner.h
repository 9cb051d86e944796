// Runs one assignment policy on the iteration simulator (comm/iteration_sim.h) through the
// comm::PsControl seam: the policy's key map decides where every push/pull goes, the straggler
// scenario is applied at each iteration start, completed iterations are reported to the policy
// (two iterations late: by the start of iteration k+2 every piece of iteration k has finished),
// and a Change is carried out with the low-interruption switch protocol (moves start at once as
// server-to-server SimGrid transfers; the key map flips at the start of the agreed iteration,
// which waits for the moves only if they are not done). Each run is a forked child (SimGrid keeps
// one engine per process); the records come back as JSON.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "comm/network.h"
#include "comm/workload.h"
#include "core/knobs.h"
#include "ps/stragglers.h"

namespace dmlkit::ps {

struct PsRunOptions {
  int iterations = 500;
  double server_Bps = 4e9;  // aggregation throughput of a healthy server CPU [A]
  uint64_t seed = 1;
};

struct PsEvent {
  std::string kind;  // rebalance | explore | scale-in | scale-out
  int decided_iteration = 0;
  int switch_iteration = 0;
  double moved_bytes = 0;       // bytes of the blocks that changed server (the policy's plan)
  double transferred_bytes = 0; // bytes the simulated server-to-server transfers carried
  double migration_s = 0;       // from the decision to the last move's end
  double wait_s = 0;            // the switch iteration waited this long for the moves
  int active_servers = 0;       // servers holding load after the switch
  double predicted_gain = 0;    // relative, the policy's prediction
};

struct PsRun {
  std::string policy;
  int server_hosts = 0;
  std::vector<double> iteration_s;               // every iteration
  double total_s = 0;                            // time for all iterations
  std::vector<std::vector<double>> load_bytes;   // [iteration][server] bytes of the map in force
  std::vector<std::vector<double>> busy_s;       // [iteration][server] observed busy time
  std::vector<std::vector<double>> estimate_Bps; // [iteration][server] (dynamic policies)
  std::vector<PsEvent> events;                   // switches that took effect
  double migrated_bytes = 0;                     // bytes the simulated migrations carried
};

// Validates (Error on bad input) and runs one policy in a forked child.
PsRun run_policy(const comm::TrainingWorkload& workload, const comm::NetworkConfig& net, const std::string& policy,
                 const KnobValues& params, const StragglerScenario& stragglers, const PsRunOptions& options);
// The same in this process (SimGrid: once per process).
PsRun run_policy_in_process(const comm::TrainingWorkload& workload, const comm::NetworkConfig& net,
                            const std::string& policy, const KnobValues& params, const StragglerScenario& stragglers,
                            const PsRunOptions& options);

}  // namespace dmlkit::ps
