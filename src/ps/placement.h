// Where each gradient tensor's bytes live: per tensor, one piece per server holding part of it
// (the key map a worker uses to push and pull). Blocks are the unit PSLD moves: a tensor cut into
// partitions of at most block_bytes (BytePS's rule, byteps/common/global.cc IsTensorDeclared /
// partitioning), in tensor order.
#pragma once
#include <vector>

#include "comm/ps_control.h"
#include "comm/workload.h"
#include "core/param_assignment.h"

namespace dmlkit::ps {

struct Placement {
  std::vector<std::vector<comm::PsPiece>> tensor_pieces;  // per tensor, at most one piece per server
  // Bytes per server (over `servers` servers; a piece on a higher server is an error).
  std::vector<double> server_bytes(int servers) const;
  double total_bytes() const;
};

struct Block {
  int tensor = 0;
  double offset_bytes = 0;
  double bytes = 0;
};

// Every tensor cut into blocks of block_bytes (the last one of a tensor takes the rest).
std::vector<Block> make_blocks(const comm::TrainingWorkload& workload, double block_bytes);

// MXNet's key map in blocks: a tensor below bigarray_bytes is one block on server
// (key * 9973) mod servers; a bigger one is cut into k * servers equal contiguous blocks of at most
// block_bytes each (k = ceil(size / (block_bytes * servers))), the i-th run of k blocks on server
// i -- exactly MXNet's even split, at a granularity blocks can move at. Fills `servers_of` with
// each block's server.
std::vector<Block> make_mxnet_blocks(const comm::TrainingWorkload& workload, double block_bytes, int servers,
                                     double bigarray_bytes, std::vector<int>& servers_of);

// The placement of blocks on servers (block_server[i] = server of blocks[i]); pieces of the same
// tensor on the same server are merged.
Placement placement_of(const comm::TrainingWorkload& workload, const std::vector<Block>& blocks,
                       const std::vector<int>& block_server);

// Adds `bytes` on `server` to one tensor's pieces, merged with a piece already on that server.
void add_piece(std::vector<comm::PsPiece>& pieces, int server, double bytes);

// Every gradient tensor's size in bytes, in tensor (key) order: the input of the framework rules.
std::vector<double> tensor_bytes(const comm::TrainingWorkload& workload);

// A framework rule's assignment (core/param_assignment.h) as a placement, pieces merged per server.
Placement placement_of(const ParamAssignment& assignment);

// Bytes that change server between two block maps (what a migration must move).
double moved_bytes(const std::vector<Block>& blocks, const std::vector<int>& from, const std::vector<int>& to);

}  // namespace dmlkit::ps
