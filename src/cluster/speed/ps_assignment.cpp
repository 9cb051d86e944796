// Parameter-to-PS assignment schemes and the imbalance table; see ps_assignment.h.
// PAA follows spec cluster-schedulers.md 2.6 (the Optimus prototype's params_distr.py, in our
// words): avg = ceil(total / p), tiny blocks (<= total / (100 p)) go to the server with the fewest
// requests, medium blocks (<= avg) to the best fit against avg (else the least loaded), big blocks
// are cut into pieces filling servers up to avg in ascending load order, the rest best-fit.
// paa-balanced [A] differs in one rule: a tiny block goes to the server with the fewest requests
// among those it keeps at or below avg (the spec's rule ignores load, so tiny blocks pile onto a
// server already filled to avg by a split block; see docs/optimus.md for the measured effect).
// Keys of a model are its parameterised graph nodes in node-number order [A].
#include "cluster/speed/ps_assignment.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>
#include <sstream>

#include "core/csv.h"
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

namespace {

void give(PsLoad& l, int q, double s) {
  l.bytes[q] += s;
  l.requests[q] += 1;
}

int best_fit(const PsLoad& l, double avg, double s) {
  int best = -1;
  double best_gap = 0;
  for (size_t q = 0; q < l.bytes.size(); ++q) {
    const double gap = avg - l.bytes[q] - s;
    if (gap >= 0 && (best < 0 || gap < best_gap)) {
      best = static_cast<int>(q);
      best_gap = gap;
    }
  }
  if (best >= 0) return best;
  return static_cast<int>(std::min_element(l.bytes.begin(), l.bytes.end()) - l.bytes.begin());
}

void paa(std::span<const double> blocks, int p, bool tiny_by_load, PsLoad& l) {
  const double total = std::accumulate(blocks.begin(), blocks.end(), 0.0);
  const double avg = std::ceil(total / p);
  const double small = total / (100.0 * p);
  std::vector<double> sorted(blocks.begin(), blocks.end());
  std::stable_sort(sorted.begin(), sorted.end(), std::greater<>());
  std::vector<int> by_load(p);
  for (double s : sorted) {
    if (s <= small) {
      int q = -1;
      if (tiny_by_load) {
        // paa-balanced [A]: fewest requests among the servers the block keeps at or below avg.
        for (int k = 0; k < p; ++k)
          if (l.bytes[k] + s <= avg && (q < 0 || l.requests[k] < l.requests[q])) q = k;
        if (q < 0) q = static_cast<int>(std::min_element(l.bytes.begin(), l.bytes.end()) - l.bytes.begin());
      } else {
        q = static_cast<int>(std::min_element(l.requests.begin(), l.requests.end()) - l.requests.begin());
      }
      give(l, q, s);
    } else if (s <= avg) {
      give(l, best_fit(l, avg, s), s);
    } else {
      std::iota(by_load.begin(), by_load.end(), 0);
      std::stable_sort(by_load.begin(), by_load.end(), [&](int a, int b) { return l.bytes[a] < l.bytes[b]; });
      bool done = false;
      for (int q : by_load) {
        const double room = avg - l.bytes[q];
        if (room <= 0) continue;
        if (s >= room) {
          give(l, q, room);
          s -= room;
          if (s <= 0) {
            done = true;
            break;
          }
        } else {
          give(l, best_fit(l, avg, s), s);
          done = true;
          break;
        }
      }
      if (!done && s > 0) give(l, best_fit(l, avg, s), s);
    }
  }
}

}  // namespace

PsLoad assign_parameters(std::span<const double> block_bytes, int p, PsAssignment kind, double mxnet_bigarray_elems) {
  if (p < 1) throw Error("PS assignment: need at least one server");
  PsLoad l;
  l.bytes.assign(p, 0.0);
  l.requests.assign(p, 0);
  switch (kind) {
    case PsAssignment::Mxnet:
      for (size_t key = 0; key < block_bytes.size(); ++key) {
        const double s = block_bytes[key];
        if (s / 4.0 < mxnet_bigarray_elems) {
          give(l, static_cast<int>((key * 9973) % static_cast<size_t>(p)), s);
        } else {
          // Even contiguous parts: round(s/p (i+1)) - round(s/p i) elements.
          const double elems = s / 4.0;
          for (int i = 0; i < p; ++i) give(l, i, 4.0 * (std::round(elems / p * (i + 1)) - std::round(elems / p * i)));
        }
      }
      break;
    case PsAssignment::RoundRobin:
      for (size_t key = 0; key < block_bytes.size(); ++key) give(l, static_cast<int>(key % p), block_bytes[key]);
      break;
    case PsAssignment::Paa:
    case PsAssignment::PaaBalanced:
      paa(block_bytes, p, kind == PsAssignment::PaaBalanced, l);
      break;
  }
  return l;
}

std::vector<double> load_model_parameters(const std::string& graph_path) {
  if (!std::ifstream(graph_path)) throw Error(graph_path, 0, "", "cannot open model graph");
  std::istringstream in(read_text_file(graph_path));
  std::vector<std::pair<long, double>> nodes;
  std::string line;
  long lineno = 0;
  const std::string key = "parameter_size=";
  while (std::getline(in, line)) {
    ++lineno;
    const size_t at = line.find(key);
    if (at == std::string::npos) continue;
    size_t end = line.find_first_of(", \r", at + key.size());
    if (end == std::string::npos) end = line.size();
    double bytes = 0;
    if (!parse_double(std::string_view(line).substr(at + key.size(), end - at - key.size()), bytes) || bytes < 0)
      throw Error(graph_path, lineno, "parameter_size", "not a non-negative number");
    long id = static_cast<long>(nodes.size());
    if (line.rfind("node", 0) == 0) {
      long parsed = 0;
      const size_t sp = line.find(' ');
      if (parse_long(std::string_view(line).substr(4, sp == std::string::npos ? std::string::npos : sp - 4), parsed))
        id = parsed;
    }
    if (bytes > 0) nodes.emplace_back(id, bytes);
  }
  std::stable_sort(nodes.begin(), nodes.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<double> out;
  out.reserve(nodes.size());
  for (const auto& n : nodes) out.push_back(n.second);
  return out;
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
