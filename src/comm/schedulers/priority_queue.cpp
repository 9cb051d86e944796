// Partitioning and credit-window dispatch shared by the priority schedulers (priority_queue.h).
#include "comm/schedulers/priority_queue.h"

#include <algorithm>
#include <cmath>

namespace dmlkit::comm {

std::vector<std::vector<Chunk>> split_chunks(const std::vector<Chunk>& chunks, double bytes, double partition_bytes) {
  if (!(partition_bytes > 0) || bytes <= partition_bytes) return {chunks};
  const long k = static_cast<long>(std::ceil(bytes / partition_bytes - 1e-9));
  const double piece = bytes / k;
  std::vector<std::vector<Chunk>> parts(k);
  size_t ci = 0;
  double left_in_chunk = chunks.empty() ? 0 : chunks[0].bytes;
  for (long p = 0; p < k; ++p) {
    double need = (p + 1 == k) ? std::numeric_limits<double>::infinity() : piece;
    while (need > 1e-9 && ci < chunks.size()) {
      double take = std::min(need, left_in_chunk);
      if (take > 0) parts[p].push_back({chunks[ci].tensor, take});
      need -= take;
      left_in_chunk -= take;
      if (left_in_chunk <= 1e-9) {
        ++ci;
        left_in_chunk = ci < chunks.size() ? chunks[ci].bytes : 0;
      }
    }
  }
  return parts;
}

void PriorityCreditQueue::push(std::vector<Chunk> chunks, double bytes, double priority, long key_base) {
  auto parts = split_chunks(chunks, bytes, config_.partition_bytes);
  for (size_t i = 0; i < parts.size(); ++i) {
    Transfer t;
    t.key = key_base;
    t.part = static_cast<long>(i);
    t.priority = priority;
    t.bytes = 0;
    for (const auto& c : parts[i]) t.bytes += c.bytes;
    t.chunks = std::move(parts[i]);
    heap_.push(Item{priority, static_cast<long>(i), seq_++, std::move(t)});
  }
}

void PriorityCreditQueue::poll(std::vector<Transfer>& out) {
  auto dispatch = [&](Item item) {
    item.transfer.id = next_id_++;
    in_flight_bytes_ += item.transfer.bytes;
    ++in_flight_;
    out.push_back(std::move(item.transfer));
  };
  if (config_.mode == CreditMode::any) {
    while (!heap_.empty() && in_flight_ < config_.max_in_flight && config_.credit_bytes - in_flight_bytes_ > 0) {
      Item item = heap_.top();
      heap_.pop();
      dispatch(std::move(item));
    }
    return;
  }
  // skip: scan in priority order, take every task that fits the remaining credit.
  skipped_.clear();
  while (!heap_.empty() && in_flight_ < config_.max_in_flight) {
    Item item = heap_.top();
    heap_.pop();
    if (item.transfer.bytes <= config_.credit_bytes - in_flight_bytes_ + 1e-6) {
      dispatch(std::move(item));
    } else {
      skipped_.push_back(std::move(item));
    }
  }
  // Progress guarantee: a task larger than the whole window (only possible when the window is
  // smaller than a partition, which validation rejects) is sent alone.
  if (in_flight_ == 0 && !skipped_.empty()) {
    dispatch(std::move(skipped_.front()));
    skipped_.erase(skipped_.begin());
  }
  for (auto& item : skipped_) heap_.push(std::move(item));
  skipped_.clear();
}

void PriorityCreditQueue::done(const Transfer& t) {
  in_flight_bytes_ -= t.bytes;
  if (std::fabs(in_flight_bytes_) < 1e-6) in_flight_bytes_ = 0;
  --in_flight_;
}

}  // namespace dmlkit::comm
