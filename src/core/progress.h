// A one-line progress bar for long runs, drawn on stderr. It is silent when stderr is not a
// terminal (pipes, CI logs, tests), redraws at most every min_redraw_interval_s of wall time (the
// bar is display only: nothing it sees goes into results), and ends its line with a newline.
#pragma once
#include <cstddef>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>

namespace dmlkit {

struct ProgressOptions {
  // Where to draw; std::cerr when null.
  std::ostream* out = nullptr;
  // Whether `out` is a terminal; isatty(2) when empty. Tests inject true/false.
  std::optional<bool> is_terminal;
  // Minimum wall time between two redraws (the first update and finish() always draw).
  double min_redraw_interval_s = 0.1;
  // Monotonic clock in seconds; std::chrono::steady_clock when empty. Tests inject a fake clock.
  std::function<double()> clock_s;
  // Number of cells of the bar itself.
  int bar_width = 30;
};

class ProgressBar {
 public:
  // `total` is the amount of work (e.g. jobs); values <= 0 show no percentage.
  ProgressBar(std::string label, double total, ProgressOptions options = {});
  // Calls finish() if it has not been called.
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // Records progress `done` (of total) and an optional short detail ("t=12.5 h"); redraws if the
  // bar is active and the last redraw is at least min_redraw_interval_s ago.
  void update(double done, const std::string& detail = "");
  // Draws the final state and ends the line. Idempotent.
  void finish();

  bool active() const { return active_; }  // false when not on a terminal
  size_t redraws() const { return redraws_; }
  // The line as it would be drawn now (without the carriage return), e.g.
  // "fifo [###############---------------]  50.0% 80/160 t=12.5 h".
  std::string line() const;

 private:
  void draw();
  double now_s() const;

  std::string label_;
  double total_;
  ProgressOptions options_;
  std::ostream* out_;
  bool active_;
  bool finished_ = false;
  bool drawn_once_ = false;
  double done_ = 0;
  std::string detail_;
  double last_draw_s_ = 0;
  size_t last_width_ = 0;
  size_t redraws_ = 0;
};

}  // namespace dmlkit
