// Parameter-server training jobs (the job model of Optimus, EuroSys'18, and DL2, TPDS'21): the
// eight job types with their constants, a job's shape (task demands, epochs, synthetic loss curve),
// and PsJobMonitor, what a scheduler may observe about a running PS job. See docs/optimus.md.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace dmlkit::cluster {

// Demand of one task (worker or parameter server) on one server.
struct TaskDemand {
  double cpus = 0;
  int gpus = 0;
  double mem_gb = 0;
  double net_gbps = 0;
};

enum class PsTrainingMode { Sync, Async };

// One of the eight job types of DL2/Optimus (spec cluster-schedulers.md 1.4). Constants are
// DL2's (`trace.py`, `config_speed.txt`) except where marked [A] in ps_job.cpp.
struct PsJobType {
  std::string name;                   // resnet-50, vgg-16, ...
  int global_batch = 0;               // M of the measurements (samples per synchronous step)
  double epoch_size = 0;              // samples per (DL2, scaled-down) epoch
  double local_compute_s = 0;         // analytic model: compute time of one worker step
  double model_mb = 0;                // analytic model: parameter size
  double inter_bw_MBps = 0;           // analytic model: cross-server bandwidth
  double intra_bw_MBps = 0;           // analytic model: same-server bandwidth
  double epoch_fraction = 0;          // total epochs = fraction * MAX_NUM_EPOCHS
  bool gpu_worker = true;             // DL2: workers need a GPU (cnn-text and dssm train on CPUs)
  double theta[5] = {0, 0, 0, 0, 0};  // fitted Optimus sync model (spec 1.4(b))
  TaskDemand testbed_worker;          // Optimus prototype demands (13-server testbed)
  TaskDemand testbed_ps;
  std::string model_graph;  // data/model-graphs file used for PS load balance ("" = none)
  int loss_evals = 50;      // [A] loss evaluations until the convergence rule fires
  double loss_floor = 0.2;  // [A] asymptotic loss beta2 of the synthetic curve
};

const std::vector<PsJobType>& ps_job_types();
// Index of a type by name, or -1.
int find_ps_job_type(const std::string& name);

struct PsJobSpec {
  int type = 0;  // index into ps_job_types()
  PsTrainingMode mode = PsTrainingMode::Sync;
  TaskDemand worker;        // per worker
  TaskDemand ps;            // per parameter server
  double total_epochs = 1;  // true epochs to converge (E_j)
  int user_ps = 1;          // what the user asked for (baselines with fixed (p, w))
  int user_workers = 1;
  // Synthetic validation loss l(k) = 1/(beta0 k + beta1) + beta2 + N(0, noise_sd), evaluated every
  // eval_every_epochs epochs (k counts evaluations); built by make_loss_curve().
  double eval_every_epochs = 1;
  double loss_beta0 = 1, loss_beta1 = 1, loss_beta2 = 0, loss_noise_sd = 0;
  uint64_t seed = 0;  // noise of loss, measurements and stragglers
  // Harmony's job type (index into harmony_job_types(), cluster/model/harmony_job.h), or -1 for a
  // job of the DL2/Optimus catalogue. `type` is then the measured type its speed is taken from.
  int harmony_type = -1;
  // An all-reduce job (Harmony's journal version): workers only (user_ps = 0), gradients averaged
  // by a ring all-reduce over the placement (cluster/speed/allreduce_speed.h), always synchronous.
  bool allreduce = false;
  const PsJobType& job_type() const { return ps_job_types()[type]; }
};

// The name co-location interference knows a job by (cluster/speed/interference.h): its Harmony
// type's name if it has one, else its DL2 type's.
const std::string& colocation_class(const PsJobSpec& spec);

// Chooses beta0, beta1 = 1 and beta2 = floor so that Optimus' convergence rule (the fitted loss
// drops by at most `threshold` over the last 10 evaluations) first holds at evaluation `evals`.
void make_loss_curve(int evals, double floor, double noise_sd, double threshold, PsJobSpec& spec);
// The noise-free loss at evaluation k.
double loss_curve(const PsJobSpec& spec, double k);
// Checks a job's PS shape: known type, non-negative finite demands, worker and PS demand not both
// empty, positive epochs. Throws Error(file, line, field, ...).
void validate_ps_job(const PsJobSpec& spec, const std::string& file, long line);

// What a scheduler may observe about a parameter-server job (the simulator provides it through
// ps_monitor(JobView) in policy.h; a live controller would measure it). Oracle methods are marked; only policies
// documented as clairvoyant (or run with an oracle switch) may call them.
class PsJobMonitor {
 public:
  virtual ~PsJobMonitor() = default;
  virtual const PsJobSpec& spec() const = 0;
  virtual double epochs_done() const = 0;
  // Validation losses measured so far, one per eval_every_epochs epochs (k = 1..n).
  virtual int losses_observed() const = 0;
  virtual double observed_loss(int k) const = 0;
  // Runs the job briefly with p PSs and w workers and returns the measured throughput
  // (samples/s, with measurement noise); the job is charged cost_s seconds of its run time for it.
  virtual double measure_speed(int p, int w, double cost_s) const = 0;
  // Measured throughput on the current placement (samples/s with noise; 0 when stopped).
  virtual double observed_speed() const = 0;
  // Slowdown of each worker on the current placement (1 = healthy; > 1 straggler), in placement
  // order (the workers of slice 0 first).
  virtual std::span<const double> worker_slowdowns() const = 0;
  // Oracle: true throughput with p PSs and w workers (balanced placement, no stragglers).
  virtual double true_speed(int p, int w) const = 0;
  // Oracle: true total epochs.
  virtual double true_total_epochs() const = 0;
};

}  // namespace dmlkit::cluster
