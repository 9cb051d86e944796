// Workload readers: each format, bundled names, stable sorting, Philly filters, every bad input
// (checked for file, line and field), and the synthetic generator.
#include "cluster/workload/workload.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "core/error.h"

namespace dmlkit::cluster {
namespace {

namespace fs = std::filesystem;

const std::string kWorkloadData = std::string(DMLKIT_SOURCE_DIR) + "/data";

WorkloadOptions opts() {
  WorkloadOptions o;
  o.data_dir = kWorkloadData;
  return o;
}

class WorkloadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("dmlkit_workload_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  void expect_error(const std::string& text, long line, const std::string& field, WorkloadOptions o = opts()) {
    std::string name = "w";
    name += std::to_string(counter_++);
    name += ".csv";
    const std::string path = write(name, text);
    try {
      load_workload(path, o);
      ADD_FAILURE() << "no error for:\n" << text;
    } catch (const Error& e) {
      EXPECT_EQ(e.file(), path) << e.what();
      EXPECT_EQ(e.line(), line) << e.what();
      EXPECT_EQ(e.field(), field) << e.what();
    }
  }
  fs::path dir_;
  int counter_ = 0;
};

void expect_sorted_dense(const Workload& w) {
  for (size_t i = 0; i < w.jobs.size(); ++i) {
    EXPECT_EQ(w.jobs[i].id, static_cast<int>(i));
    if (i > 0) {
      EXPECT_LE(w.jobs[i - 1].arrival_s, w.jobs[i].arrival_s);
    }
  }
}

TEST(Workload, ResolvesBundledNames) {
  EXPECT_EQ(resolve_workload_path("pollux-6", kWorkloadData), kWorkloadData + "/workloads/workloads/workload-6.csv");
  EXPECT_EQ(resolve_workload_path("pollux-0.5-3", kWorkloadData),
            kWorkloadData + "/workloads/workloads-0.5/workload-3.csv");
  EXPECT_EQ(resolve_workload_path("philly", kWorkloadData), kWorkloadData + "/traces/philly.csv");
  const std::string direct = kWorkloadData + "/workloads/workloads/workload-1.csv";
  EXPECT_EQ(resolve_workload_path(direct, kWorkloadData), direct);
  for (const char* bad : {"pollux-99", "pollux", "no-such-file.csv"}) {
    try {
      resolve_workload_path(bad, kWorkloadData);
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.file(), bad);
      EXPECT_NE(std::string(e.what()).find("pollux-1..8"), std::string::npos) << e.what();
    }
  }
}

TEST(Workload, PolluxWorkload) {
  Workload w = load_workload("pollux-6", opts());
  EXPECT_EQ(w.name, "pollux-6");
  ASSERT_EQ(w.jobs.size(), 160u);
  expect_sorted_dense(w);
  EXPECT_EQ(w.jobs[0].name, "cifar10-0");
  EXPECT_DOUBLE_EQ(w.jobs[0].arrival_s, 53);
  EXPECT_EQ(w.jobs[0].application, "cifar10");
  EXPECT_EQ(w.jobs[0].num_gpus, 6);
  EXPECT_EQ(w.jobs[0].batch_size, 2048);
  EXPECT_EQ(w.jobs[0].kind, WorkKind::Profile);
  EXPECT_EQ(w.jobs[0].source_line, 2);
  EXPECT_DOUBLE_EQ(w.jobs.back().arrival_s, 28189);
  std::map<std::string, int> mix;
  for (const auto& j : w.jobs) ++mix[j.application];
  EXPECT_EQ(mix["cifar10"], 67);
  EXPECT_EQ(mix["ncf"], 54);
  EXPECT_EQ(mix["deepspeech2"], 16);
  EXPECT_EQ(mix["bert"], 15);
  EXPECT_EQ(mix["yolov3"], 5);
  EXPECT_EQ(mix["imagenet"], 3);
  EXPECT_EQ(load_workload("pollux-0.5-6", opts()).jobs.size(), 80u);
}

