// HtmlReport: escaping of hostile strings, self-containment (Chart.js inlined, no network
// references), downsampling that keeps endpoints and peaks, and the missing-Chart.js error.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "core/error.h"
#include "core/html_report.h"
#include "core/table.h"

using dmlkit::ChartSeries;
using dmlkit::HtmlReport;
using dmlkit::LineChart;

namespace {

const std::string kScript = "<script>alert(1)</script>";
const std::string kCloser = "</script><script>document.body.dataset.pwned=1</script>";
const std::string kImg = "<img src=x onerror=\"alert('x')\">";

size_t count_of(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t pos = haystack.find(needle); pos != std::string::npos; pos = haystack.find(needle, pos + 1)) ++n;
  return n;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The JSON block the page draws its charts from.
nlohmann::json chart_data(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"dmlkit-chart-data\">";
  const size_t begin = page.find(open);
  EXPECT_NE(begin, std::string::npos);
  const size_t start = begin + open.size();
  const size_t end = page.find("</script>", start);
  EXPECT_NE(end, std::string::npos);
  return nlohmann::json::parse(page.substr(start, end - start));
}

ChartSeries series(std::string label, size_t n, bool step = false) {
  ChartSeries s;
  s.label = std::move(label);
  s.step = step;
  for (size_t i = 0; i < n; ++i) {
    s.x.push_back(static_cast<double>(i));
    s.y.push_back(std::sin(static_cast<double>(i) * 0.01));
  }
  return s;
}

HtmlReport hostile_report() {
  HtmlReport r("Report " + kScript);
  r.add_heading("Heading " + kCloser);
  r.add_paragraph("Paragraph " + kImg + " & more");
  r.add_facts({{"Workload " + kScript, "file " + kImg}});
  r.add_table({"Policy", "JCT"}, {{kScript, "12.5"}, {kCloser, "3"}}, "Caption " + kImg);
  LineChart c;
  c.title = "Chart " + kScript;
  c.x_title = "x " + kCloser;
  c.y_title = "y <!-- comment";
  c.series.push_back(series(kCloser, 5));
  c.series.push_back(series(kScript, 5));
  r.add_chart(c);
  return r;
}

}  // namespace

TEST(HtmlEscape, EscapesMarkupCharacters) {
  EXPECT_EQ(dmlkit::html_escape(kScript), "&lt;script&gt;alert(1)&lt;/script&gt;");
  EXPECT_EQ(dmlkit::html_escape("a&b \"c\" 'd'"), "a&amp;b &quot;c&quot; &#39;d&#39;");
  EXPECT_EQ(dmlkit::html_escape("plain text"), "plain text");
}

TEST(JsonForScript, NoStringCanCloseTheScriptElement) {
  nlohmann::json j = {{"label", kCloser}, {"other", "<!-- x"}};
  const std::string text = dmlkit::json_for_script(j);
  EXPECT_EQ(text.find('<'), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(text), j);  // the strings survive unchanged
}

TEST(JsonForScript, ReplacesInvalidUtf8InsteadOfThrowing) {
  nlohmann::json j = {{"label", std::string("bad \xff byte")}};
  const std::string text = dmlkit::json_for_script(j);
  EXPECT_NE(text.find("bad "), std::string::npos);
  EXPECT_NO_THROW(nlohmann::json::parse(text));
}

TEST(HtmlReport, HostileStringsAreEscapedEverywhere) {
  const std::string page = hostile_report().render();
  EXPECT_EQ(page.find(kScript), std::string::npos);
  EXPECT_EQ(page.find(kImg), std::string::npos);
  EXPECT_EQ(page.find("dataset.pwned=1</script>"), std::string::npos);
  EXPECT_EQ(page.find("<!-- comment"), std::string::npos);
  // Exactly the four script elements of the page: error capture, Chart.js, data, drawing.
  EXPECT_EQ(count_of(page, "<script"), 4u);
  EXPECT_EQ(count_of(page, "</script>"), 4u);
  // Escaped text is present where it belongs.
  EXPECT_NE(page.find("<title>Report &lt;script&gt;alert(1)&lt;/script&gt;</title>"), std::string::npos);
  EXPECT_NE(page.find("<td>&lt;script&gt;alert(1)&lt;/script&gt;</td>"), std::string::npos);
  EXPECT_NE(page.find("aria-label=\"Chart &lt;script&gt;"), std::string::npos);
  // The data block carries the labels unchanged once parsed.
  const auto data = chart_data(page);
  ASSERT_EQ(data.size(), 1u);
  EXPECT_EQ(data[0]["series"][0]["label"], kCloser);
  EXPECT_EQ(data[0]["series"][1]["label"], kScript);
  EXPECT_EQ(data[0]["x_title"], "x " + kCloser);
  EXPECT_EQ(data[0]["y_title"], "y <!-- comment");
}

