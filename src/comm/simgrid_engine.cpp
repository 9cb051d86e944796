// See simgrid_engine.h.
#include "comm/simgrid_engine.h"

#include <simgrid/s4u.hpp>
#include <vector>

namespace dmlkit::comm {

std::unique_ptr<simgrid::s4u::Engine> make_simgrid_engine(const std::string& program) {
  std::vector<std::string> args = {program, "--log=root.thres:critical", "--cfg=network/model:CM02",
                                   "--cfg=network/TCP-gamma:0", "--cfg=network/crosstraffic:0"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int argc = static_cast<int>(args.size());
  return std::make_unique<simgrid::s4u::Engine>(&argc, argv.data());  // the engine copies its command line
}

}  // namespace dmlkit::comm
