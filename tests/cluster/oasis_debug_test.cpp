#include <gtest/gtest.h>
#include <cstdio>
#include <cstdlib>
#include "cluster/oasis/dual_subroutine.h"
#include "cluster/oasis/oasis_experiment.h"
#include "cluster/workload/experiment.h"
#include "core/data_dir.h"
using namespace dmlkit::cluster::oasis;
TEST(OasisDebug, Dump) {
  const char* env = std::getenv("OASIS_DEBUG");
  if (!env) GTEST_SKIP();
  OasisExperiment e = load_oasis_experiment(dmlkit::cluster::default_experiments_dir() + "/oasis-sim.yaml");
  const double load = std::atof(env);
  const OasisCluster c = experiment_cluster(e, 50);
  OasisWorkloadSpec spec = e.workload; spec.load = load;
  const uint64_t seed = std::getenv("OASIS_SEED") ? std::atoi(std::getenv("OASIS_SEED")) : 1;
  const auto jobs = oasis_workload(spec, c, seed, dmlkit::default_data_dir());
  const OasisProblem p{&c, &jobs, &spec};
  dmlkit::KnobValues kv;
  if (const char* u = std::getenv("OASIS_U")) kv["oasis.u_scale"] = u;
  if (const char* l = std::getenv("OASIS_L")) kv["oasis.l_scale"] = l;
  if (const char* m = std::getenv("OASIS_UNITS")) kv["oasis.max_work_units"] = m;
  const OasisRun ro = make_oasis_method("oasis", kv, 1)->run(p);
  const OasisRun rd = make_oasis_method("dorm", {}, 1)->run(p);
  const PriceBounds prices = price_bounds(spec, false);
  for (size_t i = 0; i < jobs.size(); ++i) {
    const auto& j = jobs[i];
    std::printf("job %2zu a=%3d D=%5ld N=%2d g=%d pri=%6.2f tgt=%5.1f fastest=%3ld | oasis adm=%d done=%3d u=%6.2f | dorm done=%3d u=%6.2f\n", i,
      j.arrival_slot, j.work_worker_slots, j.max_workers, j.workers_per_ps, j.utility.priority, j.utility.target_slots,
      (j.work_worker_slots + j.max_workers - 1) / j.max_workers,
      ro.jobs[i].admitted, ro.jobs[i].completion_slot, ro.jobs[i].utility, rd.jobs[i].completion_slot, rd.jobs[i].utility);
  }
  std::printf("oasis %.1f dorm %.1f\n", check_and_measure(p, ro).total_utility, check_and_measure(p, rd).total_utility);
}
