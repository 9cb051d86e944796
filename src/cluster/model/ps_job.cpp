// The eight PS job types (spec cluster-schedulers.md 1.3/1.4, from DL2's trace.py and the Optimus
// prototype's job repository), their synthetic loss curves, and validation of a job's shape.
//
// Assumptions [A] (documented in docs/optimus.md):
// - Optimus testbed demands are the prototype's for resnet-50, vgg-16 and resnext-110; the other
//   five types copy the closest of those (GPU types) or use 4 CPU cores / 8 GB per CPU worker
//   (cnn-text-classification, dssm); every task needs 1 Gbps of bandwidth.
// - Loss curves: l(k) = 1/(beta0 k + beta1) + beta2, initial excess loss 1/beta1 = 3, and per type
//   the number of evaluations until convergence (loss_evals) and the floor beta2.
// - Tensor lists for PS load balance: the PipeDream graphs of resnet50, vgg16; resnext50 stands in
//   for resnext-110, inception_v3 for inception-bn, gnmt for seq2seq; the other three types have no
//   bundled graph (their PS load is taken as balanced).
#include "cluster/model/ps_job.h"

#include "cluster/model/harmony_job.h"

#include <cmath>

#include "core/error.h"

namespace dmlkit::cluster {

namespace {

PsJobType make_type(const char* name, int batch, double epoch_size, double compute_s, double model_mb, double inter_bw,
                    double intra_bw, double fraction, bool gpu_worker, std::initializer_list<double> theta,
                    TaskDemand tb_worker, TaskDemand tb_ps, const char* graph, int evals, double floor) {
  PsJobType t;
  t.name = name;
  t.global_batch = batch;
  t.epoch_size = epoch_size;
  t.local_compute_s = compute_s;
  t.model_mb = model_mb;
  t.inter_bw_MBps = inter_bw;
  t.intra_bw_MBps = intra_bw;
  t.epoch_fraction = fraction;
  t.gpu_worker = gpu_worker;
  int i = 0;
  for (double v : theta) t.theta[i++] = v;
  t.testbed_worker = tb_worker;
  t.testbed_ps = tb_ps;
  t.model_graph = graph;
  t.loss_evals = evals;
  t.loss_floor = floor;
  return t;
}

constexpr double kInitialExcessLoss = 3.0;  // 1/beta1 [A]

}  // namespace

const std::vector<PsJobType>& ps_job_types() {
  // name, M, epoch_size, compute s, model MB, inter, intra MB/s, epoch fraction, GPU worker,
  // theta0..4, testbed worker {cpus, gpus, mem, net}, testbed PS, graph, loss evals, loss floor.
  static const std::vector<PsJobType> types = {
      make_type("resnet-50", 32, 115, 0.449, 102.2, 91.875, 306.5, 0.30, true, {0.002972, 0.5172, 0.4015, 0.0003043, 0},
                {2, 1, 8, 1}, {3, 0, 9, 1}, "resnet50", 40, 0.30),
      make_type("vgg-16", 32, 115, 0.535, 553.4, 233.0, 427.75, 0.96, true, {0.02468, 0.4582, 0.7376, 0.1661, 0},
                {2, 1, 10, 1}, {4, 0, 10, 1}, "vgg16", 60, 0.40),
      make_type("resnext-110", 128, 390, 0.226, 6.92, 59.5, 63.0, 0.05, true,
                {0.0003883, 0.1901, 0.1076, 0.01829, 0.0001684}, {2, 1, 10, 1}, {3, 0, 10, 1}, "resnext50", 30, 0.20),
      make_type("inception-bn", 128, 120, 0.815, 42.1, 145.875, 1082.125, 0.54, true,
                {0.002956, 0.1697, 0.1721, 0.01664, 0.003261}, {2, 1, 8, 1}, {3, 0, 9, 1}, "inception_v3", 50, 0.35),
      make_type("seq2seq", 64, 780, 0.075, 36.5, 120.125, 181.125, 0.95, true, {0.001061, 0.05904, 0.02194, 0.0135, 0},
                {2, 1, 10, 1}, {3, 0, 10, 1}, "gnmt", 70, 0.50),
      make_type("cnn-text-classification", 50, 193, 0.585, 24.0, 60.75, 159.625, 0.46, false,
                {0.007503, 0.3435, 0.02154, 0.01803, 0}, {4, 0, 8, 1}, {2, 0, 8, 1}, "", 35, 0.25),
      make_type("dssm", 256, 349, 0.567, 6.0, 92.125, 65.625, 0.33, false, {0.001617, 0.116, 0, 0.007325, 0.0001302},
                {4, 0, 8, 1}, {2, 0, 8, 1}, "", 45, 0.30),
      make_type("wlm", 160, 165, 0.154, 19.2, 10.375, 22.875, 0.23, true, {0.0003421, 0.3267, 0.1514, 0.02167, 0},
                {2, 1, 8, 1}, {2, 0, 8, 1}, "", 55, 0.45),
  };
  return types;
}

int find_ps_job_type(const std::string& name) {
  const auto& types = ps_job_types();
  for (size_t i = 0; i < types.size(); ++i)
    if (types[i].name == name) return static_cast<int>(i);
  return -1;
}

const std::string& colocation_class(const PsJobSpec& spec) {
  return spec.harmony_type >= 0 ? harmony_job_types().at(spec.harmony_type).name : spec.job_type().name;
}

void make_loss_curve(int evals, double floor, double noise_sd, double threshold, PsJobSpec& spec) {
  if (evals < 10) throw Error("loss curve: at least 10 evaluations are needed (got " + std::to_string(evals) + ")");
  // Drop over the window ending at k: D(k) = A [1/(g (k-9) + 1) - 1/(g k + 1)] with beta0 = g beta1,
  // A = 1/beta1. D(k) decreases in k, so D(evals - 0.5) = threshold makes the rule fire exactly at
  // `evals`. Solve thr/A (g(k-9)+1)(gk+1) = 9g for g; take the larger root (fast early drop).
  const double amp = kInitialExcessLoss;
  const double k = evals - 0.5;
  const double t = threshold / amp;
  const double a = t * k * (k - 9), b = t * (2 * k - 9) - 9, c = t;
  const double disc = b * b - 4 * a * c;
  if (disc < 0)
    throw Error("loss curve: no curve converges after " + std::to_string(evals) +
                " evaluations with this threshold (use fewer evaluations)");
  const double g = (-b + std::sqrt(disc)) / (2 * a);
  spec.loss_beta1 = 1.0 / amp;
  spec.loss_beta0 = g * spec.loss_beta1;
  spec.loss_beta2 = floor;
  spec.loss_noise_sd = noise_sd;
}

double loss_curve(const PsJobSpec& spec, double k) {
  return 1.0 / (spec.loss_beta0 * k + spec.loss_beta1) + spec.loss_beta2;
}

void validate_ps_job(const PsJobSpec& spec, const std::string& file, long line) {
  if (spec.type < 0 || spec.type >= static_cast<int>(ps_job_types().size()))
    throw Error(file, line, "type", "unknown job type");
  auto check = [&](const TaskDemand& d, const char* what) {
    const std::string w = what;
    if (!(d.cpus >= 0) || !std::isfinite(d.cpus)) throw Error(file, line, w + "_cpus", "negative or non-finite demand");
    if (d.gpus < 0) throw Error(file, line, w + "_gpus", "negative demand");
    if (!(d.mem_gb >= 0) || !std::isfinite(d.mem_gb))
      throw Error(file, line, w + "_mem_gb", "negative or non-finite demand");
    if (!(d.net_gbps >= 0) || !std::isfinite(d.net_gbps))
      throw Error(file, line, w + "_net_gbps", "negative or non-finite demand");
    if (d.cpus == 0 && d.gpus == 0 && d.mem_gb == 0 && d.net_gbps == 0)
      throw Error(file, line, w + "_cpus", "a task must demand some resource");
  };
  check(spec.worker, "worker");
  check(spec.ps, "ps");
  if (!(spec.total_epochs > 0) || !std::isfinite(spec.total_epochs))
    throw Error(file, line, "epochs", "must be a positive number");
  if (spec.allreduce && spec.user_ps != 0) throw Error(file, line, "ps", "an all-reduce job has no parameter server");
  if (!spec.allreduce && spec.user_ps < 1) throw Error(file, line, "ps", "the requested PS count must be at least 1");
  if (spec.user_workers < 1) throw Error(file, line, "workers", "the requested worker count must be at least 1");
  if (!(spec.eval_every_epochs > 0)) throw Error(file, line, "eval_every", "must be positive");
}

}  // namespace dmlkit::cluster
