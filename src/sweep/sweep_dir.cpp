// The sweep folder: plan, per-cell state, finished check (see sweep_dir.h).
#include "sweep/sweep_dir.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "core/error.h"
#include "core/output_dir.h"

namespace fs = std::filesystem;

namespace dmlkit::sweep {

using nlohmann::ordered_json;

Plan make_plan(const SweepFile& file) {
  Plan p;
  p.sweep_file = file.path;
  p.command = file.command;
  p.knob_option = file.knob_option;
  for (const auto& a : file.args) p.args[a.name] = a.value.json;
  for (const auto& ax : file.axes) p.axes.push_back(ax.name);
  p.spread_over = file.spread_over;
  p.cells = expand(file);
  return p;
}

ordered_json plan_json(const Plan& plan) {
  ordered_json j;
  j["sweep_file"] = plan.sweep_file;
  j["command"] = plan.command;
  j["knob_option"] = plan.knob_option;
  j["args"] = plan.args;
  j["axes"] = plan.axes;
  j["spread_over"] = plan.spread_over;
  ordered_json cells = ordered_json::array();
  for (const auto& c : plan.cells) {
    ordered_json x;
    x["index"] = c.index;
    x["name"] = c.name;
    x["values"] = c.values;
    x["argv"] = c.argv;
    cells.push_back(std::move(x));
  }
  j["cells"] = std::move(cells);
  return j;
}

Plan plan_from_json(const ordered_json& j, const std::string& path) {
  try {
    Plan p;
    p.sweep_file = j.at("sweep_file").get<std::string>();
    p.command = j.at("command").get<std::vector<std::string>>();
    p.knob_option = j.at("knob_option").get<std::string>();
    p.args = j.at("args");
    p.axes = j.at("axes").get<std::vector<std::string>>();
    p.spread_over = j.value("spread_over", std::vector<std::string>{});
    for (const auto& x : j.at("cells")) {
      Cell c;
      c.index = x.at("index").get<size_t>();
      c.name = x.at("name").get<std::string>();
      c.values = x.at("values");
      c.argv = x.at("argv").get<std::vector<std::string>>();
      p.cells.push_back(std::move(c));
    }
    return p;
  } catch (const nlohmann::json::exception& e) {
    throw Error(path, 0, "", std::string("not a sweep plan: ") + e.what());
  }
}

const std::vector<std::string>& sweep_dir_files() {
  static const std::vector<std::string> files = {"sweep.json", "results.json", "records.csv", "summary.csv",
                                                 "report.html", "report.json"};
  return files;
}

std::string cell_dir(const std::string& dir, const std::string& name) { return (fs::path(dir) / "cells" / name).string(); }
std::string state_path(const std::string& dir, const std::string& name) {
  return (fs::path(dir) / "state" / (name + ".json")).string();
}

Plan read_plan(const std::string& dir) {
  const fs::path p = fs::path(dir) / "sweep.json";
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) throw Error(dir + ": not a sweep folder (no sweep.json; run `dmlkit sweep run FILE --out " + dir + "` first)");
  const auto j = ordered_json::parse(read_text_file(p.string()), nullptr, false);
  if (j.is_discarded()) throw Error(p.string(), 0, "", "not valid JSON");
  return plan_from_json(j, p.string());
}

void prepare_sweep_dir(const std::string& dir, const Plan& plan) {
  std::error_code ec;
  const fs::path root(dir);
  const bool ours = fs::is_regular_file(root / kOutputMarker, ec);
  if (ours) {
    if (!fs::is_regular_file(root / "sweep.json", ec))
      throw Error("--out " + dir + ": holds the output of another dmlkit command, not a sweep; choose another folder");
    // Resume: every cell that is in both plans must run with the same arguments.
    const Plan old = read_plan(dir);
    std::map<std::string, const Cell*> before;
    for (const auto& c : old.cells) before[c.name] = &c;
    for (const auto& c : plan.cells) {
      auto it = before.find(c.name);
      if (it != before.end() && it->second->argv != c.argv)
        throw Error("--out " + dir + ": holds a sweep whose cell '" + c.name +
                    "' ran with other arguments (the command or fixed args changed); choose another folder");
    }
  }
  prepare_incremental_output(dir, sweep_dir_files(), /*resume=*/true);
  for (const char* sub : {"cells", "state"}) {
    fs::create_directories(root / sub, ec);
    if (ec) throw Error("--out " + dir + ": cannot create " + sub + "/ (" + ec.message() + ")");
  }
  write_file_atomic((root / "sweep.json").string(), plan_json(plan).dump(2) + "\n");
}

bool cell_finished(const std::string& dir, const std::string& name) {
  const fs::path p = fs::path(cell_dir(dir, name)) / "results.json";
  std::ifstream in(p, std::ios::binary);
  if (!in) return false;
  const auto j = nlohmann::json::parse(in, nullptr, false);
  return !j.is_discarded() && j.is_object() && j.contains("records") && j["records"].is_array() &&
         j.contains("schema_version");
}

CellState read_state(const std::string& dir, const std::string& name) {
  CellState s;
  std::ifstream in(state_path(dir, name), std::ios::binary);
  if (!in) return s;
  const auto j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return s;
  s.status = j.value("status", "");
  s.attempts = j.value("attempts", 0);
  s.exit_code = j.value("exit_code", 0);
  s.error = j.value("error", "");
  s.seconds = j.value("seconds", 0.0);
  s.host = j.value("host", "");
  return s;
}

void write_state(const std::string& dir, const std::string& name, const CellState& s) {
  ordered_json j;
  j["cell"] = name;
  j["status"] = s.status;
  j["attempts"] = s.attempts;
  j["exit_code"] = s.exit_code;
  j["error"] = s.error;
  j["seconds"] = s.seconds;
  j["host"] = s.host;
  std::error_code ec;
  fs::create_directories(fs::path(state_path(dir, name)).parent_path(), ec);
  write_file_atomic(state_path(dir, name), j.dump(2) + "\n");
}

}  // namespace dmlkit::sweep
