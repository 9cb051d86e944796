// Neighbour sampling over the real graph (see sampler.h).
#include "gnn/sampler.h"

#include <map>
#include <mutex>
#include <numeric>

#include "core/error.h"
#include "core/parallel_for.h"

namespace dmlkit::gnn {

void SamplerConfig::validate() const {
  if (fanouts.empty()) throw Error("", 0, "fanouts", "at least one fanout is needed");
  for (int f : fanouts)
    if (f < 1) throw Error("", 0, "fanouts", "every fanout must be >= 1, got " + std::to_string(f));
  if (batch < 1) throw Error("", 0, "batch", "must be >= 1");
  if (!(train_fraction > 0 && train_fraction <= 1)) throw Error("", 0, "train-fraction", "must be in (0, 1]");
}

uint64_t BatchSample::sampled_edges() const { return std::accumulate(layer_edges.begin(), layer_edges.end(), uint64_t{0}); }

BatchSample sample_batch(const Graph& g, const Partitioning& parts, const std::vector<uint32_t>& seeds,
                         const std::vector<int>& fanouts, Rng& rng, SampleScratch& s,
                         std::vector<std::pair<uint32_t, uint32_t>>* edges) {
  if (s.stamp.size() != g.nodes) s.stamp.assign(g.nodes, 0), s.epoch = 0;
  if (++s.epoch == 0) std::fill(s.stamp.begin(), s.stamp.end(), 0), s.epoch = 1;
  BatchSample b;
  b.nodes_per_part.assign(parts.parts, 0);
  b.edges_per_part.assign(parts.parts, 0);
  s.frontier.clear();
  for (uint32_t v : seeds)
    if (s.stamp[v] != s.epoch) s.stamp[v] = s.epoch, s.frontier.push_back(v);
  b.layer_nodes.push_back(s.frontier.size());
  uint32_t pick[64];
  for (int k : fanouts) {
    s.next = s.frontier;  // F_{h+1} starts as F_h
    uint64_t hop_edges = 0;
    for (uint32_t v : s.frontier) {
      const uint64_t deg = g.degree(v), base = g.offsets[v];
      uint64_t taken = 0;
      auto take = [&](uint32_t u) {
        ++taken;
        if (edges) edges->push_back({v, u});
        if (s.stamp[u] != s.epoch) s.stamp[u] = s.epoch, s.next.push_back(u);
      };
      if (deg <= static_cast<uint64_t>(k)) {
        for (uint64_t j = 0; j < deg; ++j) take(g.neighbours[base + j]);
      } else if (k <= 64) {
        // Floyd's algorithm: k distinct indices of [0, deg).
        int m = 0;
        for (uint64_t j = deg - k; j < deg; ++j) {
          const uint32_t t = static_cast<uint32_t>(rng.uniform_int(0, static_cast<int64_t>(j)));
          bool dup = false;
          for (int x = 0; x < m; ++x) dup = dup || pick[x] == t;
          pick[m++] = dup ? static_cast<uint32_t>(j) : t;
        }
        for (int x = 0; x < m; ++x) take(g.neighbours[base + pick[x]]);
      } else {
        std::vector<uint32_t> idx(deg);
        std::iota(idx.begin(), idx.end(), 0u);
        rng.sample_prefix(idx.begin(), idx.end(), k);
        for (int x = 0; x < k; ++x) take(g.neighbours[base + idx[x]]);
      }
      hop_edges += taken;
      b.edges_per_part[parts.part_of[v]] += taken;
    }
    b.layer_edges.push_back(hop_edges);
    s.frontier.swap(s.next);
    b.layer_nodes.push_back(s.frontier.size());
  }
  for (uint32_t v : s.frontier) ++b.nodes_per_part[parts.part_of[v]];
  return b;
}

namespace {

struct CacheKey {
  uint64_t graph;  // fingerprints of the graph and the partitioning (not addresses: tests reuse them)
  uint64_t nodes, edges;
  uint64_t parts;
  std::vector<int> trainer_partition, fanouts;
  int batch, iterations;
  double fraction;
  uint64_t seed;
  bool operator<(const CacheKey& o) const {
    return std::tie(graph, nodes, edges, parts, trainer_partition, fanouts, batch, iterations, fraction, seed) <
           std::tie(o.graph, o.nodes, o.edges, o.parts, o.trainer_partition, o.fanouts, o.batch, o.iterations,
                    o.fraction, o.seed);
  }
};

uint64_t mix(uint64_t h, uint64_t x) { return (h ^ x) * 0x100000001B3ULL + 0x9E3779B97F4A7C15ULL; }
uint64_t fingerprint(const Graph& g) {
  uint64_t h = mix(g.nodes, g.neighbours.size());
  for (size_t i = 0; i < g.neighbours.size(); i += 1 + g.neighbours.size() / 4096) h = mix(h, g.neighbours[i] + i);
  for (size_t i = 0; i < g.offsets.size(); i += 1 + g.offsets.size() / 4096) h = mix(h, g.offsets[i]);
  return h;
}
uint64_t fingerprint(const Partitioning& p) {
  uint64_t h = mix(p.parts, p.cut_edges);
  for (size_t i = 0; i < p.part_of.size(); ++i) h = mix(h, p.part_of[i]);
  return h;
}

std::mutex cache_mutex;
std::map<CacheKey, std::shared_ptr<const SampleSet>>& cache() {
  static std::map<CacheKey, std::shared_ptr<const SampleSet>> c;
  return c;
}

}  // namespace

std::shared_ptr<const SampleSet> sample_iterations(const Graph& g, const Partitioning& parts,
                                                   const std::vector<int>& trainer_partition,
                                                   const SamplerConfig& cfg, int iterations, int threads) {
  cfg.validate();
  const CacheKey key{fingerprint(g), g.nodes, g.neighbours.size(), fingerprint(parts), trainer_partition, cfg.fanouts,
                     cfg.batch, iterations, cfg.train_fraction,  cfg.seed};
  {
    std::lock_guard<std::mutex> lock(cache_mutex);
    auto it = cache().find(key);
    if (it != cache().end()) return it->second;
  }
  auto set = std::make_shared<SampleSet>();
  const int trainers = static_cast<int>(trainer_partition.size());
  set->trainers = trainers;
  set->iterations = iterations;
  // Training nodes per partition: a seeded share of all nodes.
  std::vector<std::vector<uint32_t>> train(parts.parts);
  Rng pick = Rng(cfg.seed).split(21);
  for (uint32_t v = 0; v < g.nodes; ++v)
    if (cfg.train_fraction >= 1 || pick.uniform() < cfg.train_fraction) train[parts.part_of[v]].push_back(v);
  for (const auto& t : train) set->train_nodes += t.size();
  const uint64_t per_iter = static_cast<uint64_t>(trainers) * cfg.batch;
  set->iterations_per_epoch = static_cast<int>(std::max<uint64_t>(1, (set->train_nodes + per_iter - 1) / per_iter));
  std::vector<int> replicas(parts.parts, 0), replica_of(trainers, 0);
  for (int t = 0; t < trainers; ++t) {
    const int q = trainer_partition[t];
    if (q < 0 || q >= parts.parts) throw Error("", 0, "trainers", "trainer partition out of range");
    replica_of[t] = replicas[q]++;
  }
  set->batches.assign(trainers, {});
  parallel_for(trainers, threads, [&](size_t ti) {
    const int t = static_cast<int>(ti);
    const int q = trainer_partition[t];
    SampleScratch scratch;
    Rng rng = Rng(cfg.seed).split(1000 + t);
    std::vector<uint32_t> order = train[q];
    if (order.empty()) order.push_back(0);  // a partition without training nodes (tiny graphs)
    const int r = replica_of[t], R = replicas[q];
    uint64_t pos = static_cast<uint64_t>(r) * cfg.batch;
    uint64_t pass = 0;
    Rng shuffle = Rng(cfg.seed).split(5000 + q);
    shuffle.shuffle(order.begin(), order.end());
    std::vector<uint32_t> seeds;
    for (int it = 0; it < iterations; ++it) {
      seeds.clear();
      for (int k = 0; k < cfg.batch; ++k) {
        uint64_t p = pos + k;
        const uint64_t wrap = p / order.size();
        if (wrap != pass) {
          pass = wrap;
          Rng(cfg.seed).split(5000 + q + 7919 * pass).shuffle(order.begin(), order.end());
        }
        seeds.push_back(order[p % order.size()]);
      }
      pos += static_cast<uint64_t>(R) * cfg.batch;
      set->batches[t].push_back(sample_batch(g, parts, seeds, cfg.fanouts, rng, scratch));
    }
  });
  std::lock_guard<std::mutex> lock(cache_mutex);
  if (cache().size() > 32) cache().clear();
  return cache().emplace(key, set).first->second;
}

}  // namespace dmlkit::gnn
