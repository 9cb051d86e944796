// live's names for the Slurm client's vocabulary (src/slurm/: the ClusterBackend seam, the real
// client, the parsed jobs and nodes). The controller, its backends (fake, dry-run, timed) and the
// live tests speak of live::ClusterBackend, live::SlurmJob, ... : the client is its own module so
// that sweeps can use it without linking live and cluster, and these using-declarations keep
// live's code and tests unchanged.
#pragma once
#include "slurm/cluster_backend.h"
#include "slurm/slurm_client.h"
#include "slurm/slurm_types.h"

namespace dmlkit::live {

using slurm::ClusterBackend;
using slurm::JobRequest;
using slurm::SlurmClient;
using slurm::SlurmClientOptions;
using slurm::SlurmError;
using slurm::SlurmJob;
using slurm::SlurmNode;
using slurm::SlurmNodeGpus;
using slurm::SlurmSnapshot;

using slurm::classify_slurm_failure;
using slurm::expand_hostlist;
using slurm::operator_rights_problem;
using slurm::parse_gpu_count;
using slurm::parse_gpu_type;
using slurm::parse_sinfo_json;
using slurm::parse_squeue_json;

}  // namespace dmlkit::live
