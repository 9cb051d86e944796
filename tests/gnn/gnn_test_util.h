// Small fixtures of the gnn tests: a graph, its partitioning, a cluster and a sampled job.
#pragma once
#include <string>

#include "core/data_dir.h"
#include "gnn/cluster.h"
#include "gnn/graph.h"
#include "gnn/job.h"
#include "gnn/partition.h"
#include "gnn/sampler.h"

namespace dmlkit::gnn::fixture {

inline std::string gavel_path() { return std::string(DMLKIT_SOURCE_DIR) + "/data/gavel-throughputs/simulation_throughputs.json"; }
inline std::string data_dir() { return std::string(DMLKIT_SOURCE_DIR) + "/data"; }

struct Fixture {
  Graph graph;
  Partitioning parts;
  ClusterSpec cluster;
  Job job;
};

// Cora (2,708 nodes) in `partitions` METIS parts on `machines` machines of `devices`.
inline Fixture make_setup(int partitions, int machines, const std::string& devices, int iterations = 4,
                        JobConfig cfg = {}, SamplerConfig scfg = {}) {
  Fixture s;
  s.graph = load_graph("cora", GraphFormat::Auto, data_dir(), 1);
  s.parts = partition_graph(s.graph, partitions, Partitioner::metis, 1);
  ClusterOptions co;
  co.machines = machines;
  co.devices = devices;
  co.gavel_path = gavel_path();
  s.cluster = build_cluster(co, partitions);
  if (cfg.feature_dim == 0) cfg.feature_dim = 128;
  scfg.batch = 128;
  s.job = make_job(cfg, s.graph, s.parts, s.graph.default_feature_dim, static_cast<int>(scfg.fanouts.size()));
  s.job.samples = sample_iterations(s.graph, s.parts, s.job.trainer_partition, scfg, iterations, 1);
  return s;
}

}  // namespace dmlkit::gnn::fixture