TEST(Workload, PerApplicationDemandTable) {
  Workload w = load_workload("pollux-6", opts());
  for (const auto& j : w.jobs) {
    // Within a default server's share per GPU: GPUs stay the binding resource on default servers.
    EXPECT_LE(j.cpus_per_gpu, kDefaultCpusPerGpu) << j.application;
    EXPECT_LE(j.mem_gb_per_gpu, kDefaultMemGbPerGpu) << j.application;
    if (j.application == "imagenet") {
      EXPECT_DOUBLE_EQ(j.cpus_per_gpu, 8.0);
      EXPECT_DOUBLE_EQ(j.mem_gb_per_gpu, 48.0);
    }
    if (j.application == "cifar10") {
      EXPECT_DOUBLE_EQ(j.cpus_per_gpu, 4.0);
      EXPECT_DOUBLE_EQ(j.mem_gb_per_gpu, 8.0);
    }
  }
}

TEST(Workload, WholePhillyTrace) {
  Workload w = load_workload("philly", opts());
  EXPECT_EQ(w.name, "philly");
  ASSERT_EQ(w.jobs.size(), 82247u);
  expect_sorted_dense(w);
  EXPECT_DOUBLE_EQ(w.jobs[0].arrival_s, 0);
  EXPECT_EQ(w.jobs[0].kind, WorkKind::FixedDuration);
  // First submission 2017-09-04 10:30:41 (8 GPUs, 2240194 s), last 2017-12-22 08:02:11.
  EXPECT_EQ(w.jobs[0].num_gpus, 8);
  EXPECT_DOUBLE_EQ(w.jobs[0].duration_s, 2240194);
  const double span_s = 109 * 86400.0 - (10 * 3600 + 30 * 60 + 41) + (8 * 3600 + 2 * 60 + 11);
  EXPECT_DOUBLE_EQ(w.jobs.back().arrival_s, span_s);
  int single = 0;
  for (const auto& j : w.jobs) single += j.num_gpus == 1;
  EXPECT_EQ(single, 76627);
}

TEST_F(WorkloadTest, PhillyTimestampsAndStableSort) {
  const std::string path = write("p.csv",
                                 "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                 "2016-03-01 00:00:00,10,1,10,a\n"    // line 2
                                 "2016-02-28 23:59:59,20,2,40,b\n"    // line 3: first submission
                                 "2016-02-29 12:00:00,30,1,30,a\n"    // line 4 (leap day)
                                 "2016-03-01 00:00:00,40,4,160,b\n"   // line 5: same time as line 2
                                 "2016-02-29 12:00:00,50,1,50,a\n");  // line 6: same as line 4
  Workload w = load_workload(path, opts());
  ASSERT_EQ(w.jobs.size(), 5u);
  expect_sorted_dense(w);
  std::vector<long> lines;
  for (const auto& j : w.jobs) lines.push_back(j.source_line);
  EXPECT_EQ(lines, (std::vector<long>{3, 4, 6, 2, 5}));  // equal times keep file order
  EXPECT_DOUBLE_EQ(w.jobs[0].arrival_s, 0);
  EXPECT_DOUBLE_EQ(w.jobs[1].arrival_s, 1 + 12 * 3600);
  EXPECT_DOUBLE_EQ(w.jobs[3].arrival_s, 1 + 86400);  // Feb 29 exists in 2016
  EXPECT_EQ(w.jobs[4].num_gpus, 4);
  EXPECT_DOUBLE_EQ(w.jobs[4].duration_s, 40);
  EXPECT_EQ(w.jobs[0].name, "p-1");

  const std::string year = write("y.csv",
                                 "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                 "2018-01-01 00:00:00,1,1,1,a\n"
                                 "2017-12-31 23:59:59,1,1,1,a\n"
                                 "2017-03-01 00:00:00,1,1,1,a\n"
                                 "2017-02-28 00:00:00,1,1,1,a\n");
  Workload y = load_workload(year, opts());
  EXPECT_DOUBLE_EQ(y.jobs[1].arrival_s, 86400);                    // 2017 is not a leap year
  EXPECT_DOUBLE_EQ(y.jobs[3].arrival_s - y.jobs[2].arrival_s, 1);  // across the new year
  EXPECT_DOUBLE_EQ(y.jobs[3].arrival_s, 307 * 86400.0);            // Feb 28 2017 -> Jan 1 2018
}

