// simulate(): runs a workload under a policy with the chosen simulation profile (event-driven
// dmlkit semantics, or the Pollux reference simulator's fixed ticks). See docs/cluster-simulator.md.
#include "cluster/sim/simulator.h"

#include "cluster/sim/sim_core.h"

namespace dmlkit::cluster {

SimResult simulate(const ClusterSpec& cluster, const Workload& workload, const std::string& policy_name, Policy& policy,
                   const SimConfig& config) {
  detail::SimRun run(cluster, workload, policy_name, policy, config);
  switch (config.profile) {
    case SimProfile::Pollux:
      return detail::run_pollux_profile(run);
    case SimProfile::Default:
      break;
  }
  return detail::run_event_profile(run);
}

}  // namespace dmlkit::cluster
