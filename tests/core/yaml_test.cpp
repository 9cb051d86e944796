// Issue 36 item 11: the one YAML loader (core/yaml.h) refuses a key given twice in any mapping, with
// the file, the line of the second and the key (yaml-cpp alone keeps the first, silently).
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "core/yaml.h"

namespace dmlkit {
namespace {

void expect_duplicate(const std::string& text, long line, const std::string& key, long first_line) {
  try {
    (void)yaml::load(text, "f.yaml");
    FAIL() << "no error for:\n" << text;
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), "f.yaml");
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_EQ(e.field(), key) << e.what();
    EXPECT_NE(std::string(e.what()).find("duplicate key (first on line " + std::to_string(first_line)),
              std::string::npos)
        << e.what();
  }
}

TEST(Yaml, ADuplicateKeyIsRefusedWithFileLineAndKey) {
  expect_duplicate("policy: fifo\nseeds: [1]\npolicy: srtf\n", 3, "policy", 1);
  expect_duplicate("workload:\n  num_jobs: 6\n  slot_s: 60\n  num_jobs: 600\n", 4, "num_jobs", 2);
  expect_duplicate("servers:\n  - {count: 2, gpus: 4, gpus: 8}\n", 2, "gpus", 2);
  expect_duplicate("a: 1\n\"a\": 2\n", 2, "a", 1);
  expect_duplicate("axes:\n  - x: 1\n    y: {p: 1}\n    x: 2\n", 4, "x", 2);
}

TEST(Yaml, SameKeysInDifferentMappingsAndAliasesAreFine) {
  const YAML::Node n = yaml::load(
      "base: &b {gpus: 4, cpus: 8}\nservers:\n  - {count: 1, gpus: 2}\n  - {count: 2, gpus: 4}\n  - *b\n"
      "list: [a, a, a]\nnested: {a: {a: {a: 1}}}\n",
      "f.yaml");
  EXPECT_EQ(n["servers"].size(), 3u);
  EXPECT_EQ(n["servers"][2]["gpus"].as<int>(), 4);
}

}  // namespace
}  // namespace dmlkit
