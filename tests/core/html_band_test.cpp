// HtmlReport charts with a shaded band around a series (the spread over seeds of a sweep report,
// mean +/- sd of a continual sweep): ChartSeries::y_low / y_high.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "core/html_report.h"

namespace dmlkit {
namespace {

LineChart chart() {
  LineChart c;
  c.title = "avg_jct_s against load";
  c.series.push_back({"fifo", {0.5, 1.0}, {10, 20}, false});
  c.series.push_back({"srtf", {0.5, 1.0}, {5, 8}, false});
  c.series[1].y_low = {4, 7};
  c.series[1].y_high = {6, NAN};  // a missing edge collapses onto the line
  return c;
}

TEST(HtmlBand, BandedSeriesCarryTheirSpread) {
  HtmlReport rep("bands");
  rep.add_chart(chart());
  const std::string html = rep.render();
  // The second series has [low, high] per point; the first none.
  EXPECT_NE(html.find(R"("band":[[4.0,6.0],[7.0,8.0]])"), std::string::npos) << html.substr(html.size() - 3000);
  EXPECT_NE(html.find(R"("band":[],"label":"fifo")"), std::string::npos);
  EXPECT_NE(html.find("fill: '-1'"), std::string::npos);  // drawn as a filled band
}

TEST(HtmlBand, SizeMismatchIsRejected) {
  HtmlReport rep("bands");
  LineChart c = chart();
  c.series[1].y_high = {6};
  EXPECT_THROW(rep.add_chart(c), std::invalid_argument);
  EXPECT_EQ(rep.chart_count(), 0u);
}

}  // namespace
}  // namespace dmlkit
