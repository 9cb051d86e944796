// `sweep collect`: every finished cell's results.json merged into one results table (the envelope
// of docs/results-schema.md, core/results.h), each record with the cell's axis values added to its
// params (every axis but `seed`, so the summary groups over seeds), and a report with one chart
// per metric against each numeric axis (mean over seeds with the min-max spread, one line per
// policy/scheduler/...), plus the summary table. Cells are read in plan order, so the output does
// not depend on the order in which cells ran or finished.
#pragma once
#include <string>
#include <vector>

#include "core/html_report.h"
#include "core/results.h"
#include "core/table.h"
#include "sweep/sweep_dir.h"

namespace dmlkit::sweep {

struct Collected {
  Results results{"sweep collect", "record"};
  size_t cells = 0;                  // in the plan
  std::vector<std::string> missing;  // cells with no (complete) results.json, plan order
  std::vector<std::string> failed;   // of those, the ones whose last attempt failed: "NAME: error"
};

// Reads every cell of `plan` in DIR.
Collected collect_sweep(const std::string& dir, const Plan& plan);

// The HTML report (core/html_report.h) of a collected sweep.
HtmlReport sweep_report(const Plan& plan, const Collected& c);

// The summary over seeds as one table: name, params, runs, then per metric its mean under the
// metric's name and, when a configuration ran more than once, X_sd (sample standard deviation),
// one precision per column (core/results_table.h: column_digits; integers when all are whole).
// The report's table and what collect prints.
TextTable compact_summary(const Results& results);

// The numeric axes (every cell's value a number), `seed` left out: the x axes of the charts.
std::vector<std::string> numeric_axes(const Plan& plan);

}  // namespace dmlkit::sweep
