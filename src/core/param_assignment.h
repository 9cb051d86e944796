// Static rules that spread a model's parameter blocks (arrays, in key order) over parameter
// servers, shared by the cluster level (the Optimus PS-balance factor, cluster/speed/ps_assignment.h)
// and the iteration level (ps/, the assignment policies of `dmlkit ps`):
//   mxnet        MXNet kvstore's default (apache/mxnet src/kvstore/kvstore_dist.h,
//                EncodeDefaultKey): an array below the big-array bound (elements of 4 bytes) goes
//                whole to server (key * 9973) mod p; a bigger one is cut into p contiguous parts,
//                part i = round(n/p (i+1)) - round(n/p i) elements, on server i;
//   round-robin  array k on server k mod p (TensorFlow's default variable placement);
//   paa          Optimus' parameter assignment algorithm (spec cluster-schedulers.md 2.6, the
//                prototype's params_distr.py, in our words): avg = ceil(total / p); tiny arrays
//                (<= total / (100 p)) to the server with the fewest requests, medium ones (<= avg)
//                best fit against avg (else the least loaded), big ones cut to fill servers up to
//                avg in ascending load order, the rest best fit;
//   paa-balanced [A] as paa, but a tiny array goes to the server with the fewest requests among
//                those it keeps at or below avg.
// Depends on nothing but the standard library (moved here from cluster/ so ps/ can reuse it).
#pragma once
#include <span>
#include <vector>

namespace dmlkit {

enum class ParamAssignmentRule { Mxnet, RoundRobin, Paa, PaaBalanced };

// One part of an array on one server.
struct BlockPiece {
  int server = 0;
  double bytes = 0;
};

struct ParamAssignment {
  std::vector<std::vector<BlockPiece>> pieces;  // per array, in key order: where its bytes are
  std::vector<double> server_bytes;             // per server (summed in the rule's order)
  std::vector<int> server_requests;             // pieces per server
};

// Assigns arrays of `block_bytes` (in key order) to `servers` (>= 1) servers. MXNet's big-array
// bound is in elements of 4 bytes (default 10^6, MXNET_KVSTORE_BIGARRAY_BOUND).
ParamAssignment assign_param_blocks(std::span<const double> block_bytes, int servers, ParamAssignmentRule rule,
                                    double mxnet_bigarray_elems = 1e6);

}  // namespace dmlkit
