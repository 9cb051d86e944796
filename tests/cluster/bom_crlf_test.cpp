// Every cluster reader accepts a file saved by a spreadsheet program (UTF-8 byte-order mark, CRLF
// line ends) and reads exactly what it reads from the plain file (issue 11, defect 2).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "cluster/model/cluster_spec.h"
#include "cluster/model/ps_job.h"
#include "cluster/speed/app_profile.h"
#include "cluster/speed/ps_assignment.h"
#include "cluster/speed/ps_speed.h"
#include "cluster/workload/experiment.h"
#include "cluster/workload/ps_workload.h"
#include "cluster/workload/workload.h"
#include "core/data_dir.h"
#include "spreadsheet_copy.h"

namespace dmlkit::cluster {
namespace {

namespace fs = std::filesystem;
using dmlkit::testing::copy_as_spreadsheet;

class BomCrlf : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("dmlkit-bom-cluster-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  // A spreadsheet copy of `source` under the temp folder, at `name`.
  std::string copy(const std::string& source, const std::string& name) const {
    copy_as_spreadsheet(source, dir_ / name);
    return (dir_ / name).string();
  }
  fs::path dir_;
};

void expect_same_jobs(const Workload& a, const Workload& b) {
  ASSERT_EQ(a.jobs.size(), b.jobs.size());
  ASSERT_FALSE(a.jobs.empty());
  for (size_t i = 0; i < a.jobs.size(); ++i) {
    const Job &x = a.jobs[i], &y = b.jobs[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.arrival_s, y.arrival_s);
    EXPECT_EQ(x.application, y.application);
    EXPECT_EQ(x.num_gpus, y.num_gpus);
    EXPECT_EQ(x.batch_size, y.batch_size);
    EXPECT_EQ(x.duration_s, y.duration_s);
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.cpus_per_gpu, y.cpus_per_gpu);
    EXPECT_EQ(x.mem_gb_per_gpu, y.mem_gb_per_gpu);
    EXPECT_EQ(x.source_line, y.source_line);
    ASSERT_EQ(x.ps == nullptr, y.ps == nullptr);
    if (x.ps) {
      EXPECT_EQ(x.ps->type, y.ps->type);
      EXPECT_EQ(x.ps->total_epochs, y.ps->total_epochs);
      EXPECT_EQ(x.ps->user_workers, y.ps->user_workers);
    }
  }
}

TEST_F(BomCrlf, PolluxWorkloadAndPhillyTrace) {
  WorkloadOptions o;
  o.data_dir = default_data_dir();
  for (const std::string name : {"pollux-6", "philly"}) {
    const std::string plain = resolve_workload_path(name, o.data_dir);
    const Workload a = load_workload(plain, o);
    const Workload b = load_workload(copy(plain, fs::path(plain).filename().string()), o);
    SCOPED_TRACE(name);
    expect_same_jobs(a, b);
  }
}

void expect_same_servers(const ClusterSpec& a, const ClusterSpec& b) {
  ASSERT_EQ(a.servers.size(), b.servers.size());
  ASSERT_FALSE(a.servers.empty());
  for (size_t i = 0; i < a.servers.size(); ++i) {
    EXPECT_EQ(a.servers[i].name, b.servers[i].name);
    EXPECT_EQ(a.servers[i].gpus, b.servers[i].gpus);
    EXPECT_EQ(a.servers[i].gpu_type, b.servers[i].gpu_type);
    EXPECT_EQ(a.servers[i].cpus, b.servers[i].cpus);
    EXPECT_EQ(a.servers[i].mem_gb, b.servers[i].mem_gb);
    EXPECT_EQ(a.servers[i].net_gbps, b.servers[i].net_gbps);
  }
}

TEST_F(BomCrlf, ClusterSpecsAlibabaNodeListAndYaml) {
  const std::string nodes = data_path("alibaba-gpu-2023/openb_node_list_gpu_node.csv");
  expect_same_servers(ClusterSpec::parse(nodes), ClusterSpec::parse(copy(nodes, "nodes.csv")));
  const std::string yaml = (fs::path(DMLKIT_SOURCE_DIR) / "experiments/clusters/dl2-96.yaml").string();
  const ClusterSpec a = ClusterSpec::parse(yaml), b = ClusterSpec::parse(copy(yaml, "dl2-96.yaml"));
  EXPECT_EQ(a.name, b.name);
  expect_same_servers(a, b);
}

TEST_F(BomCrlf, SpeedTable) {
  const std::string csv = data_path("dl2-measurements/ps_worker_speed.csv");
  const TableSpeedModel a(csv), b(copy(csv, "speed.csv"));
  EXPECT_EQ(a.dropped_points(), b.dropped_points());
  for (int t = 0; t < static_cast<int>(ps_job_types().size()); ++t) {
    EXPECT_EQ(a.points(t), b.points(t));
    for (double p : {1.0, 2.5, 4.0})
      for (double w : {1.0, 3.0, 8.0}) EXPECT_EQ(a.interpolate(t, p, w), b.interpolate(t, p, w));
  }
}

TEST_F(BomCrlf, AppProfiles) {
  for (const std::string app : {"bert", "cifar10"}) {
    const std::string plain = data_path("app-profiles/" + app);
    const AppProfile a(app, plain), b(app, copy(plain, "app-profiles/" + app));
    SCOPED_TRACE(app);
    EXPECT_EQ(a.max_epochs(), b.max_epochs());
    EXPECT_EQ(a.init_batch_size(), b.init_batch_size());
    EXPECT_EQ(a.validated_batch_sizes(), b.validated_batch_sizes());
    for (int r : {1, 4, 16})
      EXPECT_EQ(a.packed_step_time_s(a.init_batch_size(), r), b.packed_step_time_s(a.init_batch_size(), r));
    for (int e = 0; e < a.max_epochs(); e += 7) EXPECT_EQ(a.progress_at_epoch(e), b.progress_at_epoch(e));
  }
}

TEST_F(BomCrlf, GoogleArrivalPatternAndModelParameters) {
  copy(data_path("dl2-measurements"), "data/dl2-measurements");
  PsWorkloadSpec spec;
  spec.arrivals = "google";
  spec.num_jobs = 30;
  expect_same_jobs(ps_workload(spec, 3, default_data_dir()), ps_workload(spec, 3, (dir_ / "data").string()));
  const std::string graph = data_path("model-graphs/vgg16.txt");
  EXPECT_EQ(load_model_parameters(graph), load_model_parameters(copy(graph, "vgg16.txt")));
}

TEST_F(BomCrlf, ExperimentPreset) {
  // The preset and its cluster file, both converted, in the same layout.
  const fs::path src = fs::path(DMLKIT_SOURCE_DIR) / "experiments";
  copy((src / "dl2-96.yaml").string(), "experiments/dl2-96.yaml");
  copy((src / "clusters/dl2-96.yaml").string(), "experiments/clusters/dl2-96.yaml");
  const Experiment a = load_experiment("dl2-96", src.string());
  const Experiment b = load_experiment("dl2-96", (dir_ / "experiments").string());
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.description, b.description);
  EXPECT_EQ(a.policies, b.policies);
  EXPECT_EQ(a.seeds, b.seeds);
  EXPECT_EQ(a.round_s, b.round_s);
  EXPECT_EQ(a.measure_noise, b.measure_noise);
  EXPECT_EQ(a.workload.num_jobs, b.workload.num_jobs);
  EXPECT_EQ(a.workload.user_workers_max, b.workload.user_workers_max);
  expect_same_servers(ClusterSpec::parse(a.cluster), ClusterSpec::parse(b.cluster));
}

}  // namespace
}  // namespace dmlkit::cluster
