// Cluster specs: shorthand, YAML/JSON files, the Alibaba node list, and every bad value.
#include "cluster/model/cluster_spec.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "core/error.h"

namespace dmlkit::cluster {
namespace {

namespace fs = std::filesystem;

class ClusterSpecTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("dmlkit_cluster_spec_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) +
            "_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  // Parses `text` written to `name`, expecting an Error at line/field.
  void expect_error(const std::string& name, const std::string& text, long line, const std::string& field) {
    const std::string path = write(name, text);
    try {
      ClusterSpec::parse(path);
      ADD_FAILURE() << "no error for:\n" << text;
    } catch (const Error& e) {
      EXPECT_EQ(e.file(), path);
      EXPECT_EQ(e.line(), line) << e.what();
      EXPECT_EQ(e.field(), field) << e.what();
    }
  }
  fs::path dir_;
};

TEST(ClusterSpec, Homogeneous) {
  ClusterSpec c = ClusterSpec::homogeneous(16, 4);
  EXPECT_EQ(c.num_servers(), 16);
  EXPECT_EQ(c.total_gpus(), 64);
  EXPECT_EQ(c.max_gpus_per_server(), 4);
  EXPECT_DOUBLE_EQ(c.servers[3].cpus, 4 * kDefaultCpusPerGpu);
  EXPECT_DOUBLE_EQ(c.servers[3].mem_gb, 4 * kDefaultMemGbPerGpu);
  EXPECT_DOUBLE_EQ(c.servers[3].net_gbps, kDefaultNetGbps);
  EXPECT_DOUBLE_EQ(c.total_cpus(), 16 * 4 * kDefaultCpusPerGpu);
  EXPECT_EQ(c.servers[3].id, 3);
}

TEST(ClusterSpec, Shorthand) {
  ClusterSpec c = ClusterSpec::parse("16x4");
  EXPECT_EQ(c.name, "16x4");
  EXPECT_EQ(c.total_gpus(), 64);
  ClusterSpec v = ClusterSpec::parse("2x8:V100");
  EXPECT_EQ(v.num_servers(), 2);
  EXPECT_EQ(v.servers[1].gpus, 8);
  EXPECT_EQ(v.servers[1].gpu_type, "V100");
  for (const char* bad : {"0x4", "4x0", "16x4:", "", "16x", "x4", "sixteen-by-four", "99999999x4"})
    EXPECT_THROW(ClusterSpec::parse(bad), Error) << bad;
}

TEST_F(ClusterSpecTest, YamlFile) {
  const std::string path =
      write("c.yaml",
            "name: mixed\n"
            "servers:\n"
            "  - {count: 2, gpus: 4, gpu_type: V100, cpus: 32, mem_gb: 256, net_gbps: 100, name: rack-a}\n"
            "  - count: 1\n"
            "    gpus: 8\n"
            "  - {gpus: 0, cpus: 64, mem_gb: 512}\n");
  ClusterSpec c = ClusterSpec::parse(path);
  EXPECT_EQ(c.name, "mixed");
  ASSERT_EQ(c.num_servers(), 4);
  EXPECT_EQ(c.total_gpus(), 16);
  EXPECT_EQ(c.servers[0].name, "rack-a-0");
  EXPECT_EQ(c.servers[1].name, "rack-a-1");
  EXPECT_EQ(c.servers[1].gpu_type, "V100");
  EXPECT_DOUBLE_EQ(c.servers[1].net_gbps, 100);
  EXPECT_EQ(c.servers[2].gpus, 8);
  EXPECT_DOUBLE_EQ(c.servers[2].cpus, 8 * kDefaultCpusPerGpu);  // default per GPU
  EXPECT_EQ(c.servers[3].gpus, 0);                              // CPU-only servers are kept
  EXPECT_DOUBLE_EQ(c.servers[3].cpus, 64);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(c.servers[i].id, i);
}

TEST_F(ClusterSpecTest, JsonFile) {
  const std::string path = write("c.json", R"({"servers": [{"count": 3, "gpus": 2, "gpu_type": "T4"}]})");
  ClusterSpec c = ClusterSpec::parse(path);
  EXPECT_EQ(c.name, "c");
  EXPECT_EQ(c.total_gpus(), 6);
  EXPECT_EQ(c.servers[2].gpu_type, "T4");
}

TEST_F(ClusterSpecTest, ShippedExample) {
  ClusterSpec c = ClusterSpec::parse(std::string(DMLKIT_SOURCE_DIR) + "/experiments/cluster-16x4.yaml");
  EXPECT_EQ(c.num_servers(), 16);
  EXPECT_EQ(c.total_gpus(), 64);
}

TEST_F(ClusterSpecTest, YamlErrorsNameLineAndField) {
  expect_error("a.yaml", "servers:\n  - {count: 2, gpus: -1}\n", 2, "gpus");
  expect_error("b.yaml", "servers:\n  - count: 2\n    gpus: four\n", 3, "gpus");
  expect_error("c.yaml", "servers:\n  - gpus: 4\n    cpus: many\n", 3, "cpus");
  expect_error("d.yaml", "servers:\n  - gpus: 4\n    mem_gb: -5\n", 3, "mem_gb");
  expect_error("e.yaml", "servers:\n  - gpus: 4\n    net_gbps: 0\n", 3, "net_gbps");
  expect_error("f.yaml", "servers:\n  - gpus: 4\n    gpu: 8\n", 3, "gpu");  // unknown field
  expect_error("g.yaml", "servers:\n  - count: 2\n", 2, "gpus");            // missing field
  expect_error("h.yaml", "servers:\n  - {count: 0, gpus: 4}\n", 2, "count");
  expect_error("i.yaml", "servers:\n  - {gpus: 0}\n", 2, "cpus");  // CPU-only server needs cpus
  expect_error("j.yaml", "servers: []\n", 1, "servers");
  expect_error("k.yaml", "name: x\n", 1, "servers");
  expect_error("l.yaml", "nodes:\n  - gpus: 4\n", 1, "nodes");
  expect_error("m.yaml", "servers:\n  - {gpus: 4\n", 3, "");  // YAML syntax error
  expect_error("n.yaml", "servers:\n  - {gpus: 2.5}\n", 2, "gpus");
}

TEST_F(ClusterSpecTest, AlibabaNodeList) {
  ClusterSpec c = ClusterSpec::parse("alibaba-2023");
  EXPECT_EQ(c.name, "alibaba-2023");
  EXPECT_EQ(c.num_servers(), 1213);
  EXPECT_EQ(c.total_gpus(), 6212);
  EXPECT_EQ(c.servers[0].name, "openb-node-0000");
  EXPECT_EQ(c.servers[0].gpu_type, "P100");
  EXPECT_DOUBLE_EQ(c.servers[0].cpus, 64);
  EXPECT_DOUBLE_EQ(c.servers[0].mem_gb, 256);
  EXPECT_EQ(c.max_gpus_per_server(), 8);

  const std::string path = write("nodes.csv",
                                 "sn,cpu_milli,memory_mib,gpu,model\n"
                                 "n0,96000,786432,8,V100M32\n"
                                 "n1,32000,131072,0,\n");
  ClusterSpec small = ClusterSpec::parse(path);
  ASSERT_EQ(small.num_servers(), 2);
  EXPECT_EQ(small.servers[1].gpus, 0);  // CPU-only node kept
  EXPECT_DOUBLE_EQ(small.servers[1].cpus, 32);
  EXPECT_DOUBLE_EQ(small.servers[0].mem_gb, 768);

  expect_error("bad1.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,96000,786432,-2,V100\n", 2, "gpu");
  expect_error("bad2.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,96000,786432,8,V100\nn1,x,1,1,T4\n", 3, "cpu_milli");
  expect_error("bad3.csv", "sn,cpu_milli,gpu,model\nn0,96000,8,V100\n", 1, "memory_mib");
  expect_error("bad4.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,96000,786432,8\n", 2, "");
  expect_error("bad5.csv", "sn,cpu_milli,memory_mib,gpu,model\n", 0, "");
}

TEST(ClusterSpec, MissingFileIsAnError) {
  try {
    ClusterSpec::parse("/no/such/cluster.yaml");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), "/no/such/cluster.yaml");
  }
}

}  // namespace
}  // namespace dmlkit::cluster
