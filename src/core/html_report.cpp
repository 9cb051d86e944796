// HtmlReport: renders blocks to one self-contained HTML page with Chart.js inlined (see header).
#include "core/html_report.h"

#include "core/provenance.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/output_dir.h"
#include "core/table.h"

#ifndef DMLKIT_CHARTJS_PATH
#define DMLKIT_CHARTJS_PATH "/usr/share/javascript/chart.js/chart.min.js"
#endif

namespace dmlkit {
namespace {

// Content-Security-Policy of the page: inline scripts and styles only, nothing fetched (the icon
// is an empty data: URL so the browser does not ask for /favicon.ico).
constexpr const char* kCsp = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:";

constexpr const char* kStyle = R"CSS(
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
       margin: 0; color: #1d2330; background: #fff; line-height: 1.45; }
main { max-width: 1200px; margin: 0 auto; padding: 1.5rem 1.25rem 3rem; }
h1 { font-size: 1.6rem; margin: 0 0 1rem; }
h2 { font-size: 1.25rem; margin: 2rem 0 .6rem; border-bottom: 1px solid #dde1e8; padding-bottom: .25rem; }
h3, h4 { font-size: 1.05rem; margin: 1.4rem 0 .5rem; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: 0 0 1rem; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.table-wrap { overflow-x: auto; margin: .5rem 0 1rem; }
table { border-collapse: collapse; font-size: .92rem; }
caption { text-align: left; font-weight: 600; padding-bottom: .35rem; }
th, td { padding: .3rem .7rem; border-bottom: 1px solid #e4e7ec; text-align: left; white-space: nowrap; }
th { background: #f4f6f9; white-space: normal; vertical-align: bottom; }
th::first-letter { text-transform: uppercase; }
th code.key { display: block; font-weight: normal; font-size: .72rem; color: #5b6475; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
figure.chart { margin: 1rem 0 1.75rem; }
figure.chart .chart-box { position: relative; height: 360px; }
figure.chart figcaption { font-weight: 600; margin-bottom: .4rem; }
.noscript { color: #a33; }
footer.provenance { margin-top: 2.5rem; font-size: .85rem; color: #4a5263; }
footer.provenance pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f4f6f9; padding: .5rem .7rem; }
)CSS";

// Runs first (in <head>): records script errors, failed loads, CSP violations and console.error
// calls into <body data-errors=... data-error-count=...>, so a headless browser can check them.
constexpr const char* kErrorCaptureJs = R"JS(
(function () {
  'use strict';
  var errors = [];
  function flush() {
    if (!document.body) return;
    document.body.dataset.errorCount = String(errors.length);
    document.body.dataset.errors = errors.join('\n');
  }
  function record(message) { errors.push(String(message)); flush(); }
  window.dmlkitRecordError = record;
  window.addEventListener('error', function (e) {
    if (e.target && e.target !== window && e.target.tagName) {
      record('failed to load <' + e.target.tagName.toLowerCase() + '>');
    } else {
      record('error: ' + (e.message || 'unknown') + (e.lineno ? ' (line ' + e.lineno + ')' : ''));
    }
  }, true);
  window.addEventListener('unhandledrejection', function (e) {
    record('unhandled rejection: ' + ((e.reason && e.reason.message) || e.reason));
  });
  document.addEventListener('securitypolicyviolation', function (e) {
    record('blocked by the content security policy: ' + e.violatedDirective + ' ' + e.blockedURI);
  });
  var consoleError = console.error;
  console.error = function () {
    record('console.error: ' + Array.prototype.map.call(arguments, String).join(' '));
    return consoleError.apply(console, arguments);
  };
  document.addEventListener('DOMContentLoaded', flush);
})();
)JS";

// Draws every chart (line or Gantt) from the JSON block. After a chart's first render it marks its canvas with
// data-drawn="1", data-ink=<painted pixels> and data-points=<points laid out over all series>, and
// counts it in <body data-charts-drawn=N>
// (data-charts-expected holds the number of charts in the page).
constexpr const char* kDrawJs = R"JS(
(function () {
  'use strict';
  var body = document.body;
  var specs = JSON.parse(document.getElementById('dmlkit-chart-data').textContent);
  body.dataset.chartsExpected = String(specs.length);
  body.dataset.chartsDrawn = '0';
  if (specs.length === 0) return;
  if (typeof Chart === 'undefined') { window.dmlkitRecordError('Chart.js is not available'); return; }
  var palette = ['#0072B2', '#E69F00', '#009E73', '#D55E00', '#CC79A7', '#56B4E9', '#7F7F00',
                 '#000000', '#999999', '#882255'];
  var markers = ['circle', 'rect', 'triangle', 'rectRot', 'crossRot', 'star', 'rectRounded', 'cross', 'line', 'dash'];
  var dashes = [[], [6, 3], [2, 2], [8, 3, 2, 3]];
  var drawn = 0;
  var drawnMarker = {
    id: 'dmlkitDrawn',
    afterRender: function (chart) {
      var canvas = chart.canvas;
      if (canvas.dataset.drawn) return;
      var ink = 0;
      try {
        var pixels = chart.ctx.getImageData(0, 0, canvas.width, canvas.height).data;
        for (var i = 3; i < pixels.length; i += 4) if (pixels[i] !== 0) ++ink;
      } catch (e) { ink = -1; }
      var points = 0;
      for (var k = 0; k < chart.data.datasets.length; ++k) points += chart.getDatasetMeta(k).data.length;
      canvas.dataset.ink = String(ink);
      canvas.dataset.points = String(points);
      canvas.dataset.drawn = '1';
      drawn += 1;
      body.dataset.chartsDrawn = String(drawn);
    }
  };
  function axis(title, min, max, integer, log) {
    var a = {type: log ? 'logarithmic' : 'linear', title: {display: title.length > 0, text: title}};
    if (min !== null) a.min = min;
    if (max !== null) a.max = max;
    if (integer) a.ticks = {precision: 0};
    return a;
  }
  // A Gantt chart: floating horizontal bars, one dataset (colour, legend entry) per category.
  function ganttConfig(spec) {
    var datasets = spec.categories.map(function (category, k) {
      var color = palette[k % palette.length];
      return {label: category, data: [], backgroundColor: color, borderColor: color, borderWidth: 0,
              borderSkipped: false, grouped: false, barPercentage: 0.9, categoryPercentage: 0.9, minBarLength: 1};
    });
    spec.bars.forEach(function (b) {
      datasets[b[1]].data.push({x: [b[2], b[3]], y: spec.rows[b[0]], name: b.length > 4 ? b[4] : ''});
    });
    return {
      type: 'bar',
      data: {labels: spec.rows, datasets: datasets},
      options: {
        indexAxis: 'y',
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        scales: {x: axis(spec.x_title, spec.x_min, spec.x_max, false, false),
                 y: {type: 'category', title: {display: spec.y_title.length > 0, text: spec.y_title}}},
        plugins: {
          legend: {position: 'bottom'},
          tooltip: {callbacks: {label: function (ctx) {
            var r = ctx.raw;
            return (r.name ? r.name + ' (' + ctx.dataset.label + ')' : ctx.dataset.label) + ': ' +
                   r.x[0] + ' to ' + r.x[1];
          }}}
        }
      },
      plugins: [drawnMarker]
    };
  }
  specs.forEach(function (spec, index) {
    var canvas = document.getElementById('dmlkit-chart-' + index);
    if (spec.kind === 'gantt') {
      try {
        new Chart(canvas, ganttConfig(spec));
      } catch (e) {
        window.dmlkitRecordError('chart ' + index + ': ' + (e && e.message ? e.message : e));
      }
      return;
    }
    var bands = [];
    var datasets = spec.series.map(function (s, k) {
      var color = palette[k % palette.length];
      // Series with equal values stay visible: each has its own marker, and from the second
      // palette round on (or every other series) its own dash pattern.
      var few = s.points.length <= 60;
      if (s.band && s.band.length === s.points.length && s.band.length > 0) {
        // Two unlabelled datasets, the high one filled down to the low one (Chart.js filler).
        var lo = s.points.map(function (p, i) { return {x: p[0], y: s.band[i][0]}; });
        var hi = s.points.map(function (p, i) { return {x: p[0], y: s.band[i][1]}; });
        bands.push({label: '', data: lo, borderWidth: 0, pointRadius: 0, fill: false, tension: 0,
                    borderColor: 'transparent'});
        bands.push({label: '', data: hi, borderWidth: 0, pointRadius: 0, fill: '-1', tension: 0,
                    borderColor: 'transparent', backgroundColor: color + '2e'});
      }
      return {
        label: s.label,
        data: s.points.map(function (p) { return {x: p[0], y: p[1]}; }),
        stepped: s.step ? 'before' : false,
        showLine: !s.points_only,
        borderColor: color,
        backgroundColor: color,
        borderWidth: 2,
        borderDash: dashes[(k + Math.floor(k / palette.length)) % dashes.length],
        pointStyle: markers[k % markers.length],
        // Markers on short line series; none on step series (timelines, CDFs), where every
        // corner would get one and bury the steps.
        pointRadius: s.points_only ? 5 : (few && !s.step ? 3.5 : 0),
        pointHoverRadius: 6,
        fill: false,
        tension: 0
      };
    });
    var xCategories = spec.series.length > 0 && spec.series.every(function (s) {
      return s.points_only && s.points.every(function (p) { return Number.isInteger(p[0]); });
    });
    try {
      new Chart(canvas, {
        type: 'line',
        data: {datasets: datasets.concat(bands)},
        options: {
          animation: false,
          responsive: true,
          maintainAspectRatio: false,
          parsing: false,
          interaction: {mode: 'nearest', intersect: false},
          // Points-only series at whole x values are categories (seeds): ticks only at whole numbers.
          scales: {x: axis(spec.x_title, spec.x_min, spec.x_max, xCategories, spec.x_log),
                   y: axis(spec.y_title, spec.y_min, spec.y_max, spec.y_integer, false)},
          plugins: {legend: {position: 'bottom',
                             labels: {filter: function (item) { return item.text !== ''; }}}}
        },
        plugins: [drawnMarker]
      });
    } catch (e) {
      window.dmlkitRecordError('chart ' + index + ': ' + (e && e.message ? e.message : e));
    }
  });
})();
)JS";

// Shortest text for v with 6 significant digits, read back as a double: chart coordinates do not
// need more, and it halves the size of the JSON.
double round_for_chart(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return std::strtod(buf, nullptr);
}

bool looks_numeric(const std::string& cell) {
  if (cell.empty()) return false;
  std::string s = cell;
  if (s.back() == '%') s.pop_back();
  if (s.empty() || std::isspace(static_cast<unsigned char>(s.front()))) return false;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

nlohmann::json optional_number(const std::optional<double>& v) {
  if (v && std::isfinite(*v)) return *v;
  return nullptr;
}

bool contains_ci(const std::string& haystack, std::string_view needle) {
  auto it = std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
  return it != haystack.end();
}

std::string read_chartjs(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path, 0, "", "Chart.js not found: install libjs-chart.js");
  std::ostringstream buf;
  buf << in.rdbuf();
  std::string js = buf.str();
  if (js.empty()) throw Error(path, 0, "", "Chart.js not found: install libjs-chart.js");
  // Inside <script>, "</script" would end the element and "<!--" changes how the end is found.
  if (contains_ci(js, "</script") || js.find("<!--") != std::string::npos)
    throw Error(path, 0, "", "cannot inline this Chart.js bundle: it contains </script or <!--");
  return js;
}

// The JSON a Gantt chart goes into the page as: rows, categories (in order of first appearance)
// and bars as [row, category index, start, end] plus the name when there is one.
nlohmann::json gantt_spec(const GanttChart& chart, size_t max_bars) {
  std::vector<std::string> categories;
  for (const auto& b : chart.bars)
    if (std::find(categories.begin(), categories.end(), b.category) == categories.end())
      categories.push_back(b.category);
  nlohmann::json bars = nlohmann::json::array();
  for (const GanttBar& b : reduce_gantt(chart, max_bars)) {
    const auto k = std::find(categories.begin(), categories.end(), b.category) - categories.begin();
    nlohmann::json bar = nlohmann::json::array({b.row, k, round_for_chart(b.start), round_for_chart(b.end)});
    if (!b.name.empty()) bar.push_back(b.name);
    bars.push_back(std::move(bar));
  }
  return {{"kind", "gantt"},
          {"title", chart.title},
          {"x_title", chart.x_title},
          {"y_title", chart.y_title},
          {"x_min", optional_number(chart.x_min)},
          {"x_max", optional_number(chart.x_max)},
          {"rows", chart.rows},
          {"categories", categories},
          {"bars", std::move(bars)}};
}

}  // namespace

std::string column_title(std::string_view name) {
  // Longest suffixes first; each maps to the unit shown.
  static const std::pair<std::string_view, std::string_view> kUnits[] = {
      {"_bytes", "bytes"}, {"_Bps", "bytes/s"}, {"_pct", "%"},   {"_deg", "degrees"}, {"_ms", "ms"}, {"_us", "µs"},
      {"_MB", "MB"},       {"_GB", "GB"},       {"_MiB", "MiB"}, {"_s", "s"},         {"_h", "h"}};
  std::string_view stem = name;
  std::string_view unit;
  for (const auto& [suffix, shown] : kUnits)
    if (stem.size() > suffix.size() && stem.substr(stem.size() - suffix.size()) == suffix) {
      stem.remove_suffix(suffix.size());
      unit = shown;
      break;
    }
  std::string out(stem);
  std::replace(out.begin(), out.end(), '_', ' ');
  if (!unit.empty()) out += " (" + std::string(unit) + ")";
  return out;
}

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string json_for_script(const nlohmann::json& value) {
  const std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  // '<' only occurs inside JSON strings, where \u003c is the same character.
  for (char c : text) {
    if (c == '<')
      out += "\\u003c";
    else
      out += c;
  }
  return out;
}

std::vector<size_t> downsample_indices(const std::vector<double>& x, const std::vector<double>& y, size_t max_points) {
  if (x.size() != y.size()) throw std::invalid_argument("downsample_indices: x and y differ in size");
  const size_t n = x.size();
  std::vector<size_t> keep;
  if (n <= max_points || max_points < 3) {
    keep.resize(n);
    for (size_t i = 0; i < n; ++i) keep[i] = i;
    return keep;
  }
  keep.reserve(max_points);
  const size_t buckets = max_points - 2;
  // Bucket b covers interior indices [1 + b*w, 1 + (b+1)*w) with w = (n-2)/buckets (fractional).
  const double width = static_cast<double>(n - 2) / static_cast<double>(buckets);
  auto bucket_begin = [&](size_t b) { return 1 + static_cast<size_t>(std::floor(b * width)); };
  size_t a = 0;
  keep.push_back(0);
  for (size_t b = 0; b < buckets; ++b) {
    const size_t begin = bucket_begin(b);
    const size_t end = std::min(bucket_begin(b + 1), n - 1);
    // Mean of the next bucket (the last point for the last bucket).
    size_t next_begin = end;
    size_t next_end = b + 1 < buckets ? std::min(bucket_begin(b + 2), n - 1) : n;
    if (next_begin >= next_end) next_begin = next_end - 1;
    double mean_x = 0, mean_y = 0;
    for (size_t i = next_begin; i < next_end; ++i) {
      mean_x += x[i];
      mean_y += y[i];
    }
    mean_x /= static_cast<double>(next_end - next_begin);
    mean_y /= static_cast<double>(next_end - next_begin);
    size_t best = begin;
    double best_area = -1;
    for (size_t i = begin; i < end; ++i) {
      const double area = std::fabs((x[a] - mean_x) * (y[i] - y[a]) - (x[a] - x[i]) * (mean_y - y[a]));
      if (area > best_area) {
        best_area = area;
        best = i;
      }
    }
    if (begin < end) {
      keep.push_back(best);
      a = best;
    }
  }
  keep.push_back(n - 1);
  return keep;
}

ChartSeries reduce_series(const ChartSeries& series, size_t max_points) {
  if (series.x.size() != series.y.size())
    throw std::invalid_argument("chart series '" + series.label + "': x and y differ in size");
  const bool band = !series.y_low.empty() || !series.y_high.empty();
  if (band && (series.y_low.size() != series.x.size() || series.y_high.size() != series.x.size()))
    throw std::invalid_argument("chart series '" + series.label + "': the band needs one low and high per point");
  ChartSeries out;
  out.label = series.label;
  out.step = series.step;
  out.points_only = series.points_only;
  const size_t n = series.x.size();
  out.x.reserve(n);
  out.y.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(series.x[i]) || !std::isfinite(series.y[i])) continue;
    out.x.push_back(series.x[i]);
    out.y.push_back(series.y[i]);
    if (band) {  // a band edge that is not a number collapses onto the line
      out.y_low.push_back(std::isfinite(series.y_low[i]) ? series.y_low[i] : series.y[i]);
      out.y_high.push_back(std::isfinite(series.y_high[i]) ? series.y_high[i] : series.y[i]);
    }
  }
  // Bands are drawn for short series (seeds x configurations), never reduced.
  if (band) return out;
  if (series.step && out.x.size() > 2) {
    // A point that repeats the held value adds nothing; keep the last one for the x extent.
    size_t w = 1;
    for (size_t i = 1; i < out.x.size(); ++i) {
      const bool last = i + 1 == out.x.size();
      if (!last && out.y[i] == out.y[w - 1]) continue;
      out.x[w] = out.x[i];
      out.y[w] = out.y[i];
      ++w;
    }
    out.x.resize(w);
    out.y.resize(w);
  }
  if (out.x.size() > max_points) {
    const auto keep = downsample_indices(out.x, out.y, max_points);
    ChartSeries small;
    small.label = out.label;
    small.points_only = out.points_only;
    small.step = out.step;
    small.x.reserve(keep.size());
    small.y.reserve(keep.size());
    for (size_t i : keep) {
      small.x.push_back(out.x[i]);
      small.y.push_back(out.y[i]);
    }
    return small;
  }
  return out;
}

std::vector<GanttBar> reduce_gantt(const GanttChart& chart, size_t max_bars) {
  std::vector<GanttBar> bars;
  bars.reserve(chart.bars.size());
  for (const GanttBar& b : chart.bars)
    if (std::isfinite(b.start) && std::isfinite(b.end) && b.end >= b.start && b.row < chart.rows.size())
      bars.push_back(b);
  std::stable_sort(bars.begin(), bars.end(), [](const GanttBar& a, const GanttBar& b) {
    if (a.row != b.row) return a.row < b.row;
    if (a.category != b.category) return a.category < b.category;
    if (a.start != b.start) return a.start < b.start;
    return a.end < b.end;
  });
  max_bars = std::max<size_t>(max_bars, 1);
  // Merges neighbours of one row and category whose gap is at most `gap`.
  auto merge = [&bars](double gap) {
    std::vector<GanttBar> out;
    out.reserve(bars.size());
    for (GanttBar& b : bars) {
      if (!out.empty() && out.back().row == b.row && out.back().category == b.category &&
          b.start <= out.back().end + gap) {
        GanttBar& m = out.back();
        m.end = std::max(m.end, b.end);
        if (m.name != b.name) m.name.clear();
      } else {
        out.push_back(std::move(b));
      }
    }
    bars = std::move(out);
  };
  if (bars.size() <= max_bars) return bars;
  merge(0);
  if (bars.size() <= max_bars) return bars;
  // Close the smallest gaps between neighbours of one row and category (ties: the earlier first),
  // as many as needed.
  std::vector<std::pair<double, size_t>> gaps;  // (gap, index of the bar before it)
  for (size_t i = 0; i + 1 < bars.size(); ++i)
    if (bars[i].row == bars[i + 1].row && bars[i].category == bars[i + 1].category)
      gaps.push_back({bars[i + 1].start - bars[i].end, i});
  const size_t close = std::min(gaps.size(), bars.size() - max_bars);
  std::nth_element(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(close), gaps.end());
  std::vector<char> join(bars.size(), 0);
  for (size_t g = 0; g < close; ++g) join[gaps[g].second] = 1;
  std::vector<GanttBar> out;
  out.reserve(bars.size() - close);
  for (size_t i = 0; i < bars.size(); ++i) {
    if (i > 0 && join[i - 1]) {
      GanttBar& m = out.back();
      m.end = std::max(m.end, bars[i].end);
      if (m.name != bars[i].name) m.name.clear();
    } else {
      out.push_back(std::move(bars[i]));
    }
  }
  return out;
}

std::string default_chartjs_path() { return DMLKIT_CHARTJS_PATH; }

HtmlReport::HtmlReport(std::string title) : title_(std::move(title)) {}

void HtmlReport::add_heading(std::string text, int level) {
  blocks_.push_back(Heading{std::move(text), std::clamp(level, 2, 4)});
}

void HtmlReport::add_paragraph(std::string text) { blocks_.push_back(Paragraph{std::move(text)}); }

void HtmlReport::add_facts(std::vector<std::pair<std::string, std::string>> facts) {
  blocks_.push_back(Facts{std::move(facts)});
}

void HtmlReport::add_table(std::vector<std::string> header, std::vector<std::vector<std::string>> rows,
                           std::string caption) {
  blocks_.push_back(Table{std::move(header), {}, std::move(rows), std::move(caption)});
}

void HtmlReport::add_table(const TextTable& table, std::string caption) {
  std::vector<std::string> header;
  for (const auto& key : table.header()) header.push_back(column_title(key));
  blocks_.push_back(Table{std::move(header), table.header(), table.rows(), std::move(caption)});
}

void HtmlReport::add_chart(LineChart chart) {
  for (const auto& s : chart.series)
    if (s.x.size() != s.y.size() ||
        ((!s.y_low.empty() || !s.y_high.empty()) && (s.y_low.size() != s.x.size() || s.y_high.size() != s.x.size())))
      throw std::invalid_argument("chart '" + chart.title + "', series '" + s.label +
                                  "': x, y and the band (when given) differ in size");
  blocks_.push_back(ChartRef{charts_.size()});
  charts_.push_back(std::move(chart));
}

void HtmlReport::add_chart(GanttChart chart) {
  for (size_t i = 0; i < chart.rows.size(); ++i)
    for (size_t k = 0; k < i; ++k)
      if (chart.rows[i] == chart.rows[k])
        throw std::invalid_argument("chart '" + chart.title + "': row '" + chart.rows[i] + "' given twice");
  for (const auto& b : chart.bars)
    if (b.row >= chart.rows.size())
      throw std::invalid_argument("chart '" + chart.title + "': bar '" + b.name + "' is on row " +
                                  std::to_string(b.row) + " of " + std::to_string(chart.rows.size()));
  blocks_.push_back(ChartRef{charts_.size()});
  charts_.push_back(std::move(chart));
}

void HtmlReport::set_max_points_per_series(size_t max_points) { max_points_ = std::max<size_t>(max_points, 3); }

void HtmlReport::set_max_bars_per_gantt(size_t max_bars) { max_bars_ = std::max<size_t>(max_bars, 1); }

std::string HtmlReport::render() const { return render(default_chartjs_path()); }

std::string HtmlReport::render(const std::string& chartjs_path) const {
  // Read first so a missing bundle fails before any work; a page without charts needs none.
  const std::string chartjs = charts_.empty() ? std::string() : read_chartjs(chartjs_path);

  std::string h;
  h.reserve(chartjs.size() + 64 * 1024);
  auto put = [&h](std::initializer_list<std::string_view> parts) {
    for (std::string_view part : parts) h.append(part);
  };
  put({"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
       "<meta http-equiv=\"Content-Security-Policy\" content=\"",
       kCsp,
       "\">\n",
       "<meta name=\"generator\" content=\"dmlkit\">\n",
       "<title>",
       html_escape(title_),
       "</title>\n",
       "<link rel=\"icon\" href=\"data:,\">\n",
       "<style>",
       kStyle,
       "</style>\n",
       "<script>",
       kErrorCaptureJs,
       "</script>\n",
       "</head>\n<body>\n<main>\n",
       "<h1>",
       html_escape(title_),
       "</h1>\n"});
  if (!charts_.empty()) put({"<noscript><p class=\"noscript\">The charts need JavaScript.</p></noscript>\n"});

  for (const Block& block : blocks_) {
    if (const auto* b = std::get_if<Heading>(&block)) {
      const std::string level = std::to_string(b->level);
      put({"<h", level, ">", html_escape(b->text), "</h", level, ">\n"});
    } else if (const auto* b = std::get_if<Paragraph>(&block)) {
      put({"<p>", html_escape(b->text), "</p>\n"});
    } else if (const auto* b = std::get_if<Facts>(&block)) {
      put({"<dl class=\"facts\">\n"});
      for (const auto& [key, value] : b->items)
        put({"<dt>", html_escape(key), "</dt><dd>", html_escape(value), "</dd>\n"});
      put({"</dl>\n"});
    } else if (const auto* b = std::get_if<Table>(&block)) {
      put({"<div class=\"table-wrap\"><table>\n"});
      if (!b->caption.empty()) put({"<caption>", html_escape(b->caption), "</caption>\n"});
      put({"<thead><tr>"});
      for (size_t c = 0; c < b->header.size(); ++c) {
        const std::string key = c < b->keys.size() ? b->keys[c] : std::string();
        if (key.empty() || key == b->header[c])
          put({"<th scope=\"col\">", html_escape(b->header[c]), "</th>"});
        else
          put({"<th scope=\"col\">", html_escape(b->header[c]), "<code class=\"key\">", html_escape(key),
               "</code></th>"});
      }
      put({"</tr></thead>\n<tbody>\n"});
      for (const auto& row : b->rows) {
        put({"<tr>"});
        const size_t cells = std::max(row.size(), b->header.size());
        for (size_t c = 0; c < cells; ++c) {
          const std::string_view cell = c < row.size() ? std::string_view(row[c]) : std::string_view();
          put({looks_numeric(std::string(cell)) ? "<td class=\"num\">" : "<td>", html_escape(cell), "</td>"});
        }
        put({"</tr>\n"});
      }
      put({"</tbody>\n</table></div>\n"});
    } else if (const auto* b = std::get_if<ChartRef>(&block)) {
      const std::string index = std::to_string(b->index);
      const auto& chart = charts_[b->index];
      const std::string title = html_escape(std::visit([](const auto& c) { return c.title; }, chart));
      // A Gantt chart is as tall as its rows need (26 px each, plus the axes and legend).
      std::string height;
      if (const auto* g = std::get_if<GanttChart>(&chart))
        height = " style=\"height: " + std::to_string(std::max<size_t>(200, 26 * g->rows.size() + 110)) + "px\"";
      put({"<figure class=\"chart\">\n<figcaption>", title, "</figcaption>\n", "<div class=\"chart-box\"", height,
           "><canvas id=\"dmlkit-chart-", index, "\" role=\"img\" aria-label=\"", title,
           "\"></canvas></div>\n</figure>\n"});
    }
  }
  // How to regenerate this page (core/provenance.h): version, command line, input checksums.
  const nlohmann::json inv =
      invocation_.empty() ? nlohmann::json(invocation_json()) : nlohmann::json::parse(invocation_);
  if (inv.is_object() && inv.contains("command_line") && inv["command_line"].is_string()) {
    put({"<footer class=\"provenance\">\n<h2>How to regenerate</h2>\n<p>dmlkit ", DMLKIT_VERSION,
         ", run as:</p>\n<pre><code>", html_escape(inv["command_line"].get<std::string>()), "</code></pre>\n"});
    if (inv.contains("input_files") && inv["input_files"].is_array() && !inv["input_files"].empty()) {
      // Folded: a run may read dozens of files (every application profile).
      put({"<details><summary>Input files read (", std::to_string(inv["input_files"].size()),
           ", with their SHA-256)</summary>\n<div class=\"table-wrap\"><table>\n<thead><tr><th "
           "scope=\"col\">file</th><th scope=\"col\">bytes</th><th "
           "scope=\"col\">SHA-256</th></tr></thead>\n<tbody>\n"});
      for (const auto& f : inv["input_files"])
        put({"<tr><td>", html_escape(f["path"].get<std::string>()), "</td><td class=\"num\">",
             std::to_string(f["bytes"].get<uint64_t>()), "</td><td><code>", html_escape(f["sha256"].get<std::string>()),
             "</code></td></tr>\n"});
      put({"</tbody>\n</table></div>\n</details>\n"});
    }
    put({"</footer>\n"});
  }
  put({"</main>\n"});

  nlohmann::json specs = nlohmann::json::array();
  for (const auto& any_chart : charts_) {
    if (const auto* g = std::get_if<GanttChart>(&any_chart)) {
      specs.push_back(gantt_spec(*g, max_bars_));
      continue;
    }
    const LineChart& chart = std::get<LineChart>(any_chart);
    nlohmann::json series = nlohmann::json::array();
    for (const ChartSeries& s : chart.series) {
      const ChartSeries r = reduce_series(s, max_points_);
      nlohmann::json points = nlohmann::json::array();
      for (size_t i = 0; i < r.x.size(); ++i)
        points.push_back(nlohmann::json::array({round_for_chart(r.x[i]), round_for_chart(r.y[i])}));
      nlohmann::json band = nlohmann::json::array();
      for (size_t i = 0; i < r.y_low.size(); ++i)
        band.push_back(nlohmann::json::array({round_for_chart(r.y_low[i]), round_for_chart(r.y_high[i])}));
      series.push_back({{"label", r.label},
                        {"step", r.step},
                        {"points_only", r.points_only},
                        {"points", std::move(points)},
                        {"band", std::move(band)}});
    }
    specs.push_back({{"kind", "line"},
                     {"title", chart.title},
                     {"x_title", chart.x_title},
                     {"y_title", chart.y_title},
                     {"x_min", optional_number(chart.x_min)},
                     {"x_max", optional_number(chart.x_max)},
                     {"y_min", optional_number(chart.y_min)},
                     {"y_max", optional_number(chart.y_max)},
                     {"y_integer", chart.y_integer},
                     {"x_log", chart.x_log},
                     {"series", std::move(series)}});
  }
  if (!charts_.empty()) put({"<script>", chartjs, "\n</script>\n"});
  put({"<script type=\"application/json\" id=\"dmlkit-chart-data\">", json_for_script(specs), "</script>\n", "<script>",
       kDrawJs, "</script>\n", "</body>\n</html>\n"});
  return h;
}

namespace {

constexpr const char* kReportModelSchema = "dmlkit-report";
constexpr int kReportModelVersion = 1;

const nlohmann::json& field(const nlohmann::json& j, const char* key, const std::string& where) {
  if (!j.is_object() || !j.contains(key)) throw std::invalid_argument(where + "." + key + ": missing");
  return j[key];
}

const nlohmann::json& array_field(const nlohmann::json& j, const char* key, const std::string& where) {
  const nlohmann::json& a = field(j, key, where);
  if (!a.is_array()) throw std::invalid_argument(where + "." + key + ": not an array");
  return a;
}

template <class T>
T get_field(const nlohmann::json& j, const char* key, const std::string& where) {
  try {
    return field(j, key, where).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw std::invalid_argument(where + "." + key + ": wrong type");
  }
}

std::optional<double> optional_field(const nlohmann::json& j, const char* key) {
  if (j.contains(key) && j[key].is_number()) return j[key].get<double>();
  return std::nullopt;
}

std::vector<double> rounded(const std::vector<double>& v) {
  std::vector<double> r;
  r.reserve(v.size());
  for (double x : v) r.push_back(round_for_chart(x));
  return r;
}

}  // namespace

nlohmann::json HtmlReport::to_json() const {
  nlohmann::json blocks = nlohmann::json::array();
  for (const Block& block : blocks_) {
    if (const auto* b = std::get_if<Heading>(&block)) {
      blocks.push_back({{"kind", "heading"}, {"text", b->text}, {"level", b->level}});
    } else if (const auto* b = std::get_if<Paragraph>(&block)) {
      blocks.push_back({{"kind", "paragraph"}, {"text", b->text}});
    } else if (const auto* b = std::get_if<Facts>(&block)) {
      nlohmann::json items = nlohmann::json::array();
      for (const auto& [k, v] : b->items) items.push_back({k, v});
      blocks.push_back({{"kind", "facts"}, {"items", std::move(items)}});
    } else if (const auto* b = std::get_if<Table>(&block)) {
      blocks.push_back(
          {{"kind", "table"}, {"header", b->header}, {"keys", b->keys}, {"rows", b->rows}, {"caption", b->caption}});
    } else if (const auto* b = std::get_if<ChartRef>(&block)) {
      const auto& any_chart = charts_[b->index];
      if (const auto* g = std::get_if<GanttChart>(&any_chart)) {
        nlohmann::json bars = nlohmann::json::array();
        for (const GanttBar& bar : reduce_gantt(*g, max_bars_))
          bars.push_back({bar.row, bar.category, round_for_chart(bar.start), round_for_chart(bar.end), bar.name});
        // The legend's (and colours') order: categories in order of first appearance, as the page has it.
        std::vector<std::string> categories;
        for (const auto& bar : g->bars)
          if (std::find(categories.begin(), categories.end(), bar.category) == categories.end())
            categories.push_back(bar.category);
        blocks.push_back({{"kind", "gantt"},
                          {"title", g->title},
                          {"x_title", g->x_title},
                          {"y_title", g->y_title},
                          {"x_min", optional_number(g->x_min)},
                          {"x_max", optional_number(g->x_max)},
                          {"rows", g->rows},
                          {"categories", categories},
                          {"bars", std::move(bars)}});
        continue;
      }
      const LineChart& c = std::get<LineChart>(any_chart);
      nlohmann::json series = nlohmann::json::array();
      for (const ChartSeries& s : c.series) {
        const ChartSeries r = reduce_series(s, max_points_);
        series.push_back({{"label", r.label},
                          {"x", rounded(r.x)},
                          {"y", rounded(r.y)},
                          {"step", r.step},
                          {"points_only", r.points_only},
                          {"y_low", rounded(r.y_low)},
                          {"y_high", rounded(r.y_high)}});
      }
      blocks.push_back({{"kind", "line"},
                        {"title", c.title},
                        {"x_title", c.x_title},
                        {"y_title", c.y_title},
                        {"x_min", optional_number(c.x_min)},
                        {"x_max", optional_number(c.x_max)},
                        {"y_min", optional_number(c.y_min)},
                        {"y_max", optional_number(c.y_max)},
                        {"y_integer", c.y_integer},
                        {"x_log", c.x_log},
                        {"series", std::move(series)}});
    }
  }
  return {{"schema", kReportModelSchema},
          {"schema_version", kReportModelVersion},
          {"title", title_},
          {"blocks", std::move(blocks)}};
}

HtmlReport HtmlReport::from_json(const nlohmann::json& model) {
  // Compared, never converted: a field of the wrong type is a refusal, not a json exception.
  if (!model.is_object() || !model.contains("schema") || model["schema"] != kReportModelSchema)
    throw std::invalid_argument(std::string("schema: expected \"") + kReportModelSchema + "\"");
  if (!model.contains("schema_version") || model["schema_version"] != kReportModelVersion)
    throw std::invalid_argument("schema_version: this dmlkit reads version " + std::to_string(kReportModelVersion));
  HtmlReport rep(get_field<std::string>(model, "title", "report"));
  const nlohmann::json& blocks = field(model, "blocks", "report");
  if (!blocks.is_array()) throw std::invalid_argument("report.blocks: not an array");
  for (size_t i = 0; i < blocks.size(); ++i) {
    const nlohmann::json& b = blocks[i];
    const std::string where = "blocks[" + std::to_string(i) + "]";
    const std::string kind = get_field<std::string>(b, "kind", where);
    if (kind == "heading") {
      std::string text = get_field<std::string>(b, "text", where);  // fields in order: the first missing is named
      rep.add_heading(std::move(text), get_field<int>(b, "level", where));
    } else if (kind == "paragraph") {
      rep.add_paragraph(get_field<std::string>(b, "text", where));
    } else if (kind == "facts") {
      rep.add_facts(get_field<std::vector<std::pair<std::string, std::string>>>(b, "items", where));
    } else if (kind == "table") {
      // Braced initialisation reads the fields in order: the first missing one is named.
      rep.blocks_.push_back(Table{get_field<std::vector<std::string>>(b, "header", where),
                                  get_field<std::vector<std::string>>(b, "keys", where),
                                  get_field<std::vector<std::vector<std::string>>>(b, "rows", where),
                                  get_field<std::string>(b, "caption", where)});
    } else if (kind == "line") {
      LineChart c;
      c.title = get_field<std::string>(b, "title", where);
      c.x_title = get_field<std::string>(b, "x_title", where);
      c.y_title = get_field<std::string>(b, "y_title", where);
      c.x_min = optional_field(b, "x_min");
      c.x_max = optional_field(b, "x_max");
      c.y_min = optional_field(b, "y_min");
      c.y_max = optional_field(b, "y_max");
      c.y_integer = get_field<bool>(b, "y_integer", where);
      c.x_log = get_field<bool>(b, "x_log", where);
      const nlohmann::json& series = array_field(b, "series", where);
      for (size_t k = 0; k < series.size(); ++k) {
        const std::string w = where + ".series[" + std::to_string(k) + "]";
        ChartSeries s;
        s.label = get_field<std::string>(series[k], "label", w);
        s.x = get_field<std::vector<double>>(series[k], "x", w);
        s.y = get_field<std::vector<double>>(series[k], "y", w);
        s.step = get_field<bool>(series[k], "step", w);
        s.points_only = get_field<bool>(series[k], "points_only", w);
        s.y_low = get_field<std::vector<double>>(series[k], "y_low", w);
        s.y_high = get_field<std::vector<double>>(series[k], "y_high", w);
        if (s.y.size() != s.x.size()) throw std::invalid_argument(w + ".y: not as long as x");
        if (s.y_low.size() != s.y_high.size() || (!s.y_low.empty() && s.y_low.size() != s.x.size()))
          throw std::invalid_argument(w + ".y_low: y_low and y_high are not both empty or as long as x");
        c.series.push_back(std::move(s));
      }
      rep.add_chart(std::move(c));
    } else if (kind == "gantt") {
      GanttChart g;
      g.title = get_field<std::string>(b, "title", where);
      g.x_title = get_field<std::string>(b, "x_title", where);
      g.y_title = get_field<std::string>(b, "y_title", where);
      g.x_min = optional_field(b, "x_min");
      g.x_max = optional_field(b, "x_max");
      g.rows = get_field<std::vector<std::string>>(b, "rows", where);
      const nlohmann::json& bars = array_field(b, "bars", where);
      for (size_t k = 0; k < bars.size(); ++k) {
        const nlohmann::json& bar = bars[k];
        if (!bar.is_array() || bar.size() != 5 || !bar[0].is_number_unsigned() || !bar[1].is_string() ||
            !bar[2].is_number() || !bar[3].is_number() || !bar[4].is_string() || bar[0].get<size_t>() >= g.rows.size())
          throw std::invalid_argument(where + ".bars[" + std::to_string(k) +
                                      "]: expected [row, category, start, end, name], row < the number of rows");
        g.bars.push_back({bar[0].get<size_t>(), bar[2].get<double>(), bar[3].get<double>(), bar[1].get<std::string>(),
                          bar[4].get<std::string>()});
      }
      // Bars in the stored category order, so categories first appear in it (legend and colours).
      const auto categories = get_field<std::vector<std::string>>(b, "categories", where);
      auto rank = [&](const std::string& c) {
        return std::find(categories.begin(), categories.end(), c) - categories.begin();
      };
      std::stable_sort(g.bars.begin(), g.bars.end(),
                       [&](const GanttBar& x, const GanttBar& y) { return rank(x.category) < rank(y.category); });
      rep.add_chart(std::move(g));
    } else {
      throw std::invalid_argument(where + ".kind: unknown block kind '" + kind + "'");
    }
  }
  return rep;
}

void HtmlReport::write(OutputDir& out) const {
  out.write("report.html", render());
  out.write("report.json", to_json().dump() + "\n");
}

void HtmlReport::set_invocation(const nlohmann::json& invocation) { invocation_ = invocation.dump(); }

}  // namespace dmlkit
