// metis: METIS k-way partitioning (Karypis & Kumar, "A Fast and High Quality Multilevel Scheme for
// Partitioning Irregular Graphs", SIAM J. Sci. Comput. 1998; Debian libmetis-dev), minimising the
// edge cut with balanced node counts. Graphs with more than metis.coarsen_above_edges undirected
// edges first go through our multilevel pre-step (coarsen.h [A]): clustered level by level down
// to about metis.coarse_nodes supernodes, METIS partitions that weighted graph, and the result is
// projected back and refined at every level, because METIS itself needs more than 8 GB on a
// 10^7-node R-MAT graph.
#include <metis.h>

#include <chrono>
#include <stdexcept>

#include "core/error.h"
#include "core/rng.h"
#include "gnn/coarsen.h"
#include "gnn/partition.h"

namespace dmlkit::gnn {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

static_assert(sizeof(idx_t) == sizeof(int32_t), "METIS built with 64-bit idx_t");

// METIS_PartGraphKway on a CSR graph with optional vertex and edge weights.
std::vector<idx_t> metis_kway(idx_t n, idx_t* xadj, idx_t* adjncy, idx_t* vwgt, idx_t* adjwgt, int parts,
                              double imbalance, uint64_t seed) {
  idx_t ncon = 1, nparts = parts, objval = 0;
  std::vector<idx_t> out(n);
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = static_cast<idx_t>(seed & 0x7FFFFFFF);
  options[METIS_OPTION_UFACTOR] = static_cast<idx_t>(imbalance * 1000 + 0.5);
  const int rc = METIS_PartGraphKway(&n, &ncon, xadj, adjncy, vwgt, nullptr, adjwgt, &nparts, nullptr, nullptr, options,
                                     &objval, out.data());
  if (rc != METIS_OK) throw std::runtime_error("METIS_PartGraphKway failed with status " + std::to_string(rc));
  return out;
}

class Metis final : public GraphPartitioner {
 public:
  Metis(uint64_t coarsen_above, uint64_t coarse_nodes, double cluster_fraction, int max_levels, int lp_rounds,
        int refine_rounds, double imbalance)
      : coarsen_above_(coarsen_above),
        coarse_nodes_(coarse_nodes),
        cluster_fraction_(cluster_fraction),
        max_levels_(max_levels),
        lp_rounds_(lp_rounds),
        refine_rounds_(refine_rounds),
        imbalance_(imbalance) {}

  void partition(const Graph& g, int parts, uint64_t seed, int threads, Partitioning& out) const override {
    if (g.undirected_edges() > coarsen_above_) {
      multilevel(g, parts, seed, threads, out);
      return;
    }
    if (g.neighbours.size() > 0x7FFFFFFFULL)
      throw Error("", 0, "partitioner", "graph too large for 32-bit METIS (lower metis.coarsen_above_edges)");
    std::vector<idx_t> xadj(g.offsets.begin(), g.offsets.end());
    // The neighbour ids are below 2^31 (checked above), so the uint32 array is a valid idx_t array.
    idx_t* adjncy = reinterpret_cast<idx_t*>(const_cast<uint32_t*>(g.neighbours.data()));
    const auto part =
        metis_kway(static_cast<idx_t>(g.nodes), xadj.data(), adjncy, nullptr, nullptr, parts, imbalance_, seed);
    for (uint32_t v = 0; v < g.nodes; ++v) out.part_of[v] = static_cast<uint16_t>(part[v]);
  }

