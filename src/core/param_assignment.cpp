// Static parameter-to-server rules (see param_assignment.h).
#include "core/param_assignment.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

#include "core/error.h"

namespace dmlkit {
namespace {

struct Filler {
  ParamAssignment& a;
  void give(size_t block, int q, double s) {
    a.pieces[block].push_back({q, s});
    a.server_bytes[q] += s;
    a.server_requests[q] += 1;
  }
};

int best_fit(const std::vector<double>& bytes, double avg, double s) {
  int best = -1;
  double best_gap = 0;
  for (size_t q = 0; q < bytes.size(); ++q) {
    const double gap = avg - bytes[q] - s;
    if (gap >= 0 && (best < 0 || gap < best_gap)) {
      best = static_cast<int>(q);
      best_gap = gap;
    }
  }
  if (best >= 0) return best;
  return static_cast<int>(std::min_element(bytes.begin(), bytes.end()) - bytes.begin());
}

void paa(std::span<const double> blocks, int p, bool tiny_by_load, Filler& f) {
  const auto& bytes = f.a.server_bytes;
  const auto& requests = f.a.server_requests;
  const double total = std::accumulate(blocks.begin(), blocks.end(), 0.0);
  const double avg = std::ceil(total / p);
  const double small = total / (100.0 * p);
  // Largest first; equal sizes keep key order (a stable sort of the indices).
  std::vector<size_t> order(blocks.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return blocks[a] > blocks[b]; });
  std::vector<int> by_load(p);
  for (size_t b : order) {
    double s = blocks[b];
    if (s <= small) {
      int q = -1;
      if (tiny_by_load) {
        for (int k = 0; k < p; ++k)
          if (bytes[k] + s <= avg && (q < 0 || requests[k] < requests[q])) q = k;
        if (q < 0) q = static_cast<int>(std::min_element(bytes.begin(), bytes.end()) - bytes.begin());
      } else {
        q = static_cast<int>(std::min_element(requests.begin(), requests.end()) - requests.begin());
      }
      f.give(b, q, s);
    } else if (s <= avg) {
      f.give(b, best_fit(bytes, avg, s), s);
    } else {
      std::iota(by_load.begin(), by_load.end(), 0);
      std::stable_sort(by_load.begin(), by_load.end(), [&](int x, int y) { return bytes[x] < bytes[y]; });
      bool done = false;
      for (int q : by_load) {
        const double room = avg - bytes[q];
        if (room <= 0) continue;
        if (s >= room) {
          f.give(b, q, room);
          s -= room;
          if (s <= 0) {
            done = true;
            break;
          }
        } else {
          f.give(b, best_fit(bytes, avg, s), s);
          done = true;
          break;
        }
      }
      if (!done && s > 0) f.give(b, best_fit(bytes, avg, s), s);
    }
  }
}

}  // namespace

ParamAssignment assign_param_blocks(std::span<const double> block_bytes, int p, ParamAssignmentRule rule,
                                    double mxnet_bigarray_elems) {
  if (p < 1) throw Error("PS assignment: need at least one server");
  ParamAssignment a;
  a.pieces.resize(block_bytes.size());
  a.server_bytes.assign(p, 0.0);
  a.server_requests.assign(p, 0);
  Filler f{a};
  switch (rule) {
    case ParamAssignmentRule::Mxnet:
      for (size_t key = 0; key < block_bytes.size(); ++key) {
        const double s = block_bytes[key];
        if (s / 4.0 < mxnet_bigarray_elems) {
          f.give(key, static_cast<int>((key * 9973) % static_cast<size_t>(p)), s);
        } else {
          const double elems = s / 4.0;
          for (int i = 0; i < p; ++i)
            f.give(key, i, 4.0 * (std::round(elems / p * (i + 1)) - std::round(elems / p * i)));
        }
      }
      break;
    case ParamAssignmentRule::RoundRobin:
      for (size_t key = 0; key < block_bytes.size(); ++key) f.give(key, static_cast<int>(key % p), block_bytes[key]);
      break;
    case ParamAssignmentRule::Paa:
    case ParamAssignmentRule::PaaBalanced:
      paa(block_bytes, p, rule == ParamAssignmentRule::PaaBalanced, f);
      break;
  }
  return a;
}

}  // namespace dmlkit
