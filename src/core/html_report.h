// Writer of one self-contained HTML report: title, headings, paragraphs, key/value lists, tables
// and line charts. Charts are drawn by Chart.js, whose bundle (Debian libjs-chart.js) is read when
// the page is rendered and inlined into it, so the file works offline and references nothing on
// the network. Every string from the caller is HTML-escaped; chart data go into the page as JSON
// with every '<' written as \u003c, so no string can close the script element.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace dmlkit {

class TextTable;

// One line of a chart: points (x[i], y[i]) in the given order.
struct ChartSeries {
  std::string label;
  std::vector<double> x;
  std::vector<double> y;
  // Sample-and-hold: each y holds from its x until the next point's x (drawn as steps).
  bool step = false;
};

// The spread around one series of a chart (e.g. min and max over seeds), drawn as a shaded band:
// `low` and `high` have as many values as that series' x.
struct ChartBand {
  size_t series = 0;
  std::vector<double> low;
  std::vector<double> high;
};

// A line chart with a numeric (linear) x axis and one or more series.
struct LineChart {
  std::string title;
  std::string x_title;
  std::string y_title;
  std::vector<ChartSeries> series;
  std::optional<double> x_min, x_max, y_min, y_max;  // axis limits; automatic when empty
  bool y_integer = false;                            // y values are counts: ticks only at whole numbers
};

// Escapes & < > " ' so `text` can go into HTML text or a quoted attribute.
std::string html_escape(std::string_view text);

// Serialises `value` for a <script> element: compact JSON, invalid UTF-8 replaced by U+FFFD, and
// every '<' written as \u003c (so neither "</script" nor "<!--" can appear).
std::string json_for_script(const nlohmann::json& value);

// Indices of the points kept when a series of x.size() points is reduced to at most max_points,
// in increasing order. Largest-Triangle-Three-Buckets (Steinarsson 2013): the first and last
// points are always kept; the points between are cut into max_points - 2 equal buckets and from
// each the point forming the largest triangle with the previously kept point and the mean of the
// next bucket is kept, which preserves peaks and troughs. Returns every index when
// x.size() <= max_points or max_points < 3. x and y must have the same size.
std::vector<size_t> downsample_indices(const std::vector<double>& x, const std::vector<double>& y, size_t max_points);

// The series as it goes into the page: points with a non-finite coordinate dropped; for a step
// series, points that repeat the previous value dropped (lossless: the value already holds), the
// last point always kept; then downsample_indices() if more than max_points remain.
ChartSeries reduce_series(const ChartSeries& series, size_t max_points);

// Chart.js bundle read by HtmlReport::render() (the DMLKIT_CHARTJS_PATH build setting).
std::string default_chartjs_path();

class HtmlReport {
 public:
  static constexpr size_t kDefaultMaxPointsPerSeries = 2000;

  explicit HtmlReport(std::string title);

  // Heading of level 2..4 (level 1 is the report title); other levels are clamped.
  void add_heading(std::string text, int level = 2);
  void add_paragraph(std::string text);
  // A compact list of facts ("Workload: pollux-6").
  void add_facts(std::vector<std::pair<std::string, std::string>> facts);
  // Rows shorter than the header are padded with empty cells. Cells that look like numbers are
  // right-aligned.
  void add_table(std::vector<std::string> header, std::vector<std::vector<std::string>> rows, std::string caption = "");
  void add_table(const TextTable& table, std::string caption = "");
  // Throws std::invalid_argument if a series' x and y differ in size.
  void add_chart(LineChart chart);
  // A chart with shaded bands around some of its series; a banded series is drawn with its
  // finite points, not downsampled. Throws std::invalid_argument on a size mismatch.
  void add_chart(LineChart chart, std::vector<ChartBand> bands);

  // Maximum points per series put into the page (default kDefaultMaxPointsPerSeries, min 3).
  void set_max_points_per_series(size_t max_points);
  size_t chart_count() const { return charts_.size(); }

  // The whole page. Reads the Chart.js bundle from default_chartjs_path() / chartjs_path; throws
  // Error(path, 0, "", "Chart.js not found: install libjs-chart.js") if it cannot be read.
  std::string render() const;
  std::string render(const std::string& chartjs_path) const;

 private:
  struct Heading {
    std::string text;
    int level;
  };
  struct Paragraph {
    std::string text;
  };
  struct Facts {
    std::vector<std::pair<std::string, std::string>> items;
  };
  struct Table {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
    std::string caption;
  };
  struct ChartRef {
    size_t index;
  };
  using Block = std::variant<Heading, Paragraph, Facts, Table, ChartRef>;

  std::string title_;
  std::vector<Block> blocks_;
  std::vector<LineChart> charts_;
  std::vector<std::vector<ChartBand>> bands_;  // per chart
  size_t max_points_ = kDefaultMaxPointsPerSeries;
};

}  // namespace dmlkit
