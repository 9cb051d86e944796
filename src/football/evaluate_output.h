// Tables, result records and the HTML report of `dmlkit football evaluate` (football/run.h).
#pragma once
#include <string>

#include "core/html_report.h"
#include "core/results.h"
#include "core/table.h"
#include "football/evaluate.h"

namespace dmlkit::football {

// One record per match (and lag setting on timed feeds) plus the pooled "all" record(s); the
// pooled per-class figures and the confusion matrix go to derived.
void add_evaluation_records(Results& res, const Evaluation& ev, const std::string& tagger, uint64_t seed);
// The printed summary: one row per match (and lag setting) and the pooled row.
TextTable evaluation_summary_table(const Evaluation& ev);
TextTable class_table(const TaggingScores& s);
TextTable confusion_table(const TaggingScores& s);
// Every line: match, line, minute, true label, tag, confidence, text.
TextTable lines_table(const Evaluation& ev);
// Every segment of both lag settings and the truth.
TextTable segments_table(const Evaluation& ev);
HtmlReport evaluation_report(const Evaluation& ev, const std::string& tagger, const std::string& setup);

}  // namespace dmlkit::football
