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
//
// The file also keeps the raw samples of each latency (samples_s) and the wall time of each kind of
// call the controller makes to the cluster manager (poll: one squeue + sinfo; place: scontrol
// update; release; hold; requeue: requeuehold; submit: sbatch), measured around the calls. These
// feed the second predictor, `cluster replay --fake NxG --calibration FILE` (live/fake_slurm.h,
// FakeLatencies): the controller itself on the in-memory Slurm, where every call costs a drawn
// duration and every start, completion and requeue settles after a drawn delay, so the
// controller's own quantisation (polls, rounds, serial commands, two-phase moves, reshaping to
// uniform GPUs per node) is reproduced rather than approximated. Both read the same file.
#pragma once
#include <string>
#include <vector>

#include "cluster/sim/simulator.h"

namespace dmlkit::cluster {

// Physical bounds (docs/live-mode.md), checked when a file or option is read, before any work: a
// time scale (wall seconds per model second, a replay's --time-scale, a calibration file's and
// --calibration-time-scale) in [kMinTimeScale, kMaxTimeScale]; a latency at most a day of wall time
// (a calibration latency of 1e300 s would otherwise run the simulator's rounds until memory runs out).
inline constexpr double kMinTimeScale = 1e-4;
inline constexpr double kMaxTimeScale = 1e3;
inline constexpr double kMaxCalibrationLatency_s = 86400;
// Error("<option>: must be in [1e-04, 1000] wall seconds per model second, got ...") unless
// kMinTimeScale <= scale <= kMaxTimeScale.
void check_time_scale(double scale, const std::string& option);

// Summary of the samples of one latency (wall seconds).
struct LatencyStat {
  double mean_s = 0;
  double p50_s = 0;
  double p90_s = 0;
  double max_s = 0;
  int samples = 0;
  std::vector<double> samples_s;  // the raw samples (wall s), in measurement order; may be empty
};

struct Calibration {
  double time_scale = 1.0;  // wall seconds per model second of the measured run
  LatencyStat arrival;      // scheduled arrival -> the controller first sees the job
  LatencyStat start;        // placement (release) -> job seen RUNNING, a job's first start
  LatencyStat restart;      // placement -> job seen RUNNING, every later start
  LatencyStat preemption;   // preemption (requeuehold) -> job seen stopped (recorded only)
  LatencyStat completion;   // work done -> job seen COMPLETED
  // Wall time of the controller's calls to the cluster manager (optional in the file: 0 samples).
  LatencyStat poll;     // one snapshot: squeue --json + sinfo --json
  LatencyStat place;    // scontrol update (node list, GRES, start time)
  LatencyStat release;  // scontrol release
  LatencyStat hold;     // scontrol hold
  LatencyStat requeue;  // scontrol requeuehold
  LatencyStat submit;   // sbatch (replay)
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
// version, a time scale outside [kMinTimeScale, kMaxTimeScale], or a latency outside
// [0, kMaxCalibrationLatency_s].
Calibration read_calibration(const std::string& path);

// Which statistic of the samples is applied [A]: the mean (right for average JCTs), the median
// (robust to a loaded lab's outliers), or sample: every event draws one of the measured samples
// (the measured distribution; seeded by --seed; a latency without stored samples uses its mean).
enum class CalibrationStatistic { Mean, Median, Sample };
// "mean", "median" or "sample"; Error naming --calibration-statistic otherwise.
CalibrationStatistic parse_calibration_statistic(const std::string& name);

// The value of `s` under `statistic` (Sample: the mean; drawing happens where the events are).
double latency_value(const LatencyStat& s, CalibrationStatistic statistic);

// What an event of one latency costs: a constant, or a draw from the measured samples, less
// `offset_s` (the part of a measured latency the consumer reproduces itself, e.g. the wait for the
// next poll), floored at 0. `samples_s` empty: always `value_s - offset_s`.
struct LatencyDraw {
  double value_s = 0;
  std::vector<double> samples_s;
  double offset_s = 0;
  template <typename Rng>
  double draw(Rng& rng) const {
    double x = value_s;
    if (!samples_s.empty())
      x = samples_s[static_cast<size_t>(rng.uniform_int(0, static_cast<int64_t>(samples_s.size()) - 1))];
    return x - offset_s > 0 ? x - offset_s : 0.0;
  }
  bool zero() const { return samples_s.empty() && value_s - offset_s <= 0; }
};
// The draw of `s` under `statistic` (samples only for Sample, and only if the file has them).
LatencyDraw latency_draw(const LatencyStat& s, CalibrationStatistic statistic);

// Sets config's arrival_latency_s, start_latency_s and restart_latency_s (model seconds) from `c`;
// time_scale > 0 overrides c.time_scale (predicting a run at another scale).
void apply_calibration(SimConfig& config, const Calibration& c, double time_scale = 0,
                       CalibrationStatistic statistic = CalibrationStatistic::Mean);

}  // namespace dmlkit::cluster
