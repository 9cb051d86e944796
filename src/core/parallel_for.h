// Runs fn(0) ... fn(count - 1) on up to `threads` threads (the calling thread included), handing
// out indices one at a time. Results stay deterministic as long as fn(i) writes only to slot i.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace dmlkit {

// The default of every --threads option: the hardware threads (1 if unknown). `requested` > 0 is
// returned as is.
inline int resolve_threads(int requested) {
  if (requested > 0) return requested;
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}

// If fn throws, no further indices are handed out, the ones running finish, and the exception of
// the smallest failing index is rethrown in the caller: the error a serial loop would have raised.
template <typename Fn>
void parallel_for(size_t count, int threads, Fn fn) {
  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex error_mutex;
  size_t error_index = count;
  std::exception_ptr error;
  auto worker = [&] {
    for (size_t i = next++; i < count && !stop; i = next++) {
      try {
        fn(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (i < error_index) {
          error_index = i;
          error = std::current_exception();
        }
        stop = true;
      }
    }
  };
  std::vector<std::thread> pool;
  const int extra = std::min<int>(threads, static_cast<int>(count)) - 1;
  for (int t = 0; t < extra; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace dmlkit
