// The simulation clock's event queue: events ordered by time, ties broken by insertion order so
// runs are deterministic. Payload is any copyable type (a small struct of ids).
#pragma once
#include <cstdint>
#include <queue>
#include <vector>

namespace dmlkit {

template <typename Payload>
class EventQueue {
 public:
  struct Event {
    double time_s;
    uint64_t seq;
    Payload payload;
  };
  void push(double time_s, Payload p) { heap_.push(Event{time_s, next_seq_++, std::move(p)}); }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  const Event& top() const { return heap_.top(); }
  double next_time_s() const { return heap_.top().time_s; }
  Event pop() {
    Event e = heap_.top();
    heap_.pop();
    return e;
  }
  void clear() {
    heap_ = {};
    next_seq_ = 0;
  }

 private:
  struct Later {
    bool operator()(const Event& a, const Event& b) const {
      if (a.time_s != b.time_s) return a.time_s > b.time_s;
      return a.seq > b.seq;
    }
  };
  std::priority_queue<Event, std::vector<Event>, Later> heap_;
  uint64_t next_seq_ = 0;
};

}  // namespace dmlkit
