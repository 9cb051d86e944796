// Writer of one self-contained HTML report: title, headings, paragraphs, key/value lists, tables
// and line charts. Charts are drawn by Chart.js, whose bundle (Debian libjs-chart.js) is read when
// the page is rendered and inlined into it, so the file works offline and references nothing on
// the network. Line charts (LineChart) and Gantt charts (GanttChart) share the page's drawing
// code, palette and checks. Every string from the caller is HTML-escaped; chart data go into the page as JSON
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

class OutputDir;
class TextTable;

// One line of a chart: points (x[i], y[i]) in the given order.
struct ChartSeries {
  std::string label;
  std::vector<double> x;
  std::vector<double> y;
  // Sample-and-hold: each y holds from its x until the next point's x (drawn as steps).
  bool step = false;
  // Markers only, no line between the points: for categories such as seeds, where a line joining
  // seed 1 to seed 2 would mean nothing.
  bool points_only = false;
  // A shaded band around the line (e.g. mean +/- one standard deviation over seeds): empty, or one
  // low and one high value per point.
  std::vector<double> y_low, y_high;
};

// A line chart with a numeric (linear) x axis and one or more series.
struct LineChart {
  std::string title;
  std::string x_title;
  std::string y_title;
  std::vector<ChartSeries> series;
  std::optional<double> x_min, x_max, y_min, y_max;  // axis limits; automatic when empty
  bool y_integer = false;                            // y values are counts: ticks only at whole numbers
  bool x_log = false;                                // logarithmic x axis (values spanning decades)
};

// One bar of a Gantt chart: `row` (an index into GanttChart::rows) is busy from `start` to `end`
// (x units of the chart) with work of the given category (bars of one category share a colour and
// a legend entry). `name` is shown when the bar is hovered (e.g. the tensor sent).
struct GanttBar {
  size_t row = 0;
  double start = 0, end = 0;
  std::string category;
  std::string name;
};

// A Gantt (floating horizontal bar) chart: one row per resource, top to bottom in `rows` order, one
// bar per busy interval (Chart.js floating bars, indexAxis 'y').
struct GanttChart {
  std::string title;
  std::string x_title;
  std::string y_title;
  std::vector<std::string> rows;
  std::vector<GanttBar> bars;
  std::optional<double> x_min, x_max;
};

// The bars as they go into the page, sorted by row, category and start: bars with a non-finite or
// reversed interval or an unknown row dropped. When more than max_bars remain, bars of the same row
// and category that overlap or touch are merged (they draw the same), then the smallest gaps between
// such neighbours are closed until max_bars remain (or no two bars of one row and category are
// left); a merged bar keeps its name only when all its parts had the same one.
std::vector<GanttBar> reduce_gantt(const GanttChart& chart, size_t max_bars);

// The readable header of a column named `name` (a results.json metric or CSV column): underscores
// become spaces and a unit suffix becomes the unit in parentheses: "avg_jct_s" -> "avg jct (s)",
// "iteration_mean_ms" -> "iteration mean (ms)", "distance_to_lower_bound_pct" -> "distance to lower
// bound (%)", "network_GB" -> "network (GB)"; other names only lose their underscores.
std::string column_title(std::string_view name);

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
  // A table printed on screen too: every report shows it with the same header style, each column's
  // column_title() with its name (as on screen, in results.json and the CSVs) under it.
  void add_table(const TextTable& table, std::string caption = "");
  // Throws std::invalid_argument if a series' x and y differ in size.
  void add_chart(LineChart chart);
  // Throws std::invalid_argument if a bar's row is not one of chart.rows or two rows have the same
  // name.
  void add_chart(GanttChart chart);

  // Maximum points per series put into the page (default kDefaultMaxPointsPerSeries, min 3).
  void set_max_points_per_series(size_t max_points);
  size_t chart_count() const { return charts_.size(); }
  // Maximum bars per Gantt chart put into the page (default kDefaultMaxBarsPerGantt, min 1).
  static constexpr size_t kDefaultMaxBarsPerGantt = 4000;
  void set_max_bars_per_gantt(size_t max_bars);

  // The whole page. Reads the Chart.js bundle from default_chartjs_path() / chartjs_path; throws
  // Error(path, 0, "", "Chart.js not found: install libjs-chart.js") if it cannot be read.
  std::string render() const;
  std::string render(const std::string& chartjs_path) const;

  // The page's content as data ("report.json", docs/results-schema.md): title, blocks in order,
  // and every chart with the points and bars the page draws (after reduce_series/reduce_gantt).
  // from_json() rebuilds a report that renders the same page with the current page code (style,
  // drawing, headers); it throws std::invalid_argument naming the field of a malformed model.
  nlohmann::json to_json() const;
  static HtmlReport from_json(const nlohmann::json& model);
  // Writes report.html and report.json into `out` (what `dmlkit report DIR` re-renders).
  void write(OutputDir& out) const;
  // The footer's "How to regenerate" shows this invocation (results.json's "invocation") instead
  // of the running process's: for a page re-rendered by `dmlkit report`.
  void set_invocation(const nlohmann::json& invocation);

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
    std::vector<std::string> keys;  // add_table(TextTable): the column names shown under the header
    std::vector<std::vector<std::string>> rows;
    std::string caption;
  };
  struct ChartRef {
    size_t index;
  };
  using Block = std::variant<Heading, Paragraph, Facts, Table, ChartRef>;

  std::string title_;
  std::vector<Block> blocks_;
  std::vector<std::variant<LineChart, GanttChart>> charts_;
  size_t max_points_ = kDefaultMaxPointsPerSeries;
  size_t max_bars_ = kDefaultMaxBarsPerGantt;
  std::string invocation_;  // set_invocation() as JSON text; empty: the process's invocation
};

}  // namespace dmlkit
