// Running cells: each cell is one subprocess of the dmlkit binary (core/subprocess.h) with
// `--out DIR/cells/NAME` added to its argument vector. Finished cells are skipped (resume); a cell
// that fails is tried again up to `retries` more times, then reported as failed (never dropped).
// A failure with exit status 2 (bad input: the same input fails again) is not retried; one with
// exit status 3 (the environment failed: a full disk, an I/O error, a permission) is.
// Used by `sweep run` (N cells at once on this machine) and by each Slurm array task (its chunk,
// one after the other).
#pragma once
#include <cstddef>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "sweep/sweep_dir.h"

namespace dmlkit::sweep {

struct RunOptions {
  std::string binary;         // the dmlkit program cells run (default: this program, self_executable())
  int jobs = 1;               // cells at once
  int retries = 1;            // extra attempts of a failed cell
  double cell_timeout_s = 0;  // wall-clock limit per attempt (0 = none)
  // Progress bar (core/progress.h) on this stream; std::cerr when null. Silent when not a terminal
  // unless `terminal` says otherwise (tests).
  std::ostream* progress = nullptr;
  std::optional<bool> terminal;
};

struct RunReport {
  size_t cells = 0;                       // in the plan (or the chunk)
  size_t skipped = 0;                     // already finished before this run
  size_t done = 0;                        // finished by this run
  size_t failed = 0;                      // failed after every attempt
  size_t retried = 0;                     // attempts beyond the first, over all cells
  std::vector<std::string> failed_cells;  // in plan order, with their last error
  double wall_s = 0;
};

// The path of the running program (core's program_path()), or "dmlkit" when it cannot be read.
std::string self_executable();

// The argument vector of one attempt of `cell`: binary, the cell's argv, --out CELLDIR.
std::vector<std::string> cell_command(const RunOptions& options, const std::string& dir, const Cell& cell);

// Runs one cell (with its retries) unless finished; writes its state file. Returns its state.
CellState run_cell(const std::string& dir, const Cell& cell, const RunOptions& options);

// Runs the cells of `cells` that are not finished, `options.jobs` at a time, with a progress bar
// (cells done, failed, ETA).
RunReport run_cells(const std::string& dir, const std::vector<Cell>& cells, const RunOptions& options);

// Text of "ETA" for `seconds` left ("45 s", "3 min 20 s", "1 h 05 min").
std::string format_duration(double seconds);

}  // namespace dmlkit::sweep
