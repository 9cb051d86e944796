// Reading, writing and applying a sim-to-real calibration file; see calibration.h.
#include "cluster/sim/calibration.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/output_dir.h"
#include "core/stats.h"

namespace dmlkit::cluster {

using nlohmann::ordered_json;

namespace {

constexpr const char* kSchema = "dmlkit-calibration";

ordered_json stat_json(const LatencyStat& s) {
  ordered_json j = {
      {"mean_s", s.mean_s}, {"p50_s", s.p50_s}, {"p90_s", s.p90_s}, {"max_s", s.max_s}, {"samples", s.samples}};
  if (!s.samples_s.empty()) j["samples_s"] = s.samples_s;
  return j;
}

std::string shown(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// A number in [0, max] (a latency, a count), checked before it sizes any simulated time.
double checked(const std::string& path, const std::string& name, const ordered_json& v, double max) {
  if (!v.is_number()) throw Error(path, 0, name, "must be a number");
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < 0 || x > max)
    throw Error(path, 0, name, "must be a number in [0, " + shown(max) + "], got " + shown(x));
  return x;
}

double number_field(const std::string& path, const ordered_json& obj, const std::string& field, const std::string& key,
                    double max = kMaxCalibrationLatency_s) {
  const std::string name = field + "." + key;
  if (!obj.contains(key)) throw Error(path, 0, name, "missing");
  return checked(path, name, obj.at(key), max);
}

LatencyStat read_stat(const std::string& path, const ordered_json& lat, const std::string& key) {
  const std::string field = "latencies_wall_s." + key;
  if (!lat.contains(key)) throw Error(path, 0, field, "missing");
  const auto& o = lat.at(key);
  if (!o.is_object()) throw Error(path, 0, field, "must be an object");
  LatencyStat s;
  s.mean_s = number_field(path, o, field, "mean_s");
  s.p50_s = o.contains("p50_s") ? number_field(path, o, field, "p50_s") : s.mean_s;
  s.p90_s = o.contains("p90_s") ? number_field(path, o, field, "p90_s") : s.mean_s;
  s.max_s = o.contains("max_s") ? number_field(path, o, field, "max_s") : s.mean_s;
  s.samples = o.contains("samples") ? static_cast<int>(number_field(path, o, field, "samples", 1e9)) : 0;
  if (o.contains("samples_s")) {
    const auto& a = o.at("samples_s");
    if (!a.is_array()) throw Error(path, 0, field + ".samples_s", "must be an array of numbers");
    for (size_t i = 0; i < a.size(); ++i)
      s.samples_s.push_back(
          checked(path, field + ".samples_s[" + std::to_string(i) + "]", a[i], kMaxCalibrationLatency_s));
  }
  return s;
}

// An optional latency (the command timings, added after the first files were written): absent
// reads as no samples.
LatencyStat read_optional_stat(const std::string& path, const ordered_json& lat, const std::string& key) {
  return lat.contains(key) ? read_stat(path, lat, key) : LatencyStat{};
}

std::string time_scale_range() {
  return "must be in [" + shown(kMinTimeScale) + ", " + shown(kMaxTimeScale) + "] wall seconds per model second";
}

}  // namespace

void check_time_scale(double scale, const std::string& option) {
  if (!(scale >= kMinTimeScale && scale <= kMaxTimeScale))
    throw Error(option + ": " + time_scale_range() + ", got " + shown(scale));
}

LatencyStat latency_stat(std::vector<double> wall_s) {
  LatencyStat s;
  s.samples = static_cast<int>(wall_s.size());
  if (wall_s.empty()) return s;
  s.samples_s = wall_s;
  std::sort(wall_s.begin(), wall_s.end());
  double sum = 0;
  for (double x : wall_s) sum += x;
  s.mean_s = sum / static_cast<double>(wall_s.size());
  s.p50_s = percentile(wall_s, 50);
  s.p90_s = percentile(wall_s, 90);
  s.max_s = wall_s.back();
  return s;
}

std::string calibration_json(const Calibration& c) {
  ordered_json j;
  j["schema"] = kSchema;
  j["schema_version"] = 1;
  j["time_scale"] = c.time_scale;
  j["latencies_wall_s"] = {{"arrival", stat_json(c.arrival)},
                           {"start", stat_json(c.start)},
                           {"restart", stat_json(c.restart)},
                           {"preemption", stat_json(c.preemption)},
                           {"completion", stat_json(c.completion)},
                           {"poll", stat_json(c.poll)},
                           {"place", stat_json(c.place)},
                           {"release", stat_json(c.release)},
                           {"hold", stat_json(c.hold)},
                           {"requeue", stat_json(c.requeue)},
                           {"submit", stat_json(c.submit)}};
  const double ts = c.time_scale;
  const double restart = c.restart.samples > 0 ? c.restart.mean_s : c.start.mean_s;
  j["simulator_model_s"] = {{"arrival_latency_s", c.arrival.mean_s / ts},
                            {"start_latency_s", (c.start.mean_s + c.completion.mean_s) / ts},
                            {"restart_latency_s", restart / ts}};
  j["source"] = {{"command", c.source_command},
                 {"workload", c.source_workload},
                 {"policy", c.source_policy},
                 {"jobs", c.source_jobs},
                 {"cluster_nodes", c.source_nodes},
                 {"cluster_gpus", c.source_gpus},
                 {"restart_delay_s", c.source_restart_delay_s}};
  return j.dump(2) + "\n";
}

Calibration read_calibration(const std::string& path) {
  if (!std::filesystem::is_regular_file(path)) throw Error(path, 0, "", "no such calibration file");
  ordered_json doc = ordered_json::parse(read_text_file(path), nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) throw Error(path, 0, "", "not a JSON object (a calibration file)");
  if (doc.value("schema", std::string()) != kSchema)
    throw Error(path, 0, "schema", std::string("expected \"") + kSchema + "\" (written by `cluster replay --slurm`)");
  if (!doc.contains("schema_version") || !doc.at("schema_version").is_number_integer() ||
      doc.at("schema_version").get<int>() != 1)
    throw Error(path, 0, "schema_version", "expected 1");
  Calibration c;
  if (!doc.contains("time_scale") || !doc.at("time_scale").is_number())
    throw Error(path, 0, "time_scale", "missing or not a number");
  c.time_scale = doc.at("time_scale").get<double>();
  if (!(c.time_scale >= kMinTimeScale && c.time_scale <= kMaxTimeScale))
    throw Error(path, 0, "time_scale", time_scale_range() + ", got " + shown(c.time_scale));
  if (!doc.contains("latencies_wall_s") || !doc.at("latencies_wall_s").is_object())
    throw Error(path, 0, "latencies_wall_s", "missing or not an object");
  const auto& lat = doc.at("latencies_wall_s");
  c.arrival = read_stat(path, lat, "arrival");
  c.start = read_stat(path, lat, "start");
  c.restart = read_stat(path, lat, "restart");
  c.preemption = read_stat(path, lat, "preemption");
  c.completion = read_stat(path, lat, "completion");
  c.poll = read_optional_stat(path, lat, "poll");
  c.place = read_optional_stat(path, lat, "place");
  c.release = read_optional_stat(path, lat, "release");
  c.hold = read_optional_stat(path, lat, "hold");
  c.requeue = read_optional_stat(path, lat, "requeue");
  c.submit = read_optional_stat(path, lat, "submit");
  return c;
}

CalibrationStatistic parse_calibration_statistic(const std::string& name) {
  if (name == "mean") return CalibrationStatistic::Mean;
  if (name == "median") return CalibrationStatistic::Median;
  if (name == "sample") return CalibrationStatistic::Sample;
  throw Error("--calibration-statistic: expected mean, median or sample, got '" + name + "'");
}

double latency_value(const LatencyStat& s, CalibrationStatistic statistic) {
  return statistic == CalibrationStatistic::Median ? s.p50_s : s.mean_s;
}

LatencyDraw latency_draw(const LatencyStat& s, CalibrationStatistic statistic) {
  LatencyDraw d;
  d.value_s = latency_value(s, statistic);
  if (statistic == CalibrationStatistic::Sample) d.samples_s = s.samples_s;
  return d;
}

void apply_calibration(SimConfig& config, const Calibration& c, double time_scale, CalibrationStatistic statistic) {
  if (time_scale != 0) check_time_scale(time_scale, "--calibration-time-scale");
  const double ts = time_scale > 0 ? time_scale : c.time_scale;
  auto of = [statistic](const LatencyStat& s) { return latency_value(s, statistic); };
  const double restart = c.restart.samples > 0 ? of(c.restart) : of(c.start);
  config.arrival_latency_s = of(c.arrival) / ts;
  config.start_latency_s = (of(c.start) + of(c.completion)) / ts;
  config.restart_latency_s = restart / ts;
}

}  // namespace dmlkit::cluster