TEST_F(WorkloadTest, PhillyWindowAndVirtualClusters) {
  const std::string path = write("p.csv",
                                 "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                 "2017-10-01 00:00:00,10,1,10,a\n"
                                 "2017-10-01 00:10:00,10,1,10,b\n"
                                 "2017-10-01 00:20:00,10,1,10,a\n"
                                 "2017-10-01 00:30:00,10,1,10,b\n"
                                 "2017-10-01 00:40:00,10,1,10,a\n");
  WorkloadOptions o = opts();
  o.window_start_s = 600;
  o.window_end_s = 1800;  // keeps 00:10 and 00:20
  Workload w = load_workload(path, o);
  ASSERT_EQ(w.jobs.size(), 2u);
  EXPECT_DOUBLE_EQ(w.jobs[0].arrival_s, 0);  // relative to the first kept job
  EXPECT_DOUBLE_EQ(w.jobs[1].arrival_s, 600);
  EXPECT_EQ(w.jobs[0].source_line, 3);

  WorkloadOptions vc = opts();
  vc.virtual_clusters = {"b"};
  Workload b = load_workload(path, vc);
  ASSERT_EQ(b.jobs.size(), 2u);
  EXPECT_EQ(b.jobs[0].source_line, 3);
  EXPECT_DOUBLE_EQ(b.jobs[1].arrival_s, 1200);

  // Window counted from the first submission of the filtered trace (00:10 for cluster b).
  vc.window_start_s = 600;
  Workload b2 = load_workload(path, vc);
  ASSERT_EQ(b2.jobs.size(), 1u);
  EXPECT_EQ(b2.jobs[0].source_line, 5);
  EXPECT_DOUBLE_EQ(b2.jobs[0].arrival_s, 0);

  // Empty after filtering is an error that names the file.
  WorkloadOptions none = opts();
  none.virtual_clusters = {"zzz"};
  try {
    load_workload(path, none);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_NE(std::string(e.what()).find("no jobs"), std::string::npos);
  }
}

TEST_F(WorkloadTest, DmlkitTraceFormat) {
  const std::string path = write("t.csv",
                                 "name,time,num_gpus,duration,application,cpus_per_gpu\n"
                                 "b,5,2,100,imagenet,\n"
                                 "a,5,1,50,,3\n"
                                 "c,0,8,10,other,\n");
  Workload w = load_workload(path, opts());
  EXPECT_EQ(w.name, "t");
  ASSERT_EQ(w.jobs.size(), 3u);
  EXPECT_EQ(w.jobs[0].name, "c");
  EXPECT_EQ(w.jobs[1].name, "b");  // equal times: file order
  EXPECT_EQ(w.jobs[2].name, "a");
  EXPECT_EQ(w.jobs[1].kind, WorkKind::FixedDuration);
  EXPECT_DOUBLE_EQ(w.jobs[1].duration_s, 100);
  EXPECT_EQ(w.jobs[1].application, "imagenet");
  EXPECT_DOUBLE_EQ(w.jobs[1].cpus_per_gpu, 8.0);     // table default for imagenet
  EXPECT_DOUBLE_EQ(w.jobs[2].cpus_per_gpu, 3.0);     // per-job override
  EXPECT_DOUBLE_EQ(w.jobs[2].mem_gb_per_gpu, 16.0);  // trace default
  EXPECT_DOUBLE_EQ(w.jobs[0].cpus_per_gpu, 4.0);     // unknown application: trace default

  const std::string minimal = write("m.csv", "name,time,num_gpus,duration\nx,1.5,1,2\n");
  Workload m = load_workload(minimal, opts());
  ASSERT_EQ(m.jobs.size(), 1u);
  EXPECT_DOUBLE_EQ(m.jobs[0].arrival_s, 1.5);
  EXPECT_EQ(m.jobs[0].application, "");
}

