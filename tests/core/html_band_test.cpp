// HtmlReport charts with a shaded band around a series (the spread over seeds of a sweep report).
#include <gtest/gtest.h>

#include <stdexcept>

#include "core/html_report.h"

namespace dmlkit {
namespace {

LineChart chart() {
  LineChart c;
  c.title = "avg_jct_s against load";
  c.series.push_back({"fifo", {0.5, 1.0}, {10, 20}, false});
  c.series.push_back({"srtf", {0.5, 1.0}, {5, 8}, false});
  return c;
}

TEST(HtmlBand, BandedSeriesCarryTheirSpread) {
  HtmlReport rep("bands");
  rep.add_chart(chart(), {ChartBand{1, {4, 7}, {6, 9}}});
  const std::string html = rep.render();
  // The second series has [x, y, low, high] edges; the first has none.
  EXPECT_NE(html.find(R"("band":[[0.5,4.0,6.0],[1.0,7.0,9.0]])"), std::string::npos);
  EXPECT_EQ(html.find(R"("label":"fifo","points":[[0.5,10.0],[1.0,20.0]],"step":false,"band")"), std::string::npos);
  EXPECT_NE(html.find("fill: i === 2 ? '-1' : false"), std::string::npos);  // drawn as a filled band
}

TEST(HtmlBand, SizeMismatchIsRejected) {
  HtmlReport rep("bands");
  EXPECT_THROW(rep.add_chart(chart(), {ChartBand{0, {1}, {2, 3}}}), std::invalid_argument);
  EXPECT_THROW(rep.add_chart(chart(), {ChartBand{2, {1, 2}, {2, 3}}}), std::invalid_argument);
  EXPECT_EQ(rep.chart_count(), 0u);
}

}  // namespace
}  // namespace dmlkit
