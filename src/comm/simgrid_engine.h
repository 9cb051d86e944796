// The one way dmlkit starts a SimGrid engine (comm's iteration simulator, gnn's task DAG): the
// CM02 max-min bandwidth-sharing model with TCP-gamma and cross-traffic off (flows share links
// max-min fairly, as docs/comm.md models them), and SimGrid's own logging silenced below critical.
// Each simulation runs in its own process (core/subprocess.h), which owns one engine.
#pragma once
#include <memory>
#include <string>

namespace simgrid::s4u {
class Engine;
}

namespace dmlkit::comm {

// A new engine named `program` (SimGrid's argv[0]) with the settings above.
std::unique_ptr<simgrid::s4u::Engine> make_simgrid_engine(const std::string& program);

}  // namespace dmlkit::comm
