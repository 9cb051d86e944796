// Defaults of the ClusterBackend interface (see cluster_backend.h): a snapshot is two queries, the
// clock is the system's.
#include "slurm/cluster_backend.h"

#include <chrono>
#include <thread>

namespace dmlkit::slurm {

SlurmSnapshot ClusterBackend::snapshot() {
  SlurmSnapshot s;
  s.nodes = nodes();
  s.jobs = jobs();
  return s;
}

double ClusterBackend::now_s() const {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

void ClusterBackend::sleep_s(double seconds) {
  if (seconds > 0) std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

}  // namespace dmlkit::slurm