TEST_F(WorkloadTest, BadInputNamesFileLineAndField) {
  const std::string pollux = "name,time,application,num_replicas,batch_size\n";
  expect_error(pollux + "a,1,cifar10,2,128\nb,2,cifar10,2\n", 3, "");                    // malformed line
  expect_error("name,time,application,num_replicas\na,1,cifar10,2\n", 1, "batch_size");  // missing column
  expect_error(pollux + "a,1,cifar10,2,128\nb,-4,cifar10,2,128\n", 3, "time");           // negative time
  expect_error(pollux + "a,soon,cifar10,2,128\n", 2, "time");                            // non-numeric time
  expect_error(pollux + "a,1,alexnet,2,128\n", 2, "application");                        // unknown app
  expect_error(pollux + "a,1,cifar10,0,128\n", 2, "num_replicas");
  expect_error(pollux + "a,1,cifar10,1.5,128\n", 2, "num_replicas");
  expect_error(pollux + "a,1,cifar10,2,0\n", 2, "batch_size");
  expect_error(pollux + ",1,cifar10,2,128\n", 2, "name");
  expect_error(pollux, 0, "");  // empty workload

  const std::string philly = "timestamp,duration,num_gpus,gpu_time,cluster\n";
  expect_error(philly + "2017-10-01 00:00:00,-5,1,1,a\n", 2, "duration");    // negative duration
  expect_error(philly + "2017-10-01 00:00:00,long,1,1,a\n", 2, "duration");  // non-numeric
  expect_error(philly + "2017-10-01 00:00:00,5,0,1,a\n", 2, "num_gpus");
  expect_error(philly + "2017-10-01 00:00:00,5,1,1,a\n2017-13-01 00:00:00,5,1,1,a\n", 3, "timestamp");
  expect_error(philly + "2017-02-29 00:00:00,5,1,1,a\n", 2, "timestamp");  // not a leap year
  expect_error(philly + "yesterday,5,1,1,a\n", 2, "timestamp");
  expect_error("timestamp,num_gpus,gpu_time,cluster\n2017-10-01 00:00:00,1,1,a\n", 1, "duration");

  const std::string trace = "name,time,num_gpus,duration\n";
  expect_error(trace + "a,0,1,NaN\n", 2, "duration");
  expect_error(trace + "a,0,1,-1\n", 2, "duration");
  expect_error(trace + "a,0,x,1\n", 2, "num_gpus");
  expect_error("name,time,duration\na,0,1\n", 1, "num_gpus");
  expect_error("name,time,gpus\na,0,1\n", 1, "");  // unrecognised header
  expect_error("name,time,num_gpus,duration,cpus_per_gpu\na,0,1,1,-2\n", 2, "cpus_per_gpu");
}

TEST_F(WorkloadTest, OversizedJobsRejectedOrDropped) {
  const std::string path = write("o.csv",
                                 "name,time,application,num_replicas,batch_size\n"
                                 "a,1,cifar10,4,128\n"
                                 "b,2,cifar10,16,128\n"
                                 "c,3,cifar10,32,128\n");
  WorkloadOptions o = opts();
  o.cluster_gpus = 8;
  try {
    load_workload(path, o);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.line(), 3);
    EXPECT_EQ(e.field(), "num_replicas");
  }
  o.drop_oversized = true;
  Workload w = load_workload(path, o);
  ASSERT_EQ(w.jobs.size(), 1u);
  EXPECT_EQ(w.jobs[0].name, "a");
  EXPECT_EQ(w.dropped_oversized, 2);

  WorkloadOptions t = opts();
  t.cluster_gpus = 8;
  expect_error("name,time,num_gpus,duration\na,0,2,1\nb,0,9,1\n", 3, "num_gpus", t);
  // Every job oversized and dropped: an empty workload is an error.
  t.drop_oversized = true;
  t.cluster_gpus = 1;
  expect_error("name,time,num_gpus,duration\na,0,2,1\nb,0,9,1\n", 0, "", t);
}

