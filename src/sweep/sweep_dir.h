// The folder of a sweep (--out DIR), what every sweep command reads and writes:
//
//   DIR/.dmlkit-output     marker (core/output_dir.h): the files below that dmlkit wrote
//   DIR/sweep.json         the plan: sweep file, command, fixed args, axes, every cell's name,
//                          axis values and argument vector
//   DIR/cells/NAME/        one cell's output folder, written by the cell's own command (--out),
//                          atomically, so a cell is finished exactly when cells/NAME/results.json
//                          is there and complete
//   DIR/state/NAME.json    the last attempt of a cell: running, done or failed, attempts, exit
//                          status, the last line of its error output, seconds
//   DIR/slurm/             job-array submissions (slurm_array.h)
//   DIR/results.json, records.csv, summary.csv, report.html    written by `sweep collect`
//
// A re-run with the same DIR resumes: finished cells are skipped. A DIR whose plan gives another
// argument vector for a cell of the same name is refused (the old result would be mixed in).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep/sweep_file.h"

namespace dmlkit::sweep {

struct Plan {
  std::string sweep_file;  // path as given
  std::vector<std::string> command;
  std::string knob_option;
  nlohmann::ordered_json args = nlohmann::ordered_json::object();  // fixed name -> value text
  std::vector<std::string> axes;                                    // axis names in file order
  std::vector<std::string> spread_over;                             // axes the charts average over
  std::vector<Cell> cells;
};

Plan make_plan(const SweepFile& file);
nlohmann::ordered_json plan_json(const Plan& plan);
Plan plan_from_json(const nlohmann::ordered_json& j, const std::string& path);

// Files dmlkit writes at the top of DIR (listed in its marker).
const std::vector<std::string>& sweep_dir_files();

// Creates DIR (or accepts a previous sweep folder, refusing one whose cells ran with other
// arguments, or a folder that is not a sweep's) and writes sweep.json. Error("--out DIR: ...").
void prepare_sweep_dir(const std::string& dir, const Plan& plan);
// Reads DIR/sweep.json; Error if DIR is not a sweep folder.
Plan read_plan(const std::string& dir);

std::string cell_dir(const std::string& dir, const std::string& name);
std::string state_path(const std::string& dir, const std::string& name);

// cells/NAME/results.json exists and holds a results envelope (records array).
bool cell_finished(const std::string& dir, const std::string& name);

struct CellState {
  std::string status;  // "running", "done", "failed"; "" if never started
  int attempts = 0;
  int exit_code = 0;
  std::string error;  // last line of the error output of the last failed attempt
  double seconds = 0;  // wall time of the last attempt
  std::string host;    // where it ran last
};
CellState read_state(const std::string& dir, const std::string& name);
void write_state(const std::string& dir, const std::string& name, const CellState& s);

}  // namespace dmlkit::sweep
