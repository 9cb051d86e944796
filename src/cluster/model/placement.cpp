// Placement choices: turning a GPU count into (server, GPUs) slices over the free GPUs.
//
// Every kind is deterministic (ties always go to the lowest server id) and either places all the
// requested GPUs or nothing. The kinds, precisely:
//   consolidate  Fewest servers. If one server has room for the whole job, use the server with
//                the FEWEST free GPUs that still fits it (best fit, keeps big holes for big jobs).
//                Otherwise take servers in decreasing order of free GPUs, all their free GPUs
//                each, and as soon as the remainder fits on one server, best-fit the remainder.
//                This uses the minimum possible number of servers.
//   spread       One GPU at a time, each to the server that has the most free GPUs left at that
//                moment (water-filling), so the job lands on as many servers as the free GPUs
//                allow and the remaining free GPUs stay balanced. Slices are listed in the order
//                their servers were first chosen.
//   first-fit    Servers in id order; take all free GPUs of each until the job is placed.
//   most-free    Repeatedly take all it can from the server with the most free GPUs (the Pollux
//                reference simulator's greedy; differs from consolidate when a job fits on one
//                server: most-free picks the emptiest server, consolidate the fullest that fits).
#include "cluster/model/placement.h"

#include <algorithm>
#include <numeric>
#include <queue>

#include "core/error.h"