TEST(Workload, MissingFile) {
  try {
    load_workload("/no/such/workload.csv", opts());
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), "/no/such/workload.csv");
  }
}

TEST(Workload, SyntheticIsDeterministic) {
  SyntheticSpec spec;
  spec.num_jobs = 2000;
  Workload a = synthetic_workload(spec, 7), b = synthetic_workload(spec, 7), c = synthetic_workload(spec, 8);
  ASSERT_EQ(a.jobs.size(), 2000u);
  bool differ = false;
  for (size_t i = 0; i < a.jobs.size(); ++i) {
    EXPECT_EQ(a.jobs[i].arrival_s, b.jobs[i].arrival_s);
    EXPECT_EQ(a.jobs[i].num_gpus, b.jobs[i].num_gpus);
    EXPECT_EQ(a.jobs[i].duration_s, b.jobs[i].duration_s);
    differ = differ || a.jobs[i].duration_s != c.jobs[i].duration_s;
  }
  EXPECT_TRUE(differ);
  expect_sorted_dense(a);
  EXPECT_DOUBLE_EQ(a.jobs[0].arrival_s, 0);
  // Statistics of this fixed sample: mean gap ~ 1/rate, median duration ~ the median, mix ~ weights.
  const double mean_gap = a.jobs.back().arrival_s / (a.jobs.size() - 1);
  EXPECT_NEAR(mean_gap, 120.0, 12.0);
  std::vector<double> d;
  std::map<int, int> sizes;
  for (const auto& j : a.jobs) {
    d.push_back(j.duration_s);
    ++sizes[j.num_gpus];
    EXPECT_EQ(j.kind, WorkKind::FixedDuration);
  }
  std::nth_element(d.begin(), d.begin() + d.size() / 2, d.end());
  EXPECT_NEAR(d[d.size() / 2], 1144.0, 150.0);
  EXPECT_NEAR(sizes[1] / 2000.0, 0.7, 0.05);
  EXPECT_NEAR(sizes[8] / 2000.0, 0.05, 0.02);
  EXPECT_EQ(sizes.size(), 4u);

  // Changing the job mix does not move the arrival times (independent streams).
  SyntheticSpec other = spec;
  other.gpu_weights = {0.25, 0.25, 0.25, 0.25};
  Workload e = synthetic_workload(other, 7);
  EXPECT_EQ(e.jobs[100].arrival_s, a.jobs[100].arrival_s);
}

TEST(Workload, SyntheticRejectsBadSpecs) {
  auto bad = [](auto edit, const std::string& field) {
    SyntheticSpec s;
    edit(s);
    try {
      synthetic_workload(s, 1);
      ADD_FAILURE() << field;
    } catch (const Error& e) {
      EXPECT_EQ(e.field(), field);
    }
  };
  bad([](SyntheticSpec& s) { s.num_jobs = 0; }, "num_jobs");
  bad([](SyntheticSpec& s) { s.arrival_rate_per_s = 0; }, "arrival_rate_per_s");
  bad([](SyntheticSpec& s) { s.gpu_weights = {1, 1}; }, "gpu_weights");
  bad([](SyntheticSpec& s) { s.gpu_weights = {0, 0, 0, 0}; }, "gpu_weights");
  bad([](SyntheticSpec& s) { s.gpu_choices = {0, 1, 2, 4}; }, "gpu_choices");
  bad([](SyntheticSpec& s) { s.duration_median_s = -1; }, "duration_median_s");
  bad([](SyntheticSpec& s) { s.duration_sigma = NAN; }, "duration_sigma");
}

}  // namespace
}  // namespace dmlkit::cluster