TEST(HtmlReport, IsSelfContainedWithChartJsInlined) {
  const std::string page = hostile_report().render();
  const std::string chartjs = read_all(dmlkit::default_chartjs_path());
  ASSERT_FALSE(chartjs.empty()) << "Chart.js bundle missing at " << dmlkit::default_chartjs_path();
  EXPECT_NE(page.find(chartjs), std::string::npos);
  // No element loads anything: no src/href to a URL, no external stylesheet, no CSS url().
  std::smatch m;
  EXPECT_FALSE(std::regex_search(page, m, std::regex(R"((src|href)\s*=\s*["']?\s*(https?:|//))", std::regex::icase)))
      << m.str();
  EXPECT_FALSE(std::regex_search(page, m, std::regex(R"(<script[^>]*\ssrc\s*=)", std::regex::icase))) << m.str();
  EXPECT_FALSE(std::regex_search(page, m, std::regex(R"(<link[^>]*stylesheet)", std::regex::icase))) << m.str();
  // Stylesheets fetch nothing either (the Chart.js code itself is allowed to say "URL(").
  const size_t style_begin = page.find("<style>");
  const size_t style_end = page.find("</style>");
  ASSERT_NE(style_begin, std::string::npos);
  ASSERT_NE(style_end, std::string::npos);
  const std::string style = page.substr(style_begin, style_end - style_begin);
  EXPECT_FALSE(std::regex_search(style, m, std::regex(R"(@import|url\()", std::regex::icase))) << m.str();
  EXPECT_EQ(count_of(page, "<style"), 1u);
  EXPECT_EQ(page.find(" style="), std::string::npos);
  // The page forbids every fetch.
  EXPECT_NE(page.find("default-src 'none'"), std::string::npos);
}

TEST(HtmlReport, MissingChartJsIsAnError) {
  const std::string path = "/nonexistent/dir/chart.min.js";
  try {
    hostile_report().render(path);
    FAIL() << "expected dmlkit::Error";
  } catch (const dmlkit::Error& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.line(), 0);
    EXPECT_NE(std::string(e.what()).find("Chart.js not found: install libjs-chart.js"), std::string::npos);
  }
  // A page without charts does not need the bundle.
  HtmlReport plain("No charts");
  plain.add_paragraph("text");
  const std::string page = plain.render(path);
  EXPECT_NE(page.find("<p>text</p>"), std::string::npos);
  EXPECT_EQ(page.find("Chart.js v"), std::string::npos);
}

TEST(HtmlReport, TablesPadShortRowsAndAlignNumbers) {
  HtmlReport r("t");
  dmlkit::TextTable t({"name", "value", "share"});
  t.add_row({"fifo", "1.5", "50%"});
  t.add_row({"short"});
  r.add_table(t);
  const std::string page = r.render();
  EXPECT_NE(page.find("<tr><td>fifo</td><td class=\"num\">1.5</td><td class=\"num\">50%</td></tr>"), std::string::npos);
  EXPECT_NE(page.find("<tr><td>short</td><td></td><td></td></tr>"), std::string::npos);
}

TEST(HtmlReport, RenderIsDeterministic) { EXPECT_EQ(hostile_report().render(), hostile_report().render()); }

TEST(HtmlReport, RejectsSeriesWithMismatchedSizes) {
  HtmlReport r("t");
  LineChart c;
  ChartSeries s;
  s.x = {1, 2, 3};
  s.y = {1, 2};
  c.series.push_back(s);
  EXPECT_THROW(r.add_chart(c), std::invalid_argument);
  EXPECT_EQ(r.chart_count(), 0u);
}

TEST(Downsample, KeepsEndpointsAndOrderAndCount) {
  const ChartSeries s = series("s", 10000);
  const auto keep = dmlkit::downsample_indices(s.x, s.y, 2000);
  ASSERT_EQ(keep.size(), 2000u);
  EXPECT_EQ(keep.front(), 0u);
  EXPECT_EQ(keep.back(), 9999u);
  for (size_t i = 1; i < keep.size(); ++i) EXPECT_LT(keep[i - 1], keep[i]);
}

TEST(Downsample, KeepsAnIsolatedPeak) {
  ChartSeries s;
  for (int i = 0; i < 5000; ++i) {
    s.x.push_back(i);
    s.y.push_back(i == 3210 ? 100.0 : 0.0);
  }
  const auto keep = dmlkit::downsample_indices(s.x, s.y, 100);
  EXPECT_NE(std::find(keep.begin(), keep.end(), 3210u), keep.end());
}

TEST(Downsample, ShortSeriesAreUntouched) {
  const ChartSeries s = series("s", 50);
  const auto keep = dmlkit::downsample_indices(s.x, s.y, 2000);
  ASSERT_EQ(keep.size(), 50u);
  for (size_t i = 0; i < keep.size(); ++i) EXPECT_EQ(keep[i], i);
}

TEST(ReduceSeries, StepSeriesDropRepeatsLosslesslyAndNonFinitePoints) {
  ChartSeries s;
  s.step = true;
  s.x = {0, 1, 2, 3, 4, 5, 6};
  s.y = {1, 1, std::numeric_limits<double>::quiet_NaN(), 1, 2, 2, 2};
  const ChartSeries r = dmlkit::reduce_series(s, 2000);
  EXPECT_EQ(r.x, (std::vector<double>{0, 4, 6}));
  EXPECT_EQ(r.y, (std::vector<double>{1, 2, 2}));
}

TEST(HtmlReport, LongSeriesAreDownsampledInThePageKeepingEndpoints) {
  HtmlReport r("big");
  LineChart c;
  c.title = "big";
  ChartSeries s = series("s", 12345);
  s.x.front() = -7.25;
  s.y.back() = 42.5;
  c.series.push_back(s);
  r.add_chart(c);
  const auto data = chart_data(r.render());
  const auto& points = data[0]["series"][0]["points"];
  ASSERT_EQ(points.size(), HtmlReport::kDefaultMaxPointsPerSeries);
  EXPECT_DOUBLE_EQ(points.front()[0].get<double>(), -7.25);
  EXPECT_DOUBLE_EQ(points.front()[1].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(points.back()[0].get<double>(), 12344.0);
  EXPECT_DOUBLE_EQ(points.back()[1].get<double>(), 42.5);

  HtmlReport small("small");
  small.set_max_points_per_series(100);
  small.add_chart(c);
  EXPECT_EQ(chart_data(small.render())[0]["series"][0]["points"].size(), 100u);
}

namespace dmlkit {
namespace {

// Issue 20: spreads drawn as bands, seeds as points, log axes where values span decades.
TEST(HtmlReport, BandsPointsOnlyAndLogAxesReachThePage) {
  HtmlReport r("t");
  LineChart c;
  c.x_log = true;
  ChartSeries s;
  s.label = "replay";
  s.x = {20, 200, 2000};
  s.y = {0.5, 0.6, 0.7};
  s.y_low = {0.4, 0.55, 0.69};
  s.y_high = {0.6, 0.65, 0.71};
  c.series.push_back(s);
  ChartSeries seeds;
  seeds.label = "fifo";
  seeds.points_only = true;
  seeds.x = {1, 2};
  seeds.y = {10, 12};
  c.series.push_back(seeds);
  r.add_chart(c);
  const auto j = chart_data(r.render());
  EXPECT_TRUE(j[0]["x_log"].get<bool>());
  ASSERT_EQ(j[0]["series"][0]["band"].size(), 3u);
  EXPECT_DOUBLE_EQ(j[0]["series"][0]["band"][1][0].get<double>(), 0.55);
  EXPECT_DOUBLE_EQ(j[0]["series"][0]["band"][1][1].get<double>(), 0.65);
  EXPECT_TRUE(j[0]["series"][1]["points_only"].get<bool>());
  EXPECT_TRUE(j[0]["series"][1]["band"].empty());
  ChartSeries bad = s;
  bad.y_high.pop_back();
  LineChart d;
  d.series.push_back(bad);
  EXPECT_THROW(r.add_chart(d), std::invalid_argument);
}

}  // namespace
}  // namespace dmlkit

namespace dmlkit {
namespace {

GanttChart two_row_gantt() {
  GanttChart g;
  g.title = "Gantt " + kCloser;
  g.x_title = "time (ms)";
  g.rows = {"GPU " + kScript, "server0 NIC"};
  g.bars = {{0, 0, 2, "forward", "F conv1"},  {0, 2, 5, "backward", "B conv1"}, {1, 3, 4, "transfer", "w 1 MB"},
            {1, 4, 6, "transfer", "b 1 MB"}, {1, 8, 9, "transfer", "c 1 MB"}};
  return g;
}

TEST(HtmlReport, GanttChartsGoIntoThePageAsFloatingBars) {
  HtmlReport r("t");
  r.add_chart(two_row_gantt());
  EXPECT_EQ(r.chart_count(), 1u);
  const std::string page = r.render();
  const auto j = chart_data(page);
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["kind"], "gantt");
  EXPECT_EQ(j[0]["rows"].size(), 2u);
  EXPECT_EQ(j[0]["categories"], nlohmann::json({"forward", "backward", "transfer"}));
  // One bar per span, each [row, category, start, end, name], sorted by row, category, start.
  ASSERT_EQ(j[0]["bars"].size(), 5u);
  EXPECT_EQ(j[0]["bars"][0], nlohmann::json({0, 1, 2.0, 5.0, "B conv1"}));
  EXPECT_EQ(j[0]["bars"][1], nlohmann::json({0, 0, 0.0, 2.0, "F conv1"}));
  EXPECT_EQ(j[0]["bars"][4], nlohmann::json({1, 2, 8.0, 9.0, "c 1 MB"}));
  // A Gantt chart is as tall as its rows need; hostile names stay inside the JSON.
  EXPECT_NE(page.find("style=\"height: 200px\""), std::string::npos);
  EXPECT_EQ(page.find(kCloser), std::string::npos);
  EXPECT_EQ(page.find(kScript), std::string::npos);
}

TEST(HtmlReport, GanttRejectsUnknownRowsAndDuplicateRowNames) {
  HtmlReport r("t");
  GanttChart g = two_row_gantt();
  g.bars.push_back({2, 0, 1, "transfer", "x"});
  EXPECT_THROW(r.add_chart(g), std::invalid_argument);
  GanttChart d = two_row_gantt();
  d.rows[1] = d.rows[0];
  EXPECT_THROW(r.add_chart(d), std::invalid_argument);
  EXPECT_EQ(r.chart_count(), 0u);
}

TEST(ReduceGantt, KeepsEveryBarUnderTheLimitAndMergesNeighboursOverIt) {
  GanttChart g = two_row_gantt();
  g.bars.push_back({1, NAN, 3, "transfer", "nan"});
  g.bars.push_back({1, 5, 4, "transfer", "reversed"});
  EXPECT_EQ(reduce_gantt(g, 100).size(), 5u);  // the two invalid bars dropped, nothing merged
  // Over the limit: the touching transfers 3-4 and 4-6 merge first (and lose their names).
  const auto four = reduce_gantt(g, 4);
  ASSERT_EQ(four.size(), 4u);
  EXPECT_EQ(four[2].row, 1u);
  EXPECT_DOUBLE_EQ(four[2].start, 3);
  EXPECT_DOUBLE_EQ(four[2].end, 6);
  EXPECT_EQ(four[2].name, "");
  // Then the smallest gap of a row and category (6-8) closes; forward and backward never merge.
  const auto three = reduce_gantt(g, 3);
  ASSERT_EQ(three.size(), 3u);
  EXPECT_DOUBLE_EQ(three[2].start, 3);
  EXPECT_DOUBLE_EQ(three[2].end, 9);
  // Bars of different categories or rows never merge, whatever the limit.
  EXPECT_EQ(reduce_gantt(g, 1).size(), 3u);
  // A long timeline is reduced to the limit in the page.
  GanttChart many;
  many.rows = {"NIC"};
  for (int i = 0; i < 10000; ++i) many.bars.push_back({0, i * 1.0, i + 0.9, "transfer", ""});
  HtmlReport r("t");
  r.set_max_bars_per_gantt(500);
  r.add_chart(many);
  const auto j = chart_data(r.render());
  EXPECT_EQ(j[0]["bars"].size(), 500u);
  EXPECT_DOUBLE_EQ(j[0]["bars"][0][2].get<double>(), 0);
  EXPECT_DOUBLE_EQ(j[0]["bars"].back()[3].get<double>(), 9999.9);
}

}  // namespace
}  // namespace dmlkit
