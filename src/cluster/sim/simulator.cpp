// simulate(): runs a workload under a policy with the chosen simulation profile (event-driven
// dmlkit semantics, or the Pollux reference simulator's fixed ticks). See docs/cluster-simulator.md.
#include "cluster/sim/simulator.h"

#include <cmath>
#include <limits>

#include "cluster/sim/sim_core.h"
#include "core/error.h"

namespace dmlkit::cluster {

SimResult simulate(const ClusterSpec& cluster, const Workload& workload, const std::string& policy_name, Policy& policy,
                   const SimConfig& config) {
  // A cluster manager's arrival latency: the scheduler sees each job that much later; its JCT and
  // the makespan still count from the workload's arrival. Outside the simulation loop.
  if (config.arrival_latency_s > 0 && std::isfinite(config.arrival_latency_s)) {
    Workload late = workload;
    for (Job& j : late.jobs) j.arrival_s += config.arrival_latency_s;
    SimConfig c = config;
    c.arrival_latency_s = 0;
    SimResult r = simulate(cluster, late, policy_name, policy, c);
    bool any_finished = false;
    for (JobRecord& rec : r.jobs) {
      rec.arrival_s -= config.arrival_latency_s;
      any_finished = any_finished || rec.finished();
    }
    if (any_finished) r.makespan_s += config.arrival_latency_s;
    return r;
  }
  detail::SimRun run(cluster, workload, policy_name, policy, config);
  switch (config.profile) {
    case SimProfile::Pollux:
      return detail::run_pollux_profile(run);
    case SimProfile::Default:
    case SimProfile::TiresiasSim:
      break;
  }
  return detail::run_event_profile(run);
}

ProfileDefaults profile_defaults(const std::string& profile) {
  ProfileDefaults d;
  if (profile == "default") return d;
  if (profile == "pollux") {
    d.config.profile = SimProfile::Pollux;
    return d;
  }
  if (profile == "tiresias-sim") {
    d.config = tiresias_sim_config();
    d.placement = PlacementKind::FirstFit;
    return d;
  }
  throw Error("--profile: unknown profile '" + profile + "' (known: default, pollux, tiresias-sim)");
}

SimConfig tiresias_sim_config() {
  SimConfig c;
  c.profile = SimProfile::TiresiasSim;
  c.round_s = std::numeric_limits<double>::infinity();
  c.restart_delay_s = 0;
  c.charge_first_start = false;
  c.schedule_on_events = true;
  return c;
}

}  // namespace dmlkit::cluster
