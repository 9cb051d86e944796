// A sweep file (experiments/sweeps/*.yaml, docs/sweeps.md): the dmlkit command to run, its fixed
// arguments, and axes -- lists or ranges of values of any option or policy knob, seeds included.
// Expanding it gives the grid of cells, the cross product of the axes in file order (the last axis
// varies fastest). Each cell has a stable name made from its axis values and the argument vector
// that runs it (without --out, which the runner adds).
//
//   command: cluster simulate
//   args: {cluster: 16x4}
//   axes:
//     workload: [pollux-1, pollux-2]
//     policy: [fifo, tiresias]
//     tiresias.queues: [2, 3]          # a knob: passed as --policy-param tiresias.queues=2
//     seed: {from: 1, to: 3}           # a range: 1, 2, 3
//
// Values: a scalar is passed as --name=value; true passes the flag --name, false leaves it out; a
// list is joined with commas (--policies=fifo,srtf). A name holding a '.' is a knob, passed as
// `<knob_option> name=value` (knob_option: --policy-param unless the file says otherwise).
// Ranges: {from, to, step} (inclusive, default step 1), {from, to, count} (evenly spaced) or
// {from, to, factor} (geometric). A range or {values: [...]} may carry a unit appended to each
// number on the command line ({values: [1, 10, 100], unit: Gbps} passes --bandwidth=10Gbps and
// records 10).
//
// Label axes: an axis whose values are {value: V, args: {...}} passes those args, not itself (e.g.
// `load: [{value: 0.5, args: {workload: pollux-0.5-1}}, ...]`); and an axis named in a template
// `{name}` inside an argument value is not passed either, only substituted
// (`workload: "pollux-{trace}"` with the axis `trace: {from: 1, to: 8}`).
//
// spread_over: the axes a chart averages over (mean with the min-max band); default: seed.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dmlkit::sweep {

// One value of an argument or axis: the text passed on the command line and the typed JSON value
// (integer, number, bool, string, or a list's joined text) recorded with the results.
struct Value {
  std::string text;
  nlohmann::ordered_json json;
  bool flag = false;  // a bool: true passes --name, false nothing
};

struct Argument {
  std::string name;
  Value value;
  long line = 0;  // line in the sweep file
  bool knob() const { return name.find('.') != std::string::npos; }
};

struct AxisValue : Value {
  std::vector<Argument> args;  // a label axis's value: the arguments it sets
};

struct Axis {
  std::string name;
  std::vector<AxisValue> values;
  long line = 0;
  // Not passed on the command line: its values set other arguments, or templates use it.
  bool label = false;
  bool knob() const { return name.find('.') != std::string::npos; }
};

struct SweepFile {
  std::string path;
  std::vector<std::string> command;  // {"cluster", "simulate"}
  long command_line = 0;
  std::string knob_option = "--policy-param";
  std::vector<Argument> args;
  std::vector<Axis> axes;
  std::vector<std::string> spread_over;  // axes the charts average over
};

// Most cells a grid may have (a typo in a range must not start a million runs).
inline constexpr size_t kMaxCells = 100000;

// Reads and checks a sweep file; Error(file, line, field, message) on bad input.
SweepFile load_sweep_file(const std::string& path);
// Parses `text` as if it were the file `path`.
SweepFile parse_sweep_file(const std::string& text, const std::string& path);

struct Cell {
  size_t index = 0;   // position in the grid
  std::string name;   // stable folder name from the axis values
  nlohmann::ordered_json values = nlohmann::ordered_json::object();  // axis -> typed value (file order)
  std::vector<std::string> argv;  // command words and options, without --out
};

// Number of cells of the grid (the product of the axis sizes; 1 without axes).
size_t grid_size(const SweepFile& file);
// The cells in grid order (first axis slowest, last fastest).
std::vector<Cell> expand(const SweepFile& file);

// The name of a cell with these axis values: `name=value` pairs sorted by axis name, joined by
// "__" (so reordering the axes in the file keeps every name); characters other than letters,
// digits and . _ + - = become '_'; names longer than 120 characters are cut and get a hash of the
// full values. Without axes: "base".
std::string cell_name(const std::vector<std::pair<std::string, std::string>>& values);

}  // namespace dmlkit::sweep
