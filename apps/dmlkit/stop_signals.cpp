// The stop request of the live commands (see stop_signals.h).
#include "dmlkit/stop_signals.h"

#include <csignal>

namespace dmlkit::app {

namespace {

volatile std::sig_atomic_t g_stop_signal = 0;  // set by the handler only
extern "C" void on_stop_signal(int sig) { g_stop_signal = sig; }

}  // namespace

StopSignals::StopSignals() {
  g_stop_signal = 0;
  old_int_ = std::signal(SIGINT, on_stop_signal);
  old_term_ = std::signal(SIGTERM, on_stop_signal);
}

StopSignals::~StopSignals() {
  std::signal(SIGINT, old_int_);
  std::signal(SIGTERM, old_term_);
}

int StopSignals::signal_number() const { return g_stop_signal; }

const char* StopSignals::signal_name() const {
  switch (g_stop_signal) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    default:
      return "no signal";
  }
}

}  // namespace dmlkit::app
