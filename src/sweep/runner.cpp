// Running cells as subprocesses, in parallel, with retries and a progress bar (see runner.h).
#include "sweep/runner.h"

#include "core/data_dir.h"
#include "core/error.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <mutex>

#include <fmt/format.h>

#include "core/parallel_for.h"
#include "core/progress.h"
#include "core/subprocess.h"

namespace fs = std::filesystem;

namespace dmlkit::sweep {

namespace {

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

std::string host_name() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

// The last non-empty line of a process's error output (the one-line error of a dmlkit command).
std::string last_line(const std::string& text) {
  size_t end = text.size();
  while (end > 0) {
    while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r')) --end;
    const size_t start = text.rfind('\n', end == 0 ? 0 : end - 1);
    const std::string line =
        text.substr(start == std::string::npos ? 0 : start + 1, end - (start == std::string::npos ? 0 : start + 1));
    if (line.find_first_not_of(" \t\r") != std::string::npos) return line.size() > 300 ? line.substr(0, 300) : line;
    if (start == std::string::npos) break;
    end = start;
  }
  return "";
}

}  // namespace

std::string self_executable() {
  const std::string p = program_path();  // core/data_dir.h
  return p.empty() ? std::string("dmlkit") : p;
}

std::string format_duration(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  const long t = std::lround(s);
  if (t < 60) return fmt::format("{} s", t);
  if (t < 3600) return fmt::format("{} min {:02} s", t / 60, t % 60);
  return fmt::format("{} h {:02} min", t / 3600, (t % 3600) / 60);
}

std::vector<std::string> cell_command(const RunOptions& options, const std::string& dir, const Cell& cell) {
  std::vector<std::string> argv;
  argv.push_back(options.binary.empty() ? self_executable() : options.binary);
  argv.insert(argv.end(), cell.argv.begin(), cell.argv.end());
  argv.push_back("--out");
  argv.push_back(cell_dir(dir, cell.name));
  return argv;
}

CellState run_cell(const std::string& dir, const Cell& cell, const RunOptions& options) {
  CellState s = read_state(dir, cell.name);
  if (cell_finished(dir, cell.name)) {
    if (s.status != "done") {
      s.status = "done";
      write_state(dir, cell.name, s);
    }
    return s;
  }
  const auto argv = cell_command(options, dir, cell);
  const double timeout = options.cell_timeout_s > 0 ? options.cell_timeout_s : 1e9;
  s = CellState{};
  s.host = host_name();
  for (int attempt = 0; attempt <= options.retries; ++attempt) {
    s.status = "running";
    s.attempts = attempt + 1;
    write_state(dir, cell.name, s);
    const double t0 = now_s();
    const ProcessResult r = run_process(argv, {}, timeout);
    s.seconds = now_s() - t0;
    if (r.ok() && cell_finished(dir, cell.name)) {
      s.status = "done";
      s.exit_code = 0;
      s.error.clear();
      write_state(dir, cell.name, s);
      return s;
    }
    s.status = "failed";
    s.exit_code = r.exit_code;
    if (!r.started)
      s.error = "cannot run " + argv[0];
    else if (r.timed_out)
      s.error = "no result within " + format_duration(timeout) + " (--cell-timeout)";
    else if (r.ok())
      s.error = "exited 0 but wrote no complete results.json";
    else
      s.error = last_line(r.err).empty() ? "exit status " + std::to_string(r.exit_code) : last_line(r.err);
    write_state(dir, cell.name, s);
    // Bad input would fail again; an environment failure (exit 3: disk full, I/O) and a crash may not.
    if (r.started && !r.timed_out && r.exit_code == kExitBadInput) break;
  }
  return s;
}

RunReport run_cells(const std::string& dir, const std::vector<Cell>& cells, const RunOptions& options) {
  RunReport rep;
  rep.cells = cells.size();
  const double t0 = now_s();
  std::vector<const Cell*> todo;
  for (const auto& c : cells) {
    if (cell_finished(dir, c.name)) {
      ++rep.skipped;
      CellState s = read_state(dir, c.name);
      if (s.status != "done") {
        s.status = "done";
        write_state(dir, c.name, s);
      }
    } else {
      todo.push_back(&c);
    }
  }
  ProgressOptions po;
  po.out = options.progress;
  po.is_terminal = options.terminal;
  ProgressBar bar("sweep", static_cast<double>(cells.size()), po);
  std::mutex mutex;
  size_t finished_now = 0;
  std::vector<CellState> states(todo.size());
  auto redraw = [&] {
    const double done = static_cast<double>(rep.skipped + finished_now);
    const double elapsed = now_s() - t0;
    const size_t left = todo.size() - finished_now;
    std::string detail = fmt::format("done {} failed {}", rep.skipped + rep.done, rep.failed);
    if (finished_now > 0 && left > 0)
      detail += ", ETA " + format_duration(elapsed / static_cast<double>(finished_now) * static_cast<double>(left));
    bar.update(done, detail);
  };
  redraw();
  parallel_for(todo.size(), std::max(1, options.jobs), [&](size_t i) {
    states[i] = run_cell(dir, *todo[i], options);
    std::lock_guard<std::mutex> lock(mutex);
    ++finished_now;
    if (states[i].status == "done")
      ++rep.done;
    else
      ++rep.failed;
    redraw();
  });
  bar.finish();
  for (size_t i = 0; i < todo.size(); ++i) {
    if (states[i].attempts > 1) rep.retried += static_cast<size_t>(states[i].attempts - 1);
    if (states[i].status != "done")
      rep.failed_cells.push_back(todo[i]->name + ": " + states[i].error + " (" + std::to_string(states[i].attempts) +
                                 (states[i].attempts == 1 ? " attempt)" : " attempts)"));
  }
  rep.wall_s = now_s() - t0;
  return rep;
}

}  // namespace dmlkit::sweep
