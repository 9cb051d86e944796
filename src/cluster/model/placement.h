// Where a job's GPUs are: a list of (server, GPU count) slices, each server at most once, in the
// order the policy chose them (the measured-profile lookup of the Pollux model depends on the
// order, as the reference simulator's does). Also the placement choices every policy can use to
// turn a GPU count into a placement.
#pragma once
#include <span>
#include <string>
#include <vector>

namespace dmlkit::cluster {

struct Slice {
  int server = 0;
  int gpus = 0;
  // Parameter-server jobs only: tasks on this server (gpus = workers * GPUs per worker, and a
  // slice may hold no GPU at all when it only has CPU workers or parameter servers).
  int workers = 0;
  int ps = 0;
  bool operator==(const Slice&) const = default;
};
using Placement = std::vector<Slice>;

inline int placement_gpus(const Placement& p) {
  int n = 0;
  for (const auto& s : p) n += s.gpus;
  return n;
}

enum class PlacementKind {
  Consolidate,  // fewest servers: best-fit on one server if possible, else largest free first
  Spread,       // one GPU at a time round-robin over the servers with the most free GPUs
  FirstFit,     // servers in id order, take what is free
  MostFree,     // repeatedly take all it can from the server with the most free GPUs (ties:
                // lowest id) -- the Pollux reference simulator's greedy
};
PlacementKind parse_placement_kind(const std::string& name);  // throws Error if unknown
const char* placement_kind_name(PlacementKind k);

// Free GPUs per server, for policies building a decision. A policy that keeps one FreeGpus
// between decisions and refills it with assign() allocates nothing in steady state.
class FreeGpus {
 public:
  FreeGpus() = default;
  explicit FreeGpus(std::vector<int> free_per_server);
  // Replaces the free GPUs per server (negative counts become 0), reusing the buffers.
  void assign(std::span<const int> free_per_server);
  int total() const { return total_; }
  int on(int server) const { return free_[server]; }
  const std::vector<int>& per_server() const { return free_; }
  // Places `gpus` GPUs with `kind` and takes them; returns false (and takes nothing) if they do
  // not fit.
  bool place(int gpus, PlacementKind kind, Placement& out);
  void take(const Placement& p);
  void release(const Placement& p);

 private:
  std::vector<int> free_;
  int total_ = 0;
  std::vector<int> order_;  // scratch of place(): servers by decreasing free GPUs
};

}  // namespace dmlkit::cluster
