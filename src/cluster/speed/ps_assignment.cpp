// Parameter-to-PS assignment schemes and the imbalance table; see ps_assignment.h. The rules
// themselves (mxnet, round-robin, PAA and paa-balanced [A]) live in core/param_assignment.h, shared
// with the iteration-level ps/ module; paa-balanced's effect is measured in docs/optimus.md.
// Keys of a model are its parameterised graph nodes in node-number order [A].
#include "cluster/speed/ps_assignment.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>
#include <sstream>

#include "core/csv.h"
#include "core/param_assignment.h"
#include "core/pipedream_graph.h"
#include "core/error.h"
#include "core/output_dir.h"
#include "cluster/model/ps_job.h"

namespace dmlkit::cluster {

PsAssignment parse_ps_assignment(const std::string& name) {
  if (name == "mxnet") return PsAssignment::Mxnet;
  if (name == "round-robin") return PsAssignment::RoundRobin;
  if (name == "paa") return PsAssignment::Paa;
  if (name == "paa-balanced") return PsAssignment::PaaBalanced;
  throw Error("unknown PS assignment '" + name + "' (known: mxnet, round-robin, paa, paa-balanced)");
}

const char* ps_assignment_name(PsAssignment a) {
  switch (a) {
    case PsAssignment::Mxnet:
      return "mxnet";
    case PsAssignment::RoundRobin:
      return "round-robin";
    case PsAssignment::Paa:
      return "paa";
    case PsAssignment::PaaBalanced:
      return "paa-balanced";
  }
  return "?";
}

double PsLoad::max_minus_min() const {
  if (bytes.empty()) return 0;
  const auto [lo, hi] = std::minmax_element(bytes.begin(), bytes.end());
  return *hi - *lo;
}

double PsLoad::imbalance() const {
  if (bytes.empty()) return 1;
  const double total = std::accumulate(bytes.begin(), bytes.end(), 0.0);
  if (total <= 0) return 1;
  return *std::max_element(bytes.begin(), bytes.end()) / (total / bytes.size());
}

int PsLoad::total_requests() const { return std::accumulate(requests.begin(), requests.end(), 0); }

PsLoad assign_parameters(std::span<const double> block_bytes, int p, PsAssignment kind, double mxnet_bigarray_elems) {
  ParamAssignmentRule rule = ParamAssignmentRule::Mxnet;
  switch (kind) {
    case PsAssignment::Mxnet:
      rule = ParamAssignmentRule::Mxnet;
      break;
    case PsAssignment::RoundRobin:
      rule = ParamAssignmentRule::RoundRobin;
      break;
    case PsAssignment::Paa:
      rule = ParamAssignmentRule::Paa;
      break;
    case PsAssignment::PaaBalanced:
      rule = ParamAssignmentRule::PaaBalanced;
      break;
  }
  ParamAssignment a = assign_param_blocks(block_bytes, p, rule, mxnet_bigarray_elems);
  PsLoad l;
  l.bytes = std::move(a.server_bytes);
  l.requests = std::move(a.server_requests);
  return l;
}

std::vector<double> load_model_parameters(const std::string& graph_path) {
  if (!std::ifstream(graph_path)) throw Error(graph_path, 0, "", "cannot open model graph");
  return parameter_sizes_by_node_number(read_model_graph(graph_path, ""));
}

PsBalanceTable::PsBalanceTable(const std::string& data_dir, PsAssignment kind) : kind_(kind) {
  const auto& types = ps_job_types();
  imb_.assign(types.size(), std::vector<double>(kMaxPs, 1.0));
  mxnet_.assign(types.size(), std::vector<double>(kMaxPs, 1.0));
  for (size_t t = 0; t < types.size(); ++t) {
    if (types[t].model_graph.empty()) continue;
    const auto blocks = load_model_parameters(data_dir + "/model-graphs/" + types[t].model_graph + ".txt");
    for (int p = 1; p <= kMaxPs; ++p) {
      mxnet_[t][p - 1] = assign_parameters(blocks, p, PsAssignment::Mxnet).imbalance();
      imb_[t][p - 1] = kind == PsAssignment::Mxnet ? mxnet_[t][p - 1] : assign_parameters(blocks, p, kind).imbalance();
    }
  }
}

double PsBalanceTable::imbalance(int type, int p) const {
  if (p < 1) return 1.0;
  return imb_[type][std::min(p, kMaxPs) - 1];
}

double PsBalanceTable::mxnet_imbalance(int type, int p) const {
  if (p < 1) return 1.0;
  return mxnet_[type][std::min(p, kMaxPs) - 1];
}

}  // namespace dmlkit::cluster
