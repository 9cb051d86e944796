// The HTTP endpoint of `cluster serve --metrics-port`: GET /metrics (Prometheus text format) and
// GET / (the status page), rendered from the LiveObserver's latest snapshot. Served by Debian's
// cpp-httplib on its own threads, on 127.0.0.1 unless told otherwise; it only reads.
#pragma once
#include <memory>
#include <string>

#include "live/live_metrics.h"

namespace dmlkit::live {

class StatusServer {
 public:
  // Listens on host:port at once; throws Error naming --metrics-port if it cannot.
  StatusServer(const LiveObserver& observer, const std::string& host, int port);
  ~StatusServer();  // stops listening and joins its threads
  StatusServer(const StatusServer&) = delete;
  StatusServer& operator=(const StatusServer&) = delete;

  std::string url() const;  // "http://127.0.0.1:9464/"

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dmlkit::live
