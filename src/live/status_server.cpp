// The metrics and status page server (see status_server.h).
#include "live/status_server.h"

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "core/error.h"

namespace dmlkit::live {

struct StatusServer::Impl {
  httplib::Server server;
  std::thread thread;
  std::atomic<bool> listen_returned{false};
  std::string host;
  int port = 0;
};

StatusServer::StatusServer(const LiveObserver& observer, const std::string& host, int port)
    : impl_(std::make_unique<Impl>()) {
  if (port < 1 || port > 65535)
    throw Error("--metrics-port: expected a port from 1 to 65535, got " + std::to_string(port));
  impl_->host = host;
  impl_->port = port;
  impl_->server.Get("/metrics", [&observer](const httplib::Request&, httplib::Response& res) {
    res.set_content(prometheus_text(*observer.current()), "text/plain; version=0.0.4; charset=utf-8");
  });
  impl_->server.Get("/", [&observer](const httplib::Request&, httplib::Response& res) {
    res.set_content(status_page_html(*observer.current()), "text/html; charset=utf-8");
  });
  if (!impl_->server.bind_to_port(host.c_str(), port))
    throw Error("--metrics-port: cannot listen on " + host + ":" + std::to_string(port) +
                " (in use, or not an address of this machine)");
  impl_->thread = std::thread([this] {
    impl_->server.listen_after_bind();
    impl_->listen_returned = true;
  });
  // stop() only stops a server that is running: wait until it is, so the destructor never hangs.
  while (!impl_->server.is_running() && !impl_->listen_returned)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

StatusServer::~StatusServer() {
  impl_->server.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

std::string StatusServer::url() const { return "http://" + impl_->host + ":" + std::to_string(impl_->port) + "/"; }

}  // namespace dmlkit::live
