// `dmlkit football ...`: event detection and highlight segments from live text (docs/football.md).
// labels: the label sets and their mappings; taggers: the taggers and their knobs; train: trains
// the ngram-mlp tagger into a model file; tag: labels the lines of a file; evaluate: tagging,
// segment and spotting scores on labelled lines (leave-one-match-out with --lomo); segments: the
// pipeline from lines to segments.json (optionally refined by an event stream); cut: clips and a
// playlist from a video and segments.json with FFmpeg; spotting: SoccerNet average-mAP of prediction
// files against Labels-v2.json files.
// This file: the listings and the command group; the runs are football_runs.cpp.
#include <ostream>

#include "dmlkit/commands.h"
#include "dmlkit/run_output.h"
#include "football/labels.h"
#include "football/tagger.h"

namespace dmlkit::app {
namespace fb = dmlkit::football;

// football_runs.cpp: train, tag, evaluate, segments, cut, spotting.
void add_football_run_commands(CLI::App& football, Context& ctx);

namespace {

void add_labels(CLI::App& football, Context& ctx) {
  auto& verbose = ctx.make<bool>();
  auto* cmd = football.add_subcommand("labels", "List the label sets and the mappings between them");
  cmd->add_flag("-v,--verbose", verbose, "Also print the SoccerNet-v2 classes and the feed's types with their mapping");
  cmd->callback([&] {
    ctx.run = [&] {
      ctx.out << "coarse labels (what taggers predict):\n";
      for (const auto& l : fb::coarse_labels()) ctx.out << "  " << l << "\n";
      if (!verbose) return 0;
      ctx.out << "\nSoccerNet-v2 classes -> coarse:\n";
      for (const auto& s : fb::soccernet_v2_labels())
        ctx.out << "  " << s << "\t" << *fb::soccernet_to_coarse(s) << "\n";
      ctx.out << "\ncoarse -> SoccerNet-v2 class written in prediction files:\n";
      for (const auto& l : fb::coarse_labels())
        ctx.out << "  " << l << "\t"
                << (fb::coarse_to_soccernet(l).empty() ? "(not written)" : fb::coarse_to_soccernet(l)) << "\n";
      ctx.out << "\nfeed (appsync) type -> coarse, SoccerNet-v2:\n";
      for (const auto& f : fb::feed_labels())
        ctx.out << "  " << f.feed << "\t" << f.coarse << "\t" << (f.soccernet.empty() ? "-" : f.soccernet)
                << (f.note.empty() ? "" : "\t" + f.note) << "\n";
      return 0;
    };
  });
}

void add_taggers(CLI::App& football, Context& ctx) {
  auto& verbose = ctx.make<bool>();
  auto* cmd = football.add_subcommand("taggers", "List the taggers")->alias("list");
  cmd->add_flag("-v,--verbose", verbose, "Also print each tagger's summary, model and knobs (--tagger-param)");
  auto& format = ctx.make<std::string>();
  add_list_format_option(*cmd, format);
  cmd->callback([&] {
    ctx.run = [&] {
      const auto kind = [](const fb::TaggerEntry& e) {
        return std::string(e.traits.trainable ? "trained" : "rules") +
               (e.name == fb::kDefaultTagger ? " (default)" : "");
      };
      const auto notes = [](const fb::TaggerEntry& e) {
        std::vector<std::string> n;
        if (!e.traits.default_model.empty()) n.push_back("model: data/" + e.traits.default_model);
        return n;
      };
      if (format == "json")
        fb::tagger_registry().print_json(ctx.out, kind, notes, "kind");
      else
        fb::tagger_registry().print(ctx.out, verbose, kind, notes);
      return 0;
    };
  });
}

}  // namespace

void add_football_commands(CLI::App& app, Context& ctx) {
  auto* football = app.add_subcommand("football", "Football event detection and highlight segments from live text");
  football->require_subcommand(1);
  add_labels(*football, ctx);
  add_taggers(*football, ctx);
  add_football_run_commands(*football, ctx);
}

}  // namespace dmlkit::app
