// SIGINT/SIGTERM as a request to stop, for the live commands (`cluster serve`, `cluster replay`):
// while a StopSignals object lives, the two signals only set a flag that the command's loop polls,
// so it ends cleanly (state saved, submitted jobs cancelled) instead of dying where it stands.
// The previous handlers come back when the object is destroyed.
#pragma once

namespace dmlkit::app {

class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  bool requested() const { return signal_number() != 0; }
  int signal_number() const;  // the last signal received (SIGINT, SIGTERM), 0 if none
  const char* signal_name() const;
  // The conventional exit status of a program stopped by that signal: 128 + its number (130 for SIGINT).
  int exit_status() const { return 128 + signal_number(); }

 private:
  using Handler = void (*)(int);
  Handler old_int_;
  Handler old_term_;
};

}  // namespace dmlkit::app
