// `dmlkit football train|tag|evaluate|segments|cut|spotting`: each command fills a spec of
// football/run.h, checks it, runs it, and prints or writes what it returns.
#include <ostream>

#include "core/output_dir.h"
#include "dmlkit/commands.h"
#include "dmlkit/option_checks.h"
#include "dmlkit/run_output.h"
#include "football/run.h"

namespace dmlkit::app {
namespace fb = dmlkit::football;
namespace {

// --tagger, --model, --tagger-param, shared by tag, evaluate and segments.
void add_tagger_options(CLI::App& cmd, fb::TaggerChoice& o) {
  cmd.add_option("--tagger", o.tagger, "Tagger (see `dmlkit football taggers -v`)")->capture_default_str();
  cmd.add_option("--model", o.model,
                 "Model file of a trained tagger (default: the shipped data/football/models/ngram-mlp.json)");
  cmd.add_option("--tagger-param", o.params, "Tagger knob key=value (repeatable), e.g. ngram-mlp.hmm=1");
}

struct TrainOptions {
  fb::TrainSpec spec;
  std::string out = "out/football-train";
  std::string format = "table";
};

void add_train(CLI::App& football, Context& ctx) {
  auto& o = ctx.make<TrainOptions>();
  auto* cmd = football.add_subcommand("train", "Train the ngram-mlp tagger; writes OUT/ngram-mlp.json");
  cmd->add_option("--lines", o.spec.lines,
                  "Labelled lines: feed .json or CSV minute,text,label (default: the two shipped feed matches)")
      ->delimiter(',');
  cmd->add_option("--tagger-param", o.spec.params, "Training knob key=value (repeatable), e.g. ngram-mlp.epochs=40");
  cmd->add_option("--seed", o.spec.seed, "Seed of the initial weights and the batch order")->capture_default_str();
  add_output_options(*cmd, o.out, o.format);
  cmd->callback([&] {
    ctx.run = [&] {
      fb::check(o.spec);
      OutputDir out(o.out);
      const fb::TrainOutput result = fb::run(o.spec);
      result.write(out);
      const std::string path = commit_output(out);
      ctx.out << result.summary_text(o.format, path);
      return 0;
    };
  });
}

struct TagOptions {
  fb::TagSpec spec;
};

void add_tag(CLI::App& football, Context& ctx) {
  auto& o = ctx.make<TagOptions>();
  auto* cmd = football.add_subcommand("tag", "Tag the lines of a file; prints CSV minute,label,confidence,text");
  cmd->add_option("--lines", o.spec.lines, "Live text: CSV minute,text[,label] or the feed's .json")->required();
  add_tagger_options(*cmd, o.spec.tagger);
  cmd->callback([&] {
    ctx.run = [&] {
      ctx.out << fb::run(o.spec).to_csv();
      return 0;
    };
  });
}

struct EvaluateOptions {
  fb::EvaluateSpec spec;
  std::string out = "out/football-evaluate";
  std::string format = "table";
};

void add_evaluate(CLI::App& football, Context& ctx) {
  auto& o = ctx.make<EvaluateOptions>();
  auto& s = o.spec;
  auto* cmd =
      football.add_subcommand("evaluate", "Score a tagger (and, on feeds with true times, its segments and spots)");
  cmd->add_option("--lines", s.lines,
                  "Labelled lines: CSV minute,text,label (coarse labels) or feed .json; comma-separated "
                  "(default: the two shipped feed matches)")
      ->delimiter(',');
  add_tagger_options(*cmd, s.tagger);
  cmd->add_flag("--lomo", s.lomo, "Leave one match out: train a trainable tagger on the other files for each file");
  cmd->add_option("--seed", s.seed, "Training seed (--lomo)")->capture_default_str();
  cmd->add_option("--max-gap-s", s.max_gap_s, "Merge successive same-label lines at most this far apart (s)")
      ->check(at_least(0))
      ->capture_default_str();
  cmd->add_option("--padding", s.padding, "Per-label padding label=pre_s:post_s,... (defaults in docs/football.md)");
  add_output_options(*cmd, o.out, o.format);
  cmd->callback([&] {
    ctx.run = [&] {
      fb::check(o.spec);
      OutputDir out(o.out);
      const fb::EvaluateOutput result = fb::run(o.spec);
      result.write(out);
      const std::string path = commit_output(out);
      ctx.out << result.summary_text(o.format);
      print_output_location(ctx, o.format, path);
      return 0;
    };
  });
}

struct SegmentsOptions {
  fb::SegmentsSpec spec;
  std::string out = "out/football-segments";
  std::string format = "table";
};

void add_segments(CLI::App& football, Context& ctx) {
  auto& o = ctx.make<SegmentsOptions>();
  auto& s = o.spec;
  auto* cmd = football.add_subcommand("segments",
                                      "Live text -> tagged, merged, video-timed highlight segments (segments.json)");
  cmd->add_option("--lines", s.lines, "Live text: CSV minute,text[,label] or the feed's .json")->required();
  add_tagger_options(*cmd, s.tagger);
  cmd->add_option("--kickoffs", s.kickoffs,
                  "Video second of each period's kick-off, comma-separated (a feed's own: "
                  "its wall clock since the first kick-off)")
      ->delimiter(',');
  cmd->add_option("--lag-s", s.lag_s,
                  "Seconds the live text lags the video (subtracted; `football evaluate` estimates it)")
      ->capture_default_str();
  cmd->add_option("--max-gap-s", s.max_gap_s, "Merge successive same-label lines at most this far apart (s)")
      ->check(at_least(0))
      ->capture_default_str();
  cmd->add_option("--padding", s.padding, "Per-label padding label=pre_s:post_s,... (defaults in docs/football.md)");
  cmd->add_option("--events", s.events,
                  "Refine with an event stream: IDSSE XML, Wyscout JSON, SoccerNet labels or "
                  "predictions JSON (a video model's output)");
  cmd->add_option("--events-format", s.events_format, "auto, idsse, wyscout, soccernet, feed")->capture_default_str();
  cmd->add_option("--search-s", s.search_s, "Refinement looks this far beyond each segment (s)")
      ->check(at_least(0))
      ->capture_default_str();
  cmd->add_option("--min-confidence", s.min_confidence, "Refinement ignores spots below this confidence")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  add_output_options(*cmd, o.out, o.format);
  cmd->callback([&] {
    ctx.run = [&] {
      fb::check(o.spec);
      OutputDir out(o.out);
      const fb::SegmentsOutput result = fb::run(o.spec);
      result.write(out);
      const std::string path = commit_output(out);
      ctx.out << result.summary_text(o.format, path);
      if (o.format != "table") ctx.err << "output: " << path << "\n";
      return 0;
    };
  });
}

struct CutCmdOptions {
  fb::CutSpec spec;
  std::string out = "out/football-cut";
  std::string format = "table";
};

void add_cut(CLI::App& football, Context& ctx) {
  auto& o = ctx.make<CutCmdOptions>();
  auto* cmd = football.add_subcommand(
      "cut", "Cut the segments out of the match video with FFmpeg; writes clips and a playlist");
  cmd->add_option("--video", o.spec.video, "The match video")->required();
  cmd->add_option("--segments", o.spec.segments, "segments.json (from `dmlkit football segments`)")->required();
  cmd->add_option("--mode", o.spec.mode,
                  "auto (stream copy when a keyframe starts the clip, else re-encode), copy, reencode")
      ->check(CLI::IsMember({"auto", "copy", "reencode"}))
      ->capture_default_str();
  add_output_options(*cmd, o.out, o.format);
  cmd->callback([&] {
    ctx.run = [&] {
      fb::check(o.spec);
      OutputDir out(o.out, {o.spec.video, o.spec.segments});
      const fb::CutOutput result = fb::run(o.spec, out);
      const std::string path = commit_output(out);
      ctx.out << result.summary_text(o.format, o.spec.video, path);
      if (o.format != "table") ctx.err << "output: " << path << "\n";
      return 0;
    };
  });
}

struct SpottingOptions {
  fb::SpottingSpec spec;
  std::string format = "table";
};

void add_spotting(CLI::App& football, Context& ctx) {
  auto& o = ctx.make<SpottingOptions>();
  auto* cmd = football.add_subcommand("spotting",
                                      "SoccerNet average-mAP (loose and tight) of prediction files against "
                                      "Labels-v2.json files, as SoccerNet's evaluation computes it");
  cmd->add_option("--labels", o.spec.labels, "Ground truth, one SoccerNet Labels-v2.json per game (comma-separated)")
      ->delimiter(',')
      ->required();
  cmd->add_option("--predictions", o.spec.predictions,
                  "Predictions, one SoccerNet results_spotting.json per game, same order")
      ->delimiter(',')
      ->required();
  cmd->add_option("--dictionary", o.spec.dictionary,
                  "Classes scored: soccernet (the 17 SoccerNet-v2 classes, as SoccerNet) or "
                  "coarse (the coarse labels but other)")
      ->check(CLI::IsMember({"soccernet", "coarse"}))
      ->capture_default_str();
  cmd->add_option("--format", o.format, "What to print: table or json")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  cmd->callback([&] {
    ctx.run = [&] {
      ctx.out << fb::run(o.spec).summary_text(o.format);
      return 0;
    };
  });
}

}  // namespace

void add_football_run_commands(CLI::App& football, Context& ctx) {
  add_train(football, ctx);
  add_tag(football, ctx);
  add_evaluate(football, ctx);
  add_segments(football, ctx);
  add_cut(football, ctx);
  add_spotting(football, ctx);
}

}  // namespace dmlkit::app
