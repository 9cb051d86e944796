// BytePS's key rule (see byteps.cpp): djb2 over the decimal text of a key, and the server of each
// partition block.
#pragma once
#include <cstdint>
#include <vector>

#include "ps/placement.h"

namespace dmlkit::ps {

// hash = 5381; for each character c of the key in decimal: hash = hash * 33 + c (mod 2^64).
uint64_t djb2_key_hash(uint64_t key);
// Server of every block: djb2((tensor << 16) + index of the block in its tensor) mod servers.
std::vector<int> byteps_servers(const std::vector<Block>& blocks, int servers);

}  // namespace dmlkit::ps