 private:
  // Coarsens level by level until at most coarse_nodes_ supernodes remain (or max_levels_ levels,
  // or a level merges nothing), partitions the coarsest level with METIS, then projects back and
  // refines at every level, the finest included.
  void multilevel(const Graph& g, int parts, uint64_t seed, int threads, Partitioning& out) const {
    CoarsenConfig cc;
    cc.threads = threads;
    cc.target_nodes = coarse_nodes_;
    // Clusters of at most 1 / cluster_fraction of a part's allowed size (the size-constrained
    // label propagation of Meyerhenke, Sanders and Schulz bounds clusters by L_max / f) [A].
    cc.max_cluster_nodes =
        static_cast<uint64_t>((1 + imbalance_) * static_cast<double>(g.nodes) / parts / cluster_fraction_);
    cc.rounds = lp_rounds_;
    auto level_seed = [&](size_t level) { return Rng(seed).split(500 + level).next(); };
    auto t0 = std::chrono::steady_clock::now();
    std::vector<CoarseGraph> levels;
    cc.seed = level_seed(0);
    levels.push_back(coarsen(g, cc));
    while (static_cast<int>(levels.size()) < max_levels_ && levels.back().nodes > coarse_nodes_) {
      cc.seed = level_seed(levels.size());
      CoarseGraph next = coarsen(levels.back(), cc);
      if (next.nodes >= levels.back().nodes) break;  // nothing merged: the previous level is the coarsest
      levels.push_back(std::move(next));
    }
    out.coarsen_s = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    CoarseGraph& top = levels.back();
    out.coarsen_levels = static_cast<int>(levels.size());
    out.coarse_nodes = top.nodes;
    out.coarse_edges = top.edges();
    std::vector<uint16_t> part(top.nodes);
    if (top.nodes <= static_cast<uint32_t>(parts)) {  // (almost) no edges: every cluster its own part
      for (uint32_t c = 0; c < top.nodes; ++c) part[c] = static_cast<uint16_t>(c);
    } else {
      const auto metis = metis_kway(static_cast<idx_t>(top.nodes), top.xadj.data(), top.adjncy.data(), top.vwgt.data(),
                                    top.adjwgt.data(), parts, imbalance_, seed);
      for (uint32_t c = 0; c < top.nodes; ++c) part[c] = static_cast<uint16_t>(metis[c]);
    }
    out.metis_s = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    // At every level: project, refine with the level's unplaced nodes (degree 0) as balance
    // slack, then place those on the lightest parts.
    for (size_t l = levels.size() - 1; l > 0; --l) {
      part = project_partition(levels[l], part);
      levels.pop_back();
      out.refine_moves += refine_partition(levels[l - 1], part, parts, refine_rounds_, imbalance_, level_seed(100 + l));
      fill_unassigned(part, parts, &levels[l - 1].vwgt);
    }
    out.part_of = project_partition(levels[0], part);
    levels.clear();
    std::vector<uint16_t>().swap(part);
    out.refine_moves += refine_partition(g, out.part_of, parts, refine_rounds_, imbalance_, seed);
    fill_unassigned(out.part_of, parts);
    out.refine_s = seconds_since(t0);
  }

  uint64_t coarsen_above_, coarse_nodes_;
  double cluster_fraction_;
  int max_levels_, lp_rounds_, refine_rounds_;
  double imbalance_;
};

}  // namespace

PartitionerEntry metis_entry() {
  return {
      "metis",
      "METIS k-way, min edge cut with balanced parts; large graphs via our multilevel pre-step (label-propagation "
      "clustering over several levels, METIS on the coarsest graph, projection and refinement at every level)",
      [](const Knobs& k) -> std::unique_ptr<GraphPartitioner> {
        return std::make_unique<Metis>(
            static_cast<uint64_t>(k.get_int("metis.coarsen_above_edges")),
            static_cast<uint64_t>(k.get_int("metis.coarse_nodes")), k.get_double("metis.cluster_fraction"),
            static_cast<int>(k.get_int("metis.max_levels")), static_cast<int>(k.get_int("metis.lp_rounds")),
            static_cast<int>(k.get_int("metis.refine_rounds")), k.get_double("metis.imbalance"));
      },
      {knob_int("metis.coarsen_above_edges", 20'000'000,
                "graphs with more undirected edges go through the multilevel pre-step first [A] (0 = always)")
           .at_least(0),
       knob_int("metis.coarse_nodes", 50'000, "pre-step: coarsening stops once at most this many supernodes remain [A]")
           .at_least(1),
       knob_double("metis.cluster_fraction", 20,
                   "pre-step: a cluster holds at most (1 + imbalance) x nodes / parts / this many nodes [A]")
           .at_least(1),
       knob_int("metis.max_levels", 8,
                "pre-step: clustering levels at most (each clusters the previous level's weighted graph) [A]")
           .range(1, 64),
       knob_int("metis.lp_rounds", 3, "pre-step: label-propagation clustering rounds per level at most [A]")
           .range(1, 100),
       knob_int("metis.refine_rounds", 3,
                "pre-step: balanced label-propagation refinement rounds at every level after projection [A]")
           .range(0, 100),
       knob_double("metis.imbalance", 0.03,
                   "largest part may exceed nodes / parts by this fraction (METIS ufactor / 1000)")
           .range(0.001, 1)}};
}

}  // namespace dmlkit::gnn
