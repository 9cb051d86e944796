// ProgressBar: carriage-return redraws of one stderr line, only on a terminal (see header).
#include "core/progress.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <unistd.h>

namespace dmlkit {

ProgressBar::ProgressBar(std::string label, double total, ProgressOptions options)
    : label_(std::move(label)),
      total_(total),
      options_(std::move(options)),
      out_(options_.out ? options_.out : &std::cerr),
      active_(options_.is_terminal ? *options_.is_terminal : ::isatty(2) == 1) {
  options_.bar_width = std::max(options_.bar_width, 1);
}

ProgressBar::~ProgressBar() {
  try {
    finish();
  } catch (...) {
    // A failing stream must not throw from a destructor.
  }
}

double ProgressBar::now_s() const {
  if (options_.clock_s) return options_.clock_s();
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

std::string ProgressBar::line() const {
  const bool known = total_ > 0 && std::isfinite(total_);
  const double fraction = known ? std::clamp(done_ / total_, 0.0, 1.0) : 0.0;
  const int width = options_.bar_width;
  const int filled = static_cast<int>(std::floor(fraction * width + 1e-9));
  std::string s = label_;
  if (!s.empty()) s += ' ';
  s += '[';
  s.append(static_cast<size_t>(filled), '#');
  s.append(static_cast<size_t>(width - filled), '-');
  s += ']';
  char buf[96];
  if (known) {
    std::snprintf(buf, sizeof buf, " %5.1f%% %.0f/%.0f", fraction * 100.0, done_, total_);
  } else {
    std::snprintf(buf, sizeof buf, " %.0f", done_);
  }
  s += buf;
  if (!detail_.empty()) s += ' ' + detail_;
  return s;
}

void ProgressBar::draw() {
  const std::string text = line();
  // Pad with spaces over a longer previous line instead of relying on terminal escape codes.
  std::string padded = text;
  if (padded.size() < last_width_) padded.append(last_width_ - padded.size(), ' ');
  *out_ << '\r' << padded << std::flush;
  last_width_ = text.size();
  ++redraws_;
  drawn_once_ = true;
}

void ProgressBar::update(double done, const std::string& detail) {
  if (finished_) return;
  done_ = done;
  detail_ = detail;
  if (!active_) return;
  const double t = now_s();
  if (drawn_once_ && t - last_draw_s_ < options_.min_redraw_interval_s) return;
  last_draw_s_ = t;
  draw();
}

void ProgressBar::finish() {
  if (finished_) return;
  finished_ = true;
  if (!active_) return;
  draw();
  *out_ << '\n' << std::flush;
}

}  // namespace dmlkit
