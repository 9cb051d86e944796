// The timing decorator of a ClusterBackend (see timed_backend.h).
#include "live/timed_backend.h"

#include <exception>

namespace dmlkit::live {

template <typename F>
auto TimedBackend::timed(const char* kind, F&& f) -> decltype(f()) {
  const double begin = inner_.now_s();
  struct Record {  // also when the call throws
    TimedBackend& self;
    const char* kind;
    double begin;
    int exceptions = std::uncaught_exceptions();
    ~Record() { self.record(kind, self.inner_.now_s() - begin, std::uncaught_exceptions() > exceptions); }
  } record{*this, kind, begin};
  return f();
}

void TimedBackend::record(const char* kind, double seconds, bool failed) {
  if (keep_samples_) samples_[kind].push_back(seconds);
  CallStats& st = stats_[kind];
  st.latency.add(seconds);
  st.errors += failed ? 1 : 0;
}

const std::vector<double>& TimedBackend::samples(const std::string& kind) const {
  static const std::vector<double> kNone;
  auto it = samples_.find(kind);
  return it == samples_.end() ? kNone : it->second;
}

SlurmSnapshot TimedBackend::snapshot() {
  return timed("poll", [&] { return inner_.snapshot(); });
}
void TimedBackend::place(int64_t id, const std::vector<std::string>& nodes, int gpus_per_node, int cpus_per_node) {
  timed("place", [&] { inner_.place(id, nodes, gpus_per_node, cpus_per_node); });
}
void TimedBackend::release(int64_t id) {
  timed("release", [&] { inner_.release(id); });
}
void TimedBackend::hold(int64_t id) {
  timed("hold", [&] { inner_.hold(id); });
}
void TimedBackend::requeue_hold(int64_t id) {
  timed("requeue", [&] { inner_.requeue_hold(id); });
}
void TimedBackend::cancel(int64_t id) {
  timed("cancel", [&] { inner_.cancel(id); });
}
void TimedBackend::reconfigure() {
  timed("reconfigure", [&] { inner_.reconfigure(); });
}
int64_t TimedBackend::submit(const JobRequest& request) {
  return timed("submit", [&] { return inner_.submit(request); });
}

}  // namespace dmlkit::live
