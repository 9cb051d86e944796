#include "cluster/sim/runner.h"

#include <algorithm>
#include <memory>
#include <mutex>

#include "core/parallel_for.h"

namespace dmlkit::cluster {

std::vector<SimRun> run_simulations(const std::vector<SimTask>& tasks, int threads, const SimProgress& progress) {
  std::vector<SimRun> runs(tasks.size());
  std::mutex progress_mutex;
  auto report = [&](const auto& fn, auto... args) {
    if (!fn) return;
    std::lock_guard<std::mutex> lock(progress_mutex);
    fn(args...);
  };
  const int workers = std::max(1, std::min<int>(threads, static_cast<int>(tasks.size())));
  parallel_for(tasks.size(), workers, [&](size_t i) {
    const SimTask& task = tasks[i];
    report(progress.on_start, i);
    std::unique_ptr<Policy> own;
    Policy* policy = task.policy;
    if (policy == nullptr) {
      own = make_policy(task.policy_name, task.options);
      policy = own.get();
    }
    SimConfig config = *task.config;
    if (progress.on_jobs)
      config.on_progress = [&, i](double now_s, size_t finished, size_t) {
        report(progress.on_jobs, i, now_s, finished);
      };
    SimRun& run = runs[i];
    run.result = simulate(*task.cluster, *task.workload, task.policy_name, *policy, config);
    run.metrics = compute_metrics(run.result);
    report(progress.on_done, i);
  });
  return runs;
}

}  // namespace dmlkit::cluster