namespace dmlkit::cluster {

PlacementKind parse_placement_kind(const std::string& name) {
  if (name == "consolidate") return PlacementKind::Consolidate;
  if (name == "spread") return PlacementKind::Spread;
  if (name == "first-fit" || name == "firstfit" || name == "first_fit") return PlacementKind::FirstFit;
  if (name == "most-free" || name == "mostfree" || name == "most_free") return PlacementKind::MostFree;
  throw Error("unknown placement '" + name + "' (known: consolidate, spread, first-fit, most-free)");
}

const char* placement_kind_name(PlacementKind k) {
  switch (k) {
    case PlacementKind::Consolidate:
      return "consolidate";
    case PlacementKind::Spread:
      return "spread";
    case PlacementKind::FirstFit:
      return "first-fit";
    case PlacementKind::MostFree:
      return "most-free";
  }
  return "?";
}

FreeGpus::FreeGpus(std::vector<int> free_per_server) { assign(free_per_server); }

void FreeGpus::assign(std::span<const int> free_per_server) {
  free_.assign(free_per_server.begin(), free_per_server.end());
  total_ = 0;
  for (int& f : free_) {
    if (f < 0) f = 0;
    total_ += f;
  }
}

namespace {

// Server with the fewest free GPUs that still holds `need` (ties: lowest id); -1 if none.
int best_fit(const std::vector<int>& free, int need) {
  int best = -1;
  for (int s = 0; s < static_cast<int>(free.size()); ++s) {
    if (free[s] >= need && (best < 0 || free[s] < free[best])) best = s;
  }
  return best;
}

// Servers by decreasing free GPUs, ties to the lowest id (the order of a stable sort of 0..n-1),
// in `order`. A counting sort whose counts live behind the n result slots: std::stable_sort
// allocates a buffer per call, and this runs for every multi-server placement of a long trace.
void by_most_free(const std::vector<int>& free, std::vector<int>& order) {
  const size_t n = free.size();
  if (n == 0) {
    order.clear();
    return;
  }
  const auto [lo, hi] = std::minmax_element(free.begin(), free.end());
  const size_t range = static_cast<size_t>(static_cast<long>(*hi) - *lo) + 1;
  if (range > 4 * n + 64) {  // a few servers with huge counts: sorting is cheaper
    order.resize(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return free[a] > free[b]; });
    return;
  }
  const int top = *hi;
  order.assign(n + range + 1, 0);
  int* start = order.data() + n;  // start[b]: first result slot of bucket b (b = top - free)
  for (int f : free) ++start[top - f + 1];
  for (size_t b = 1; b <= range; ++b) start[b] += start[b - 1];
  for (size_t s = 0; s < n; ++s) order[start[top - free[s]]++] = static_cast<int>(s);
  order.resize(n);
}

void place_consolidate(const std::vector<int>& free, int gpus, Placement& out, std::vector<int>& order) {
  int one = best_fit(free, gpus);
  if (one >= 0) {
    out.push_back({one, gpus});
    return;
  }
  // Servers by decreasing free GPUs (ties: lowest id first); those taken so far are a prefix of
  // that order, so the best fit for the remainder among the others (the fewest free GPUs that
  // still hold it, ties to the lowest id) is the first server of the last run of equal counts that
  // still holds it: two binary searches instead of a pass over every server per server taken.
  by_most_free(free, order);
  const auto free_of = [&](long k) { return free[order[static_cast<size_t>(k)]]; };
  const long n = static_cast<long>(order.size());
  int left = gpus;
  for (long i = 0; i < n; ++i) {
    const int s = order[static_cast<size_t>(i)];
    if (left == 0 || free[s] == 0) break;
    // Last position in [i, n) whose server holds `left` (counts do not increase along the order).
    long lo = i, hi = n;  // free_of(k) >= left for k < lo; < left for k >= hi
    while (lo < hi) {
      const long mid = lo + (hi - lo) / 2;
      if (free_of(mid) >= left)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo > i) {
      const int f = free_of(lo - 1);
      long a = i, b = lo - 1;  // first position in [i, lo - 1] with count f
      while (a < b) {
        const long mid = a + (b - a) / 2;
        if (free_of(mid) > f)
          a = mid + 1;
        else
          b = mid;
      }
      out.push_back({order[static_cast<size_t>(a)], left});
      return;
    }
    out.push_back({s, free[s]});
    left -= free[s];
  }
}

void place_spread(const std::vector<int>& free, int gpus, Placement& out) {
  // Max-heap on (free left, -id): the top is the server with the most free GPUs, lowest id.
  using Entry = std::pair<int, int>;  // (free left, -server)
  std::priority_queue<Entry> heap;
  for (int s = 0; s < static_cast<int>(free.size()); ++s)
    if (free[s] > 0) heap.push({free[s], -s});
  std::vector<int> slot(free.size(), -1);  // index into out
  for (int i = 0; i < gpus; ++i) {
    auto [f, neg] = heap.top();
    heap.pop();
    int s = -neg;
    if (slot[s] < 0) {
      slot[s] = static_cast<int>(out.size());
      out.push_back({s, 0});
    }
    ++out[slot[s]].gpus;
    if (f > 1) heap.push({f - 1, neg});
  }
}

void place_first_fit(const std::vector<int>& free, int gpus, Placement& out) {
  int left = gpus;
  for (int s = 0; s < static_cast<int>(free.size()) && left > 0; ++s) {
    if (free[s] == 0) continue;
    int take = std::min(free[s], left);
    out.push_back({s, take});
    left -= take;
  }
}

void place_most_free(const std::vector<int>& free, int gpus, Placement& out, std::vector<int>& order) {
  by_most_free(free, order);
  int left = gpus;
  for (int s : order) {
    if (left == 0 || free[s] == 0) break;
    int take = std::min(free[s], left);
    out.push_back({s, take});
    left -= take;
  }
}

}  // namespace

bool FreeGpus::place(int gpus, PlacementKind kind, Placement& out) {
  out.clear();
  if (gpus <= 0) return true;
  if (gpus > total_) return false;
  switch (kind) {
    case PlacementKind::Consolidate:
      place_consolidate(free_, gpus, out, order_);
      break;
    case PlacementKind::Spread:
      place_spread(free_, gpus, out);
      break;
    case PlacementKind::FirstFit:
      place_first_fit(free_, gpus, out);
      break;
    case PlacementKind::MostFree:
      place_most_free(free_, gpus, out, order_);
      break;
  }
  take(out);
  return true;
}

void FreeGpus::take(const Placement& p) {
  for (const auto& s : p) {
    free_[s.server] -= s.gpus;
    total_ -= s.gpus;
  }
}

void FreeGpus::release(const Placement& p) {
  for (const auto& s : p) {
    free_[s.server] += s.gpus;
    total_ += s.gpus;
  }
}

}  // namespace dmlkit::cluster
