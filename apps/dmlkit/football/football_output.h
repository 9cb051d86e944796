// Tables, result records and the HTML report of `dmlkit football evaluate` (football_commands.cpp).
#pragma once
#include <string>

#include "core/html_report.h"
#include "core/results.h"
#include "core/table.h"
#include "football/evaluate.h"

namespace dmlkit::app {

// One record per match (and lag setting on timed feeds) plus the pooled "all" record(s); the
// pooled per-class figures and the confusion matrix go to derived.
void add_football_records(Results& res, const football::Evaluation& ev, const std::string& tagger, uint64_t seed);
// The printed summary: one row per match (and lag setting) and the pooled row.
TextTable football_summary_table(const football::Evaluation& ev);
TextTable football_class_table(const football::TaggingScores& s);
TextTable football_confusion_table(const football::TaggingScores& s);
// Every line: match, line, minute, true label, tag, confidence, text.
TextTable football_lines_table(const football::Evaluation& ev);
// Every segment of both lag settings and the truth.
TextTable football_segments_table(const football::Evaluation& ev);
HtmlReport football_report(const football::Evaluation& ev, const std::string& tagger, const std::string& setup);

}  // namespace dmlkit::app
