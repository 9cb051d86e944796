// Placements and blocks (see placement.h).
#include "ps/placement.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace dmlkit::ps {

std::vector<double> Placement::server_bytes(int servers) const {
  std::vector<double> out(servers, 0.0);
  for (const auto& pieces : tensor_pieces)
    for (const auto& p : pieces) {
      if (p.server < 0 || p.server >= servers) throw std::logic_error("placement: server out of range");
      out[p.server] += p.bytes;
    }
  return out;
}

double Placement::total_bytes() const {
  double s = 0;
  for (const auto& pieces : tensor_pieces)
    for (const auto& p : pieces) s += p.bytes;
  return s;
}

std::vector<Block> make_blocks(const comm::TrainingWorkload& workload, double block_bytes) {
  if (!(block_bytes > 0)) throw std::logic_error("make_blocks: block_bytes must be > 0");
  std::vector<Block> blocks;
  for (size_t t = 0; t < workload.tensors.size(); ++t) {
    const double size = workload.tensors[t].bytes;
    for (double off = 0; off < size; off += block_bytes)
      blocks.push_back({static_cast<int>(t), off, std::min(block_bytes, size - off)});
  }
  return blocks;
}

std::vector<Block> make_mxnet_blocks(const comm::TrainingWorkload& workload, double block_bytes, int servers,
                                     double bigarray_bytes, std::vector<int>& servers_of) {
  if (!(block_bytes > 0) || servers < 1) throw std::logic_error("make_mxnet_blocks: bad arguments");
  std::vector<Block> blocks;
  servers_of.clear();
  for (size_t t = 0; t < workload.tensors.size(); ++t) {
    const double size = workload.tensors[t].bytes;
    if (size < bigarray_bytes) {
      blocks.push_back({static_cast<int>(t), 0, size});
      servers_of.push_back(static_cast<int>((t * 9973ULL) % static_cast<unsigned long long>(servers)));
      continue;
    }
    const long k = std::max(1L, static_cast<long>(std::ceil(size / (block_bytes * servers))));
    const long parts = k * servers;
    for (long p = 0; p < parts; ++p) {
      const double lo = size * p / parts, hi = size * (p + 1) / parts;
      blocks.push_back({static_cast<int>(t), lo, hi - lo});
      servers_of.push_back(static_cast<int>(p / k));
    }
  }
  return blocks;
}

Placement placement_of(const comm::TrainingWorkload& workload, const std::vector<Block>& blocks,
                       const std::vector<int>& block_server) {
  if (blocks.size() != block_server.size()) throw std::logic_error("placement_of: one server per block");
  Placement p;
  p.tensor_pieces.resize(workload.tensors.size());
  for (size_t i = 0; i < blocks.size(); ++i) {
    add_piece(p.tensor_pieces[blocks[i].tensor], block_server[i], blocks[i].bytes);
  }
  return p;
}

void add_piece(std::vector<comm::PsPiece>& pieces, int server, double bytes) {
  for (auto& piece : pieces)
    if (piece.server == server) {
      piece.bytes += bytes;
      return;
    }
  pieces.push_back({server, bytes});
}

std::vector<double> tensor_bytes(const comm::TrainingWorkload& workload) {
  std::vector<double> sizes;
  sizes.reserve(workload.tensors.size());
  for (const auto& t : workload.tensors) sizes.push_back(t.bytes);
  return sizes;
}

Placement placement_of(const ParamAssignment& assignment) {
  Placement p;
  for (const auto& pieces : assignment.pieces) {
    auto& out = p.tensor_pieces.emplace_back();
    for (const auto& piece : pieces) add_piece(out, piece.server, piece.bytes);
  }
  return p;
}

double moved_bytes(const std::vector<Block>& blocks, const std::vector<int>& from, const std::vector<int>& to) {
  double s = 0;
  for (size_t i = 0; i < blocks.size(); ++i)
    if (from[i] != to[i]) s += blocks[i].bytes;
  return s;
}

}  // namespace dmlkit::ps
