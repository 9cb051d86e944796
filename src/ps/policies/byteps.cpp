// byteps: BytePS's default (bytedance/byteps byteps/common/global.cc, spec comm-and-ps.md 1.8):
// a tensor is cut into partitions of BYTEPS_PARTITION_BYTES (4,096,000 by default, already a
// multiple of the 4 KiB page for one local GPU); partition i of the tensor declared k-th gets key
// (k << 16) + i, and goes to server djb2(decimal text of the key) mod n (Hash_DJB2 /
// EncodeDefaultKey; BYTEPS_KEY_HASH_FN=djb2, the default). Tensors are declared in forward order
// [A]. Static.
#include <string>

#include "ps/policies/byteps_hash.h"
#include "ps/policies/factories.h"

namespace dmlkit::ps {
namespace {

class Byteps final : public AssignmentPolicy {
 public:
  explicit Byteps(double partition_bytes) : partition_bytes_(partition_bytes) {}
  Placement initial(const PsContext& ctx) override {
    const auto blocks = make_blocks(*ctx.workload, partition_bytes_);
    return placement_of(*ctx.workload, blocks, byteps_servers(blocks, ctx.servers));
  }

 private:
  double partition_bytes_;
};

std::unique_ptr<AssignmentPolicy> make(const Knobs& k) {
  return std::make_unique<Byteps>(static_cast<double>(k.get_int("byteps.partition_bytes")));
}

}  // namespace

AssignmentEntry byteps_entry() {
  return {"byteps",
          "BytePS default: 4,096,000-byte partitions, key (tensor << 16) + part, server djb2(key) mod n",
          make,
          {knob_int("byteps.partition_bytes", 4096000, "BYTEPS_PARTITION_BYTES").at_least(4096)}};
}

}  // namespace dmlkit::ps
