// The GNN training job and its cost model (see job.h).
#include "gnn/job.h"

#include <algorithm>

#include "core/error.h"

namespace dmlkit::gnn {

SyncMode parse_sync(const std::string& s) {
  if (s == "allreduce") return SyncMode::allreduce;
  if (s == "ps") return SyncMode::ps;
  throw Error("", 0, "sync", "unknown synchronisation '" + s + "' (known: allreduce, ps)");
}
std::string to_string(SyncMode s) { return s == SyncMode::allreduce ? "allreduce" : "ps"; }

const char* to_string(TaskKind k) {
  switch (k) {
    case TaskKind::trainer:
      return "trainer";
    case TaskKind::sampler:
      return "sampler";
    case TaskKind::ps:
      return "ps";
  }
  return "?";
}

void JobConfig::validate() const {
  if (feature_dim < 0 || feature_dim > 1000000) throw Error("", 0, "feature-dim", "must be in [0, 1e6] (0 = the graph's)");
  if (bytes_per_feature < 1 || bytes_per_feature > 64) throw Error("", 0, "bytes-per-feature", "must be in [1, 64]");
  if (hidden < 1 || classes < 1) throw Error("", 0, "hidden", "hidden and classes must be >= 1");
  if (!(v100_TFLOPS > 0)) throw Error("", 0, "v100-TFLOPS", "must be > 0");
  if (!(overhead_s >= 0)) throw Error("", 0, "overhead", "must be >= 0");
  if (!(pcie_Bps > 0)) throw Error("", 0, "pcie", "must be > 0");
  if (!(sample_s_per_edge >= 0)) throw Error("", 0, "sample-us-per-edge", "must be >= 0");
  if (sampler_threads < 1) throw Error("", 0, "sampler-threads", "must be >= 1");
  if (trainer_cores < 0) throw Error("", 0, "trainer-cores", "must be >= 0");
  if (trainers_per_partition < 1) throw Error("", 0, "trainers-per-partition", "must be >= 1");
  if (ps_servers < 1) throw Error("", 0, "ps-servers", "must be >= 1");
  if (prefetch < 0 || prefetch > 16) throw Error("", 0, "prefetch", "must be in [0, 16]");
  if (!(structure_bytes_per_edge >= 0)) throw Error("", 0, "structure-bytes-per-edge", "must be >= 0");
}

double Job::compute_flops(const BatchSample& b) const {
  const int L = static_cast<int>(b.layer_edges.size());
  double flops = 0;
  for (int j = 1; j <= L; ++j) {  // GNN layer j (1 = input side): dst F_{L-j}, src F_{L-j+1}
    const double d_in = j == 1 ? feature_dim : cfg.hidden;
    const double d_out = j == L ? cfg.classes : cfg.hidden;
    const double edges = static_cast<double>(b.layer_edges[L - j]);
    const double dst = static_cast<double>(b.layer_nodes[L - j]);
    flops += edges * d_in + 2.0 * dst * 2.0 * d_in * d_out;
  }
  return 3.0 * flops;
}

double Job::compute_s(const BatchSample& b, double gpu_speed) const {
  const double gpu = compute_flops(b) / (cfg.v100_TFLOPS * 1e12 * gpu_speed) + cfg.overhead_s;
  return gpu + feature_bytes(b.input_nodes()) / cfg.pcie_Bps;
}

Job make_job(const JobConfig& cfg, const Graph& g, const Partitioning& parts, int graph_feature_dim, int layers) {
  cfg.validate();
  if (layers < 1) throw Error("", 0, "fanouts", "at least one layer");
  Job job;
  job.cfg = cfg;
  job.partitions = parts.parts;
  job.feature_dim = cfg.feature_dim > 0 ? cfg.feature_dim : graph_feature_dim > 0 ? graph_feature_dim : 256;
  for (int q = 0; q < parts.parts; ++q)
    for (int r = 0; r < cfg.trainers_per_partition; ++r) job.trainer_partition.push_back(q);
  job.trainers = static_cast<int>(job.trainer_partition.size());
  for (int t = 0; t < job.trainers; ++t)
    job.tasks.push_back({TaskKind::trainer, t, job.trainer_partition[t], 1, cfg.trainer_cores, cfg.trainer_memory_GB * 1e9});
  for (int t = 0; t < job.trainers; ++t)
    job.tasks.push_back({TaskKind::sampler, t, job.trainer_partition[t], 0, 1, cfg.sampler_memory_GB * 1e9});
  if (cfg.sync == SyncMode::ps)
    for (int s = 0; s < cfg.ps_servers; ++s) job.tasks.push_back({TaskKind::ps, s, -1, 0, cfg.ps_cores, cfg.ps_memory_GB * 1e9});
  // Graph-store memory: features and adjacency of the partition's nodes.
  job.store_memory_bytes.assign(parts.parts, 0);
  for (uint32_t v = 0; v < g.nodes; ++v)
    job.store_memory_bytes[parts.part_of[v]] +=
        static_cast<double>(job.feature_dim) * cfg.bytes_per_feature + 8.0 + 4.0 * static_cast<double>(g.degree(v));
  double params = 0;
  for (int j = 1; j <= layers; ++j) {
    const double d_in = j == 1 ? job.feature_dim : cfg.hidden, d_out = j == layers ? cfg.classes : cfg.hidden;
    params += 2 * d_in * d_out + d_out;
  }
  job.gradient_bytes = 4 * params;
  return job;
}

bool fits(const ClusterSpec& c, const Job& job, const Placement& p, int task, int m) {
  const Machine& mc = c.machines[m];
  int gpus = 0, cores = 0;
  double mem = 0;
  for (size_t q = 0; q < c.store_machine.size(); ++q)
    if (c.store_machine[q] == m) mem += job.store_memory_bytes[q];
  for (size_t k = 0; k < p.size(); ++k)
    if (p[k] == m && static_cast<int>(k) != task) {
      gpus += job.tasks[k].gpus;
      cores += job.tasks[k].cores;
      mem += job.tasks[k].memory_bytes;
    }
  const auto& t = job.tasks[task];
  return gpus + t.gpus <= mc.gpus && cores + t.cores <= mc.cores && mem + t.memory_bytes <= mc.memory_bytes;
}

bool feasible(const ClusterSpec& c, const Job& job, const Placement& p, std::string* why) {
  if (p.size() != job.tasks.size()) {
    if (why) *why = "placement has " + std::to_string(p.size()) + " entries for " + std::to_string(job.tasks.size()) + " tasks";
    return false;
  }
  const int M = static_cast<int>(c.machines.size());
  std::vector<int> gpus(M, 0), cores(M, 0);
  std::vector<double> mem(M, 0);
  for (size_t q = 0; q < c.store_machine.size(); ++q) mem[c.store_machine[q]] += job.store_memory_bytes[q];
  for (size_t k = 0; k < p.size(); ++k) {
    if (p[k] < 0 || p[k] >= M) {
      if (why) *why = "task " + std::to_string(k) + " not placed";
      return false;
    }
    gpus[p[k]] += job.tasks[k].gpus;
    cores[p[k]] += job.tasks[k].cores;
    mem[p[k]] += job.tasks[k].memory_bytes;
  }
  for (int m = 0; m < M; ++m) {
    const auto& mc = c.machines[m];
    std::string v;
    if (gpus[m] > mc.gpus) v = "GPUs " + std::to_string(gpus[m]) + " > " + std::to_string(mc.gpus);
    else if (cores[m] > mc.cores) v = "cores " + std::to_string(cores[m]) + " > " + std::to_string(mc.cores);
    else if (mem[m] > mc.memory_bytes) v = "memory " + std::to_string(mem[m] / 1e9) + " GB > " + std::to_string(mc.memory_bytes / 1e9) + " GB";
    if (!v.empty()) {
      if (why) *why = "machine " + std::to_string(m) + ": " + v;
      return false;
    }
  }
  return true;
}

}  // namespace dmlkit::gnn
