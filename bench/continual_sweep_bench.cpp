// Benchmarks of the "Angle Matters" synthetic study: one task-2 training run (3000 full-batch
// epochs on 100 signal-noise samples) and the full sweep of the performance target
// (181 angles x 4 variants, default epochs, one seed, two threads).
#include <benchmark/benchmark.h>

#include "continual/angle_sweep.h"

namespace {

using dmlkit::continual::AngleSweepConfig;
using dmlkit::continual::Variant;

void BM_OneAngleOneVariant(benchmark::State& state) {
  AngleSweepConfig c;
  c.angles_deg = {150};
  c.variants = {Variant::cl};
  c.threads = 1;
  for (auto _ : state) benchmark::DoNotOptimize(dmlkit::continual::run_angle_sweep(c));
}
BENCHMARK(BM_OneAngleOneVariant)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_FullSweep(benchmark::State& state) {
  AngleSweepConfig c;
  c.angles_deg = dmlkit::continual::parse_angles("0:180:1");
  c.threads = 2;
  for (auto _ : state) benchmark::DoNotOptimize(dmlkit::continual::run_angle_sweep(c));
}
BENCHMARK(BM_FullSweep)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
