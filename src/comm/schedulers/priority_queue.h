// The dispatch core shared by the priority schedulers (ByteScheduler's ByteCore, generalised):
// ready tensors are cut into partitions of at most `partition_bytes` (equal-size pieces, as
// ByteScheduler slices rows; 0 = no partitioning), partitions go into a priority queue ordered by
// (tensor priority, partition index, arrival), and are dispatched subject to a credit window of
// bytes in flight (credit_mode any|skip, see scheduler.h) and an optional cap on the number of
// transfers in flight. Credit is refunded when a transfer finishes.
#pragma once
#include <cstdint>
#include <queue>
#include <vector>

#include "comm/scheduler.h"

namespace dmlkit::comm {

class PriorityCreditQueue {
 public:
  struct Config {
    double partition_bytes = 0;                                     // 0 = whole tensors
    double credit_bytes = std::numeric_limits<double>::infinity();  // window of bytes in flight
    CreditMode mode = CreditMode::any;
    int max_in_flight = std::numeric_limits<int>::max();
  };
  PriorityCreditQueue() = default;
  explicit PriorityCreditQueue(Config config) : config_(config) {}
  void set_config(Config config) { config_ = config; }
  const Config& config() const { return config_; }

  // Queues `bytes` of tensor `tensor` (several tensors for a fused group: chunks) at `priority`.
  void push(std::vector<Chunk> chunks, double bytes, double priority, long key_base);
  void push_tensor(int tensor, double bytes, double priority) { push({{tensor, bytes}}, bytes, priority, tensor); }
  void poll(std::vector<Transfer>& out);
  void done(const Transfer& t);
  double in_flight_bytes() const { return in_flight_bytes_; }
  int in_flight() const { return in_flight_; }
  bool empty() const { return heap_.empty(); }

 private:
  struct Item {
    double priority;
    long part;
    uint64_t seq;
    Transfer transfer;
  };
  struct Later {
    bool operator()(const Item& a, const Item& b) const {
      if (a.priority != b.priority) return a.priority > b.priority;
      if (a.part != b.part) return a.part > b.part;
      return a.seq > b.seq;
    }
  };
  Config config_;
  std::priority_queue<Item, std::vector<Item>, Later> heap_;
  std::vector<Item> skipped_;
  double in_flight_bytes_ = 0;
  int in_flight_ = 0;
  uint64_t seq_ = 0;
  long next_id_ = 0;
};

// Splits `chunks` (total `bytes`) into ceil(bytes/partition) nearly equal consecutive pieces.
std::vector<std::vector<Chunk>> split_chunks(const std::vector<Chunk>& chunks, double bytes, double partition_bytes);

}  // namespace dmlkit::comm
