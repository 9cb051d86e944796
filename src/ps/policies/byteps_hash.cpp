// BytePS's djb2 key hash (see byteps_hash.h).
#include "ps/policies/byteps_hash.h"

#include <string>

namespace dmlkit::ps {

uint64_t djb2_key_hash(uint64_t key) {
  uint64_t hash = 5381;
  for (char c : std::to_string(key)) hash = hash * 33 + static_cast<uint64_t>(c);
  return hash;
}

std::vector<int> byteps_servers(const std::vector<Block>& blocks, int servers) {
  std::vector<int> out;
  out.reserve(blocks.size());
  int tensor = -1;
  uint64_t part = 0;
  for (const auto& b : blocks) {
    part = b.tensor == tensor ? part + 1 : 0;
    tensor = b.tensor;
    const uint64_t key = (static_cast<uint64_t>(b.tensor) << 16) + part;
    out.push_back(static_cast<int>(djb2_key_hash(key) % static_cast<uint64_t>(servers)));
  }
  return out;
}

}  // namespace dmlkit::ps
