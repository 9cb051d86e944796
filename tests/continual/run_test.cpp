// The run entries of `dmlkit continual` (continual/run.h): check() refuses bad fields before any
// work, run() returns the Results, tables and report in memory.
#include "continual/run.h"

#include <gtest/gtest.h>

#include <functional>

#include "core/error.h"

namespace dmlkit::continual {
namespace {

void expect_refused(const std::function<void()>& f, const std::string& word) {
  try {
    f();
    ADD_FAILURE() << "no error for " << word;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(word), std::string::npos) << e.what();
  }
}

AngleSweepSpec tiny_sweep() {
  AngleSweepSpec s;
  s.angles = "30,160";
  s.variants = {"cl"};
  s.backend = "eigen";
  s.config.epochs = 50;
  s.config.data.test_per_task = 50;
  s.config.seeds = 1;
  return s;
}

TEST(ContinualRunSpec, CheckRefusesBadFields) {
  EXPECT_NO_THROW(check(tiny_sweep()));
  AngleSweepSpec s = tiny_sweep();
  s.variants = {"nope"};
  expect_refused([&] { check(s); }, "nope");
  s = tiny_sweep();
  s.backend = "nope";
  expect_refused([&] { check(s); }, "nope");
  s = tiny_sweep();
  s.fisher = "nope";
  expect_refused([&] { check(s); }, "nope");
  s = tiny_sweep();
  s.config.seeds = 0;
  EXPECT_THROW(check(s), Error);
  ReplaySpec r;
  r.scenario = "nope";
  expect_refused([&] { check(r); }, "nope");
  r = ReplaySpec{};
  r.task_classes = {"4-5", "x"};
  expect_refused([&] { check(r); }, "'x'");
  SignAngleSpec p;
  p.pairs = {"1"};
  expect_refused([&] { check(p); }, "'1'");
}

TEST(ContinualRunSpec, AngleSweepRunsInMemory) {
  size_t last = 0, total = 0;
  const RunOutput o = run(tiny_sweep(), [&](size_t done, size_t all) { last = done, total = all; });
  EXPECT_EQ(last, total);
  EXPECT_EQ(o.results.command(), "continual angle-sweep");
  EXPECT_EQ(o.results.records().size(), 2u);  // one variant x two angles x one seed
  ASSERT_EQ(o.tables.size(), 1u);
  EXPECT_EQ(o.tables[0].first, "critical_angles.csv");
  EXPECT_NE(o.summary_text("table").find("task-1 test error after task 1"), std::string::npos);
  EXPECT_EQ(o.summary_text("json"), o.results.json_text());
}

}  // namespace
}  // namespace dmlkit::continual
