// Results (the one results writer): the envelope, records, the summary over seeds per
// (name, params) with core's summarize(), and records.csv/summary.csv derived from the same
// records. And percentile(): the one percentile definition (linear interpolation, numpy's default).
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "core/parallel_for.h"
#include "core/results.h"
#include "core/stats.h"
#include "core/table.h"

using dmlkit::Results;
using nlohmann::ordered_json;

namespace {

Results two_policies() {
  Results r("cluster compare", "policy");
  r.inputs()["workload"] = "w";
  for (uint64_t seed : {1, 2, 3}) {
    auto& a = r.add("fifo", seed);
    a.metrics["avg_jct_s"] = 10.0 * static_cast<double>(seed);
    a.metrics["finished"] = 4;
    a.metrics["timed_out"] = seed == 3;
    auto& b = r.add("srtf", seed);
    b.metrics["avg_jct_s"] = 5.0;
    b.metrics["speedup"] = nullptr;
  }
  return r;
}

}  // namespace

TEST(Results, EnvelopeRecordsAndSummary) {
  const auto j = two_policies().to_json();
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"schema_version", "tool", "version", "command", "record_kind", "inputs",
                                            "records", "summary"}));
  EXPECT_EQ(j["schema_version"], dmlkit::kResultsSchemaVersion);
  EXPECT_EQ(j["records"].size(), 6u);
  EXPECT_EQ(j["records"][1]["name"], "srtf");
  EXPECT_EQ(j["records"][1]["seed"], 1);
  ASSERT_EQ(j["summary"].size(), 2u);
  const auto& fifo = j["summary"][0];
  EXPECT_EQ(fifo["name"], "fifo");
  EXPECT_EQ(fifo["runs"], 3);
  EXPECT_DOUBLE_EQ(fifo["metrics"]["avg_jct_s"]["mean"].get<double>(), 20.0);
  EXPECT_DOUBLE_EQ(fifo["metrics"]["avg_jct_s"]["sd"].get<double>(), 10.0);  // sample sd
  EXPECT_DOUBLE_EQ(fifo["metrics"]["avg_jct_s"]["min"].get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(fifo["metrics"]["avg_jct_s"]["max"].get<double>(), 30.0);
  EXPECT_NEAR(fifo["metrics"]["timed_out"]["mean"].get<double>(), 1.0 / 3, 1e-15);  // bool: share of runs
  // A metric that is null everywhere has no summary.
  EXPECT_FALSE(j["summary"][1]["metrics"].contains("speedup"));
}

TEST(Results, GroupsByNameAndParams) {
  Results r("continual angle-sweep", "variant");
  for (double angle : {0.0, 90.0})
    for (uint64_t s = 0; s < 2; ++s) {
      auto& x = r.add("cl", s);
      x.params["angle_deg"] = angle;
      x.metrics["task1_error"] = angle / 100 + static_cast<double>(s);
    }
  const auto g = r.summary();
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[1].params["angle_deg"], 90.0);
  EXPECT_EQ(g[1].runs, 2u);
  EXPECT_DOUBLE_EQ(g[1].find("task1_error")->stats.mean, 0.9 + 0.5);
  const dmlkit::TextTable t = r.summary_table();
  EXPECT_EQ(t.header(), (std::vector<std::string>{"variant", "angle_deg", "runs", "task1_error_mean", "task1_error_sd",
                                                  "task1_error_min", "task1_error_max"}));
}

TEST(Results, CsvFilesAreTheRecordsAndTheSummary) {
  const Results r = two_policies();
  const dmlkit::TextTable rec = r.records_table();
  EXPECT_EQ(rec.header(),
            (std::vector<std::string>{"policy", "seed", "avg_jct_s", "finished", "timed_out", "speedup"}));
  ASSERT_EQ(rec.rows().size(), 6u);
  // Numbers as in results.json, null as an empty cell.
  EXPECT_EQ(rec.rows()[0], (std::vector<std::string>{"fifo", "1", "10.0", "4", "false", ""}));
  EXPECT_EQ(rec.rows()[1], (std::vector<std::string>{"srtf", "1", "5.0", "", "", ""}));
  const auto j = r.to_json();
  const dmlkit::TextTable sum = r.summary_table();
  ASSERT_EQ(sum.rows().size(), 2u);
  EXPECT_EQ(sum.rows()[0][0], "fifo");
  EXPECT_EQ(sum.rows()[0][2], j["summary"][0]["metrics"]["avg_jct_s"]["mean"].dump());
}

// numpy.percentile(x, q) (method "linear") for x = 1..10 and for an even count.
TEST(Percentile, LinearInterpolationAsNumpy) {
  std::vector<double> x;
  for (int i = 10; i >= 1; --i) x.push_back(i);  // unsorted on purpose
  EXPECT_DOUBLE_EQ(dmlkit::percentile(x, 50), 5.5);
  EXPECT_NEAR(dmlkit::percentile(x, 99), 9.91, 1e-12);
  EXPECT_NEAR(dmlkit::percentile(x, 95), 9.55, 1e-12);
  EXPECT_DOUBLE_EQ(dmlkit::percentile(x, 0), 1);
  EXPECT_DOUBLE_EQ(dmlkit::percentile(x, 100), 10);
  EXPECT_DOUBLE_EQ(dmlkit::percentile({1, 2, 3, 4}, 50), 2.5);
  EXPECT_DOUBLE_EQ(dmlkit::percentile({7}, 99), 7);
  EXPECT_DOUBLE_EQ(dmlkit::percentile({}, 99), 0);
}

// A failing index in a parallel run raises, in the caller, the error a serial loop would have:
// the smallest failing index's (it used to terminate the process from a worker thread).
TEST(ParallelFor, RethrowsTheSmallestFailingIndex) {
  for (int threads : {1, 2, 4}) {
    std::vector<int> ran(50, 0);
    try {
      dmlkit::parallel_for(ran.size(), threads, [&](size_t i) {
        ran[i] = 1;
        if (i == 7 || i == 9) throw std::runtime_error("index " + std::to_string(i));
      });
      ADD_FAILURE() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "index 7") << threads;
    }
    for (size_t i = 0; i < 7; ++i) EXPECT_EQ(ran[i], 1) << i;
  }
}
