// Sim-to-real calibration (docs/live-mode.md, "Calibration"): the latencies a real cluster manager
// adds to a job's life that the simulator does not model, measured on a live run by
// `dmlkit cluster replay --slurm` (calibration.json in its output folder) and applied by
// `dmlkit cluster simulate|compare --calibration FILE`.
//
// Every latency is measured in wall seconds on the run's own clock, with the run's time scale
// (wall seconds per model second); the simulator uses latency / time_scale model seconds, or
// latency / S with --calibration-time-scale S to predict a run at another scale. What is applied
// (SimConfig): the arrival latency delays when the simulator sees a job (its JCT still counts from
// the workload's arrival); the start latency, plus the completion latency, is added to the delay
// of a job's first start; the restart latency to the delay of every later start (after a
// preemption or a move). The preemption latency is recorded only: the start latency of the job
// that takes the freed GPUs already contains it. [A] means of the samples by default (medians on
// request); a run without restarts (restart samples 0) uses its start latency for restarts.
#pragma once
#include <string>
#include <vector>

#include "cluster/sim/simulator.h"

namespace dmlkit::cluster {

// Summary of the samples of one latency (wall seconds).
struct LatencyStat {
  double mean_s = 0;
  double p50_s = 0;
  double p90_s = 0;
  double max_s = 0;
  int samples = 0;
};

struct Calibration {
  double time_scale = 1.0;  // wall seconds per model second of the measured run
  LatencyStat arrival;      // scheduled arrival -> the controller first sees the job
  LatencyStat start;        // placement (release) -> job seen RUNNING, a job's first start
  LatencyStat restart;      // placement -> job seen RUNNING, every later start
  LatencyStat preemption;   // preemption (requeuehold) -> job seen stopped (recorded only)
  LatencyStat completion;   // work done -> job seen COMPLETED
  // Where it was measured (free-form, written to the file's "source"; not read back).
  std::string source_command, source_workload, source_policy;
  int source_jobs = 0, source_nodes = 0, source_gpus = 0;
  double source_restart_delay_s = 0;
};

// Mean, p50, p90 (linear interpolation, as numpy), max and count of `wall_s` samples.
LatencyStat latency_stat(std::vector<double> wall_s);

// The calibration file (JSON, schema_version 1; docs/live-mode.md documents the schema).
std::string calibration_json(const Calibration& c);
// Throws Error naming the file and the field for a missing file, bad JSON, a wrong schema or
// version, a non-positive time scale, or a negative or non-finite latency.
Calibration read_calibration(const std::string& path);

// Which statistic of the samples the simulator applies [A]: the mean (right for average JCTs) or
// the median (robust to a loaded lab's outliers).
enum class CalibrationStatistic { Mean, Median };
// "mean" or "median"; Error naming --calibration-statistic otherwise.
CalibrationStatistic parse_calibration_statistic(const std::string& name);

// Sets config's arrival_latency_s, start_latency_s and restart_latency_s (model seconds) from `c`;
// time_scale > 0 overrides c.time_scale (predicting a run at another scale).
void apply_calibration(SimConfig& config, const Calibration& c, double time_scale = 0,
                       CalibrationStatistic statistic = CalibrationStatistic::Mean);

}  // namespace dmlkit::cluster
