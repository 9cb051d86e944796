// One distributed GNN training job (DistDGL-style; our reconstruction [A], spec section A.3): per
// partition one trainer (GPU) and one sampler (CPU), optionally several trainers per partition,
// and for PS synchronisation some parameter-server shards. Its costs per iteration come from the
// sampled mini-batches (sampler.h) and a GraphSAGE cost model whose constants are knobs:
//
//   sampling   : a sampler process reserves 1 core (placement); each sampling task takes
//                sampler_threads cores of its machine's free pool (cores not reserved by trainers
//                or PS shards) for sampled edges x sample_s_per_edge / sampler_threads seconds,
//                overlapped with fetching the sampled structure of remote partitions (edges x
//                structure_bytes_per_edge from each partition's store to the sampler);
//   transfer   : from each partition q's store to the trainer, input nodes of q x feature_dim x
//                bytes_per_feature, plus the sampled blocks (edges x structure_bytes_per_edge) from
//                the sampler to the trainer; nothing crosses the network when both ends share a
//                machine;
//   compute    : GraphSAGE-mean forward + backward = 3 x sum over layers of (edges x d_in +
//                2 x dst nodes x 2 d_in x d_out) FLOPs at v100_TFLOPS x the GPU's speed ratio,
//                plus the features' host-to-device copy (pcie_Bps) and a fixed overhead;
//   synchronise: gradients of sum_l (2 d_in d_out + d_out) fp32 parameters, by ring all-reduce
//                among the trainers or push/pull to the PS shards.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "gnn/cluster.h"
#include "gnn/sampler.h"

namespace dmlkit::gnn {

enum class SyncMode { allreduce, ps };
SyncMode parse_sync(const std::string& s);  // allreduce | ps
std::string to_string(SyncMode s);

struct JobConfig {
  int feature_dim = 0;            // 0 = the graph's own (cora 1433, ...) or 256 [A]
  int bytes_per_feature = 4;      // fp32
  int hidden = 256;               // [A]
  int classes = 16;               // [A]
  double v100_TFLOPS = 4;         // effective GNN throughput of a V100 [A]
  double overhead_s = 0.002;      // per compute task: kernel launches, optimizer [A]
  double pcie_Bps = 12e9;         // host-to-device copy of the input features [A]
  double sample_s_per_edge = 2e-7;  // CPU seconds per sampled edge [A]
  int sampler_threads = 4;        // cores a sampling task uses [A]
  int trainer_cores = 2;          // cores a trainer reserves [A]
  double trainer_memory_GB = 4, sampler_memory_GB = 2, ps_memory_GB = 1;  // [A]
  int ps_cores = 2;
  double structure_bytes_per_edge = 8;  // two int32 ids [A]
  int trainers_per_partition = 1;
  SyncMode sync = SyncMode::allreduce;
  int ps_servers = 1;
  int prefetch = 1;  // sampling and transfers may run this many iterations ahead of compute
  void validate() const;
};

enum class TaskKind { trainer, sampler, ps };
const char* to_string(TaskKind k);

// A task to place: trainers first, then samplers (sampler t feeds trainer t), then PS shards.
struct PlacedTask {
  TaskKind kind;
  int index;      // trainer / sampler / ps index
  int partition;  // trainers and samplers: the partition whose seeds they use; ps: -1
  int gpus, cores;
  double memory_bytes;
};

using Placement = std::vector<int>;  // machine of each task, in the order of Job::tasks

struct Job {
  JobConfig cfg;
  int partitions = 1;
  int trainers = 1;
  int feature_dim = 256;
  std::vector<int> trainer_partition;
  std::vector<PlacedTask> tasks;
  std::vector<double> store_memory_bytes;  // per partition
  double gradient_bytes = 0;
  std::shared_ptr<const SampleSet> samples;

  int trainer_task(int t) const { return t; }
  int sampler_task(int t) const { return trainers + t; }
  int ps_task(int s) const { return 2 * trainers + s; }
  int ps_count() const { return static_cast<int>(tasks.size()) - 2 * trainers; }

  double feature_bytes(uint64_t nodes) const { return static_cast<double>(nodes) * feature_dim * cfg.bytes_per_feature; }
  double compute_flops(const BatchSample& b) const;
  double compute_s(const BatchSample& b, double gpu_speed) const;  // on a GPU of that speed
};

// Builds the job (without samples); `graph_feature_dim` is used when cfg.feature_dim is 0 (then
// 256 if unknown); `layers` = the number of fanouts.
Job make_job(const JobConfig& cfg, const Graph& g, const Partitioning& parts, int graph_feature_dim, int layers);

// Per-machine use by a placement; feasible() says whether every machine's GPUs, cores and memory
// (graph-store partitions included) suffice; `why` names the first violation.
bool feasible(const ClusterSpec& c, const Job& job, const Placement& p, std::string* why = nullptr);
// Could task `task` be added to machine m given the others already placed (-1 = not placed)?
bool fits(const ClusterSpec& c, const Job& job, const Placement& p, int task, int m);

}  // namespace dmlkit::gnn
