// report.json (issue 20, `dmlkit report DIR`): a report's content as data renders the same page
// again, a malformed model names its field, and the footer can show a run's own invocation; and
// rounded_records_table (core/results_table.h) shows records with one precision per column.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/html_report.h"
#include "core/results.h"
#include "core/results_table.h"
#include "core/table.h"

namespace dmlkit {
namespace {

HtmlReport sample() {
  HtmlReport rep("A <title>");
  rep.add_heading("Section", 3);
  rep.add_paragraph("Text & more");
  rep.add_facts({{"Cluster", "16x4"}, {"Seeds", "1, 2"}});
  TextTable t({"policy", "avg_jct_s"});
  t.add_row({"fifo", "12.5"});
  rep.add_table(t, "caption");
  rep.add_table({"a", "b"}, {{"1"}, {"x", "y"}});
  LineChart c{"JCT", "seed", "JCT (s)", {}, 0.0, {}, 0.0, {}, true, false};
  ChartSeries s{"fifo", {1, 2, 3}, {10, 20, 15}, false, true};
  s.y_low = {9, 19, 14};
  s.y_high = {11, 21, 16};
  c.series.push_back(s);
  ChartSeries step{"busy", {0, 1, 2, 3}, {1, 1, 2, 0}, true};
  c.series.push_back(step);
  rep.add_chart(c);
  GanttChart g{"Timeline", "time (ms)", "resource", {"GPU", "NIC"}, {}, {}, {}};
  // Categories first appear as forward, backward (the legend's order), not sorted.
  g.bars = {{0, 0, 1.5, "forward", "conv1"}, {0, 1.5, 2.0, "backward", ""}, {1, 1.5, 2.25, "push", ""}};
  rep.add_chart(g);
  return rep;
}

TEST(ReportModel, RendersTheSamePageAfterARoundTrip) {
  const HtmlReport rep = sample();
  const nlohmann::json model = rep.to_json();
  EXPECT_EQ(model["schema"], "dmlkit-report");
  EXPECT_EQ(model["blocks"].size(), 7u);
  const HtmlReport again = HtmlReport::from_json(nlohmann::json::parse(model.dump()));
  EXPECT_EQ(again.render(), rep.render());
  EXPECT_EQ(again.to_json(), model);
}

TEST(ReportModel, AMalformedModelNamesTheField) {
  nlohmann::json model = sample().to_json();
  model["blocks"][5]["series"][0].erase("y");
  try {
    (void)HtmlReport::from_json(model);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("blocks[5].series[0].y: missing"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)HtmlReport::from_json(nlohmann::json{{"schema", "other"}}), std::invalid_argument);
  nlohmann::json bad_bar = sample().to_json();
  bad_bar["blocks"][6]["bars"][0] = {7, "forward", 0, 1, ""};  // row 7 of 2
  EXPECT_THROW((void)HtmlReport::from_json(bad_bar), std::invalid_argument);
}

TEST(ReportModel, TheFooterShowsTheGivenInvocation) {
  HtmlReport rep = sample();
  rep.set_invocation({{"argv", {"dmlkit", "x"}}, {"command_line", "dmlkit cluster simulate --seed 7"},
                      {"input_files", nlohmann::json::array()}});
  const std::string page = rep.render();
  EXPECT_NE(page.find("dmlkit cluster simulate --seed 7"), std::string::npos);
  rep.set_invocation(nullptr);  // a results.json without one: no footer
  EXPECT_EQ(rep.render().find("How to regenerate"), std::string::npos);
}

TEST(RoundedRecordsTable, OnePrecisionPerColumnAndNoNegativeZero) {
  Results r("cluster compare --experiment", "policy");
  auto& a = r.add("fifo", 1);
  a.params["load"] = 0.5;
  a.metrics["avg_jct_s"] = 1234.56789;
  a.metrics["gpu_utilization"] = 0.82857142;
  a.metrics["iteration_s"] = 0.0123456;
  a.metrics["finished"] = 30;
  a.metrics["timed_out"] = false;
  auto& b = r.add("drf", 1);
  b.params["load"] = 0.5;
  b.metrics["avg_jct_s"] = 99.04;
  b.metrics["gpu_utilization"] = -1e-9;
  b.metrics["iteration_s"] = 0.5;
  b.metrics["finished"] = 29;
  b.metrics["timed_out"] = true;
  const TextTable t = rounded_records_table(r);
  EXPECT_EQ(t.header(), (std::vector<std::string>{"policy", "seed", "load", "avg_jct_s", "gpu_utilization",
                                                  "iteration_s", "finished", "timed_out"}));
  EXPECT_EQ(t.rows()[0], (std::vector<std::string>{"fifo", "1", "0.5", "1234.6", "0.829", "0.012", "30", "false"}));
  EXPECT_EQ(t.rows()[1], (std::vector<std::string>{"drf", "1", "0.5", "99.0", "0.000", "0.500", "29", "true"}));
  // records.csv keeps every digit.
  EXPECT_NE(r.records_table().to_csv().find("1234.56789"), std::string::npos);
}

}  // namespace
}  // namespace dmlkit
