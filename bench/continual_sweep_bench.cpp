// Benchmarks of the "Angle Matters" synthetic study: one task-2 training run (3000 full-batch
// epochs on 100 signal-noise samples) per backend, the libtorch batch trainer's cost per network
// and epoch against the batch size, and the full sweep of the performance target
// (181 angles x 4 variants, default epochs, one seed, two threads) per backend.
#include <benchmark/benchmark.h>

#include "continual/angle_sweep.h"
#include "continual/signal_noise.h"
#include "learn/patch_cnn_batch.h"

namespace {

using dmlkit::continual::AngleSweepConfig;
using dmlkit::continual::TrainBackend;
using dmlkit::continual::Variant;

TrainBackend backend_of(const benchmark::State& state) {
  return state.range(0) == 0 ? TrainBackend::torch : TrainBackend::eigen;
}

void BM_OneAngleOneVariant(benchmark::State& state) {
  AngleSweepConfig c;
  c.angles_deg = {150};
  c.variants = {Variant::cl};
  c.threads = 1;
  c.backend = backend_of(state);
  state.SetLabel(dmlkit::continual::backend_name(c.backend));
  for (auto _ : state) benchmark::DoNotOptimize(dmlkit::continual::run_angle_sweep(c));
}
BENCHMARK(BM_OneAngleOneVariant)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(3);

// Microseconds per network and epoch when `range(0)` networks of the paper's size (d = 100,
// m = 10, 100 samples) train together on one thread.
void BM_TorchBatchPerNetworkEpoch(benchmark::State& state) {
  const int networks = static_cast<int>(state.range(0));
  const int epochs = 200;
  dmlkit::continual::SignalNoiseConfig data_config;
  dmlkit::learn::PatchCnnShape shape;
  std::vector<dmlkit::learn::PatchDataset> data;
  std::vector<dmlkit::learn::PatchCnn> nets;
  for (int k = 0; k < networks; ++k) {
    dmlkit::Rng rng(static_cast<uint64_t>(k));
    const auto mu = dmlkit::continual::task_signal(data_config, 3.0 * k);
    data.push_back(dmlkit::continual::generate_task(data_config, mu, data_config.train_per_task, rng));
    nets.emplace_back(shape, rng);
  }
  dmlkit::learn::GdConfig gd;
  gd.epochs = epochs;
  dmlkit::learn::BatchTrainConfig bc;
  bc.chunk_models = networks;
  for (auto _ : state) {
    std::vector<dmlkit::learn::PatchCnnTrainJob> jobs;
    for (int k = 0; k < networks; ++k)
      jobs.push_back({&nets[static_cast<size_t>(k)], &data[static_cast<size_t>(k)], nullptr});
    benchmark::DoNotOptimize(dmlkit::learn::train_full_batch_torch(jobs, gd, bc));
  }
  state.counters["us_per_network_epoch"] =
      benchmark::Counter(static_cast<double>(networks) * epochs,
                         benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_TorchBatchPerNetworkEpoch)->Arg(1)->Arg(4)->Arg(16)->Arg(64)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_FullSweep(benchmark::State& state) {
  AngleSweepConfig c;
  c.angles_deg = dmlkit::continual::parse_angles("0:180:1");
  c.threads = 2;
  c.backend = backend_of(state);
  state.SetLabel(dmlkit::continual::backend_name(c.backend));
  for (auto _ : state) benchmark::DoNotOptimize(dmlkit::continual::run_angle_sweep(c));
}
BENCHMARK(BM_FullSweep)->Arg(0)->Arg(1)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
