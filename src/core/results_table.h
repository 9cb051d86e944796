// The records of a Results as a table to read (issue 20): Results::records_table() holds every
// number at full precision (records.csv); a report or a screen shows this one instead, with one
// precision per column by the naming rule of docs/results-schema.md ("Names on screen and in
// reports"): integers and bools as they are, a time (`*_s`) with 1 decimal when the column reaches
// 100 s and 3 below, every other number (fractions, ratios, utilities) with 3; no "-0.000".
#pragma once
#include "core/results.h"
#include "core/table.h"

namespace dmlkit {

TextTable rounded_records_table(const Results& results);

// The decimals of a column named `name` whose values reach `largest` in magnitude, by the rule
// above: 1 for a time (`*_s`) of 100 s or more, else 3. (Whole-number columns print as integers.)
int column_digits(const std::string& name, double largest);

}  // namespace dmlkit
