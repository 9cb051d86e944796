// How a PS job's parameter blocks are spread over its parameter servers (spec
// cluster-schedulers.md 2.6, comm-and-ps.md 3.3): MXNet's default (small arrays hashed to one
// server by key*9973 mod p, arrays of >= 10^6 elements split evenly over all servers), round-robin
// per array (TensorFlow's default), and Optimus' parameter assignment algorithm (PAA, best-fit
// descending with tiny blocks balanced by request count and big blocks split). Also the loader of
// the parameter tensor lists of data/model-graphs/ and the per-(type, p) imbalance table the
// simulator uses as the PS-balance factor of a job's speed. The rules themselves are in
// core/param_assignment.h (shared with ps/); this is the cluster-level view of them.
#pragma once
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace dmlkit::cluster {

enum class PsAssignment { Mxnet, RoundRobin, Paa, PaaBalanced };
PsAssignment parse_ps_assignment(const std::string& name);  // mxnet | round-robin | paa | paa-balanced
const char* ps_assignment_name(PsAssignment a);

struct PsLoad {
  std::vector<double> bytes;  // per server
  std::vector<int> requests;  // pieces per server (one request per piece per step)
  double max_minus_min() const;
  double imbalance() const;  // max / mean bytes (1 = perfectly balanced)
  int total_requests() const;
};

// Assigns blocks (sizes in bytes, in key order) to p servers. MXNet's bound is in elements of
// 4 bytes (default 10^6).
PsLoad assign_parameters(std::span<const double> block_bytes, int p, PsAssignment kind,
                         double mxnet_bigarray_elems = 1e6);

// Parameter sizes (bytes) of the nodes with parameters of a PipeDream graph file, in node-number
// order, read by the one parser of the format (core/pipedream_graph.h). Throws Error(file, line,
// field) on a malformed file.
std::vector<double> load_model_parameters(const std::string& graph_path);

// Imbalance factor max/mean of each job type's tensors on p servers (p = 1..kMaxPs) under an
// assignment; types without a bundled graph are balanced (factor 1).
class PsBalanceTable {
 public:
  static constexpr int kMaxPs = 64;
  PsBalanceTable(const std::string& data_dir, PsAssignment kind);
  PsAssignment kind() const { return kind_; }
  double imbalance(int type, int p) const;        // under kind()
  double mxnet_imbalance(int type, int p) const;  // under MXNet's default
 private:
  PsAssignment kind_;
  std::vector<std::vector<double>> imb_, mxnet_;  // [type][p-1]
};

}  // namespace dmlkit::cluster
