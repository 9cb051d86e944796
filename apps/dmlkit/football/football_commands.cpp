// `dmlkit football ...`: event detection and highlight segments from live text (docs/football.md).
// labels: the label sets and their mappings; taggers: the taggers and their knobs; train: trains
// the ngram-mlp tagger into a model file; tag: labels the lines of a file; evaluate: tagging,
// segment and spotting scores on labelled lines (leave-one-match-out with --lomo); segments: the
// pipeline from lines to segments.json (optionally refined by an event stream); cut: clips and a
// playlist from a video and segments.json with FFmpeg; spotting: SoccerNet average-mAP of prediction
// files against Labels-v2.json files.
#include <algorithm>
#include <filesystem>
#include <ostream>

#include "core/data_dir.h"
#include "core/error.h"
#include "core/output_dir.h"
#include "core/results.h"
#include "core/table.h"
#include "dmlkit/commands.h"
#include "dmlkit/football/football_output.h"
#include "dmlkit/option_checks.h"
#include "dmlkit/run_output.h"
#include "football/cut.h"
#include "football/evaluate.h"
#include "football/event_stream.h"
#include "football/labels.h"
#include "football/ngram_mlp.h"
#include "football/refine.h"
#include "football/spotting_map.h"
#include "football/tagger.h"

namespace dmlkit::app {
namespace fb = dmlkit::football;
namespace {

std::vector<std::string> shipped_feeds() {
  return {data_path("football/appsync/so0102sim_match_02.json"), data_path("football/appsync/so0102sim_match_03.json")};
}

std::vector<fb::MatchText> read_all(const std::vector<std::string>& paths) {
  if (paths.empty()) throw Error("", 0, "lines", "no file given");
  std::vector<fb::MatchText> out;
  for (const auto& p : paths) out.push_back(fb::read_match_text(p));
  return out;
}

// --tagger, --model, --tagger-param, shared by tag, evaluate and segments.
struct TaggerOptions {
  std::string tagger = fb::kDefaultTagger;
  std::string model;
  std::vector<std::string> params;
};

void add_tagger_options(CLI::App& cmd, TaggerOptions& o) {
  cmd.add_option("--tagger", o.tagger, "Tagger (see `dmlkit football taggers -v`)")->capture_default_str();
  cmd.add_option("--model", o.model, "Model file of a trained tagger (default: the shipped data/football/models/ngram-mlp.json)");
  cmd.add_option("--tagger-param", o.params, "Tagger knob key=value (repeatable), e.g. ngram-mlp.hmm=1");
}

KnobValues tagger_knobs(const TaggerOptions& o) {
  KnobValues v;
  add_knob_values(v, o.params, "--tagger-param");
  fb::tagger_registry().check_knobs({o.tagger}, v);
  if (!o.model.empty() && !fb::tagger_registry().get(o.tagger).traits.trainable)
    throw Error("--model: tagger '" + o.tagger + "' takes no model");
  if (!o.model.empty() && !std::filesystem::exists(o.model)) throw Error(o.model, 0, "", "no such model file");
  return v;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

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
      for (const auto& s : fb::soccernet_v2_labels()) ctx.out << "  " << s << "\t" << *fb::soccernet_to_coarse(s) << "\n";
      ctx.out << "\ncoarse -> SoccerNet-v2 class written in prediction files:\n";
      for (const auto& l : fb::coarse_labels())
        ctx.out << "  " << l << "\t" << (fb::coarse_to_soccernet(l).empty() ? "(not written)" : fb::coarse_to_soccernet(l)) << "\n";
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

struct TrainOptions {
  std::vector<std::string> lines;
  std::vector<std::string> params;
  uint64_t seed = 1;
  std::string out = "out/football-train";
  std::string format = "table";
};

void add_train(CLI::App& football, Context& ctx) {
  auto& o = ctx.make<TrainOptions>();
  auto* cmd = football.add_subcommand("train", "Train the ngram-mlp tagger; writes OUT/ngram-mlp.json");
  cmd->add_option("--lines", o.lines, "Labelled lines: feed .json or CSV minute,text,label (default: the two shipped feed matches)")
      ->delimiter(',');
  cmd->add_option("--tagger-param", o.params, "Training knob key=value (repeatable), e.g. ngram-mlp.epochs=40");
  cmd->add_option("--seed", o.seed, "Seed of the initial weights and the batch order")->capture_default_str();
  add_output_options(*cmd, o.out, o.format);
  cmd->callback([&] {
    ctx.run = [&] {
      if (o.lines.empty()) o.lines = shipped_feeds();
      KnobValues v;
      add_knob_values(v, o.params, "--tagger-param");
      fb::tagger_registry().check_knobs({"ngram-mlp"}, v);
      const auto& e = fb::tagger_registry().get("ngram-mlp");
      const Knobs knobs(v, e.knobs, "--tagger-param");
      const auto matches = read_all(o.lines);
      OutputDir out(o.out);
      fb::NgramMlpModel model = fb::train_ngram_mlp(matches, fb::ngram_mlp_config(knobs, o.seed));
      std::vector<std::string> names;
      for (const auto& m : matches) names.push_back(std::filesystem::path(m.path).filename().string());
      std::string params;
      for (const auto& p : o.params) params += " --tagger-param " + p;
      model.meta["command"] = "dmlkit football train --lines " + join(names) + " --seed " + std::to_string(o.seed) + params;
      model.meta["training_files"] = join(names);
      fb::save_ngram_mlp(out.staged_path("ngram-mlp.json"), model);
      Results res("football train", "tagger");
      res.inputs()["lines"] = names;
      res.inputs()["tagger_params"] = o.params;
      res.inputs()["seeds"] = nlohmann::ordered_json::array({o.seed});
      auto& r = res.add("ngram-mlp", o.seed);
      r.metrics["training_lines"] = model.training_lines;
      r.metrics["final_loss"] = model.final_loss;
      r.metrics["parameters"] = model.parameters.size();
      r.files["model"] = "ngram-mlp.json";
      res.write(out);
      const std::string path = commit_output(out);
      if (o.format == "json") ctx.out << res.json_text();
      else if (o.format == "csv") ctx.out << res.records_table().to_csv();
      else
        ctx.out << "trained ngram-mlp on " << model.training_lines << " lines, final loss " << fixed(model.final_loss, 4)
                << "\nmodel: " << path << "/ngram-mlp.json\n";
      return 0;
    };
  });
}

struct TagOptions {
  std::string lines;
  TaggerOptions tagger;
};

void add_tag(CLI::App& football, Context& ctx) {
  auto& o = ctx.make<TagOptions>();
  auto* cmd = football.add_subcommand("tag", "Tag the lines of a file; prints CSV minute,label,confidence,text");
  cmd->add_option("--lines", o.lines, "Live text: CSV minute,text[,label] or the feed's .json")->required();
  add_tagger_options(*cmd, o.tagger);
  cmd->callback([&] {
    ctx.run = [&] {
      const KnobValues knobs = tagger_knobs(o.tagger);
      const auto m = fb::read_match_text(o.lines);
      const auto tags = fb::make_tagger(o.tagger.tagger, {o.tagger.model}, knobs)->tag(m.lines);
      TextTable t({"minute", "label", "confidence", "text"});
      for (size_t i = 0; i < m.lines.size(); ++i)
        t.add_row({m.lines[i].minute.text, fb::coarse_labels()[tags[i].label], fixed(tags[i].confidence, 4), m.lines[i].text});
      ctx.out << t.to_csv();
      return 0;
    };
  });
}

struct EvaluateOptions {
  std::vector<std::string> lines;
  TaggerOptions tagger;
  bool lomo = false;
  uint64_t seed = 1;
  double max_gap_s = 60;
  std::string padding;
  std::string out = "out/football-evaluate";
  std::string format = "table";
};

void add_evaluate(CLI::App& football, Context& ctx) {
  auto& o = ctx.make<EvaluateOptions>();
  auto* cmd = football.add_subcommand("evaluate", "Score a tagger (and, on feeds with true times, its segments and spots)");
  cmd->add_option("--lines", o.lines, "Labelled lines: CSV minute,text,label (coarse labels) or feed .json; comma-separated "
                                      "(default: the two shipped feed matches)")
      ->delimiter(',');
  add_tagger_options(*cmd, o.tagger);
  cmd->add_flag("--lomo", o.lomo, "Leave one match out: train a trainable tagger on the other files for each file");
  cmd->add_option("--seed", o.seed, "Training seed (--lomo)")->capture_default_str();
  cmd->add_option("--max-gap-s", o.max_gap_s, "Merge successive same-label lines at most this far apart (s)")
      ->check(at_least(0))
      ->capture_default_str();
  cmd->add_option("--padding", o.padding, "Per-label padding label=pre_s:post_s,... (defaults in docs/football.md)");
  add_output_options(*cmd, o.out, o.format);
  cmd->callback([&] {
    ctx.run = [&] {
      if (o.lines.empty()) o.lines = shipped_feeds();
      if (o.lomo && !o.tagger.model.empty()) throw Error("--model: not used with --lomo (each held-out match trains its own)");
      fb::PipelineConfig c;
      c.tagger = o.tagger.tagger;
      c.model_path = o.tagger.model;
      c.knobs = tagger_knobs(o.tagger);
      c.lomo = o.lomo;
      c.seed = o.seed;
      c.max_gap_s = o.max_gap_s;
      fb::parse_padding(o.padding, c.padding);
      const auto matches = read_all(o.lines);
      for (const auto& m : matches) {
        bool labelled = false;
        for (const auto& l : m.lines) labelled = labelled || l.label >= 0;
        if (!labelled) throw Error(m.path, 0, "label", "no labelled line to evaluate against");
      }
      OutputDir out(o.out);
      const fb::Evaluation ev = fb::evaluate_pipeline(matches, c);
      Results res("football evaluate", "tagger");
      auto& in = res.inputs();
      std::vector<std::string> names;
      for (const auto& m : matches) names.push_back(m.path);
      in["lines"] = names;
      in["tagger"] = c.tagger;
      in["model"] = c.model_path.empty() && !o.lomo ? fb::tagger_registry().get(c.tagger).traits.default_model : c.model_path;
      in["tagger_params"] = o.tagger.params;
      in["lomo"] = o.lomo;
      in["max_gap_s"] = o.max_gap_s;
      auto& pad = in["padding"] = nlohmann::ordered_json::object();
      for (int y = 0; y < fb::coarse_count(); ++y) pad[fb::coarse_labels()[y]] = {c.padding[y].pre_s, c.padding[y].post_s};
      in["seeds"] = nlohmann::ordered_json::array({o.seed});
      add_football_records(res, ev, c.tagger, o.seed);
      res.write(out);
      out.write("lines.csv", football_lines_table(ev).to_csv());
      out.write("per_class.csv", football_class_table(ev.tagging).to_csv());
      out.write("confusion.csv", football_confusion_table(ev.tagging).to_csv());
      if (ev.timed) out.write("segments.csv", football_segments_table(ev).to_csv());
      const bool trainable = fb::tagger_registry().get(c.tagger).traits.trainable;
      const std::string setup = !trainable ? std::string("rules (nothing trained)")
                                : o.lomo   ? std::string("leave-one-match-out (trained per held-out match on the others)")
                                           : "model as given (" + (c.model_path.empty() ? std::string("shipped") : c.model_path) + ")";
      football_report(ev, c.tagger, setup).write(out);
      const std::string path = commit_output(out);
      if (o.format == "json") {
        ctx.out << res.json_text();
      } else if (o.format == "csv") {
        ctx.out << football_summary_table(ev).to_csv();
      } else {
        ctx.out << "tagger " << c.tagger << ", " << setup << "\n\n"
                << football_summary_table(ev).render() << "\n"
                << football_class_table(ev.tagging).render();
      }
      print_output_location(ctx, o.format, path);
      return 0;
    };
  });
}

struct SegmentsOptions {
  std::string lines;
  TaggerOptions tagger;
  std::vector<double> kickoffs;
  double lag_s = 0;
  double max_gap_s = 60;
  std::string padding;
  std::string events;
  std::string events_format = "auto";
  double search_s = 30;
  double min_confidence = 0;
  std::string out = "out/football-segments";
  std::string format = "table";
};

void add_segments(CLI::App& football, Context& ctx) {
  auto& o = ctx.make<SegmentsOptions>();
  auto* cmd = football.add_subcommand("segments", "Live text -> tagged, merged, video-timed highlight segments (segments.json)");
  cmd->add_option("--lines", o.lines, "Live text: CSV minute,text[,label] or the feed's .json")->required();
  add_tagger_options(*cmd, o.tagger);
  cmd->add_option("--kickoffs", o.kickoffs, "Video second of each period's kick-off, comma-separated (a feed's own: "
                                            "its wall clock since the first kick-off)")
      ->delimiter(',');
  cmd->add_option("--lag-s", o.lag_s, "Seconds the live text lags the video (subtracted; `football evaluate` estimates it)")
      ->capture_default_str();
  cmd->add_option("--max-gap-s", o.max_gap_s, "Merge successive same-label lines at most this far apart (s)")
      ->check(at_least(0))
      ->capture_default_str();
  cmd->add_option("--padding", o.padding, "Per-label padding label=pre_s:post_s,... (defaults in docs/football.md)");
  cmd->add_option("--events", o.events, "Refine with an event stream: IDSSE XML, Wyscout JSON, SoccerNet labels or "
                                        "predictions JSON (a video model's output)");
  cmd->add_option("--events-format", o.events_format, "auto, idsse, wyscout, soccernet, feed")->capture_default_str();
  cmd->add_option("--search-s", o.search_s, "Refinement looks this far beyond each segment (s)")
      ->check(at_least(0))
      ->capture_default_str();
  cmd->add_option("--min-confidence", o.min_confidence, "Refinement ignores spots below this confidence")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  add_output_options(*cmd, o.out, o.format);
  cmd->callback([&] {
    ctx.run = [&] {
      const KnobValues knobs = tagger_knobs(o.tagger);
      std::vector<fb::Padding> padding = fb::default_padding();
      fb::parse_padding(o.padding, padding);
      const auto m = fb::read_match_text(o.lines);
      fb::VideoClock clock;
      if (!o.kickoffs.empty()) clock.kickoff_s = o.kickoffs;
      else if (m.has_true_times()) clock = fb::feed_clock(m);
      else throw Error("--kickoffs: required for a CSV (the video second of each period's kick-off)");
      for (size_t i = 0; i < clock.kickoff_s.size(); ++i)
        if (!(clock.kickoff_s[i] >= 0) || (i > 0 && clock.kickoff_s[i] <= clock.kickoff_s[i - 1]))
          throw Error("--kickoffs: must be >= 0 and increasing");
      clock.lag_s = o.lag_s;
      OutputDir out(o.out);
      const auto tags = fb::make_tagger(o.tagger.tagger, {o.tagger.model}, knobs)->tag(m.lines);
      const auto units = fb::merge_units(m.lines, tags, clock, o.max_gap_s);
      auto segments = fb::make_segments(units, m.lines, padding);
      fb::RefineStats rs;
      if (!o.events.empty()) {
        const fb::EventStream stream = fb::read_event_stream(o.events, o.events_format);
        fb::VideoClock stream_clock = clock;
        stream_clock.lag_s = 0;
        rs = fb::refine_segments(segments, fb::EventStreamRefiner(stream, stream_clock, o.min_confidence), o.search_s);
      }
      nlohmann::ordered_json in;
      in["lines"] = o.lines;
      in["tagger"] = o.tagger.tagger;
      in["model"] = o.tagger.model;
      in["kickoffs_s"] = clock.kickoff_s;
      in["lag_s"] = o.lag_s;
      in["max_gap_s"] = o.max_gap_s;
      in["events"] = o.events;
      out.write("segments.json", fb::segments_json(segments, in));
      std::vector<fb::TimedEvent> spots;
      for (const auto& s : segments) {
        fb::TimedEvent e;
        e.period = s.period;
        e.t_s = s.spot_s - clock.kickoff_s[s.period - 1];
        e.label = s.label;
        e.confidence = s.confidence;
        spots.push_back(e);
      }
      out.write("results_spotting.json", fb::soccernet_predictions_json(spots, m.name));
      TextTable t({"label", "minute", "start_s", "end_s", "lines", "confidence", "refined", "text"});
      for (const auto& s : segments)
        t.add_row({fb::coarse_labels()[s.label], s.minute, fixed(s.start_s, 1), fixed(s.end_s, 1), std::to_string(s.lines),
                   fixed(s.confidence, 3), s.refined ? "1" : "0", s.text});
      out.write("segments.csv", t.to_csv());
      const std::string path = commit_output(out);
      if (o.format == "json") {
        ctx.out << fb::segments_json(segments, in);
      } else if (o.format == "csv") {
        ctx.out << t.to_csv();
      } else {
        ctx.out << m.lines.size() << " lines, " << units.size() << " merged units, " << segments.size() << " segments";
        if (!o.events.empty()) ctx.out << ", " << rs.refined << " refined (mean shift " << fixed(rs.mean_shift_s, 1) << " s)";
        ctx.out << "\n\n" << t.render() << "\nsegments: " << path << "/segments.json\n";
      }
      if (o.format != "table") ctx.err << "output: " << path << "\n";
      return 0;
    };
  });
}

struct CutCmdOptions {
  std::string video;
  std::string segments;
  std::string mode = "auto";
  std::string out = "out/football-cut";
  std::string format = "table";
};

void add_cut(CLI::App& football, Context& ctx) {
  auto& o = ctx.make<CutCmdOptions>();
  auto* cmd = football.add_subcommand("cut", "Cut the segments out of the match video with FFmpeg; writes clips and a playlist");
  cmd->add_option("--video", o.video, "The match video")->required();
  cmd->add_option("--segments", o.segments, "segments.json (from `dmlkit football segments`)")->required();
  cmd->add_option("--mode", o.mode, "auto (stream copy when a keyframe starts the clip, else re-encode), copy, reencode")
      ->check(CLI::IsMember({"auto", "copy", "reencode"}))
      ->capture_default_str();
  add_output_options(*cmd, o.out, o.format);
  cmd->callback([&] {
    ctx.run = [&] {
      if (!std::filesystem::exists(o.segments)) throw Error(o.segments, 0, "", "no such file");
      const auto segments = fb::read_segments_json(o.segments);
      const fb::VideoInfo info = fb::probe_video(o.video);
      OutputDir out(o.out, {o.video, o.segments});
      fb::CutOptions co;
      co.mode = o.mode;
      const auto clips = fb::cut_segments(o.video, info, segments, o.segments, out, co);
      const std::string path = commit_output(out);
      TextTable t({"file", "label", "start_s", "end_s", "stream_copy", "clamped"});
      for (const auto& c : clips)
        t.add_row({c.file, fb::coarse_labels()[c.segment.label], fixed(c.start_s, 3), fixed(c.end_s, 3),
                   c.stream_copy ? "1" : "0", c.clamped ? "1" : "0"});
      if (o.format == "csv") ctx.out << t.to_csv();
      else if (o.format == "json") {
        nlohmann::ordered_json j = nlohmann::ordered_json::array();
        for (const auto& c : clips)
          j.push_back({{"file", c.file}, {"label", fb::coarse_labels()[c.segment.label]}, {"start_s", c.start_s},
                       {"end_s", c.end_s}, {"stream_copy", c.stream_copy}, {"clamped", c.clamped}});
        ctx.out << j.dump(2) << "\n";
      } else {
        ctx.out << clips.size() << " clips from " << o.video << " (" << fixed(info.duration_s, 1) << " s)\n\n" << t.render()
                << "\nplaylist: " << path << "/highlights.m3u\n";
      }
      if (o.format != "table") ctx.err << "output: " << path << "\n";
      return 0;
    };
  });
}


struct SpottingOptions {
  std::vector<std::string> labels, predictions;
  std::string dictionary = "soccernet";
  std::string format = "table";
};

void add_spotting(CLI::App& football, Context& ctx) {
  auto& o = ctx.make<SpottingOptions>();
  auto* cmd = football.add_subcommand("spotting", "SoccerNet average-mAP (loose and tight) of prediction files against "
                                                  "Labels-v2.json files, as SoccerNet's evaluation computes it");
  cmd->add_option("--labels", o.labels, "Ground truth, one SoccerNet Labels-v2.json per game (comma-separated)")
      ->delimiter(',')
      ->required();
  cmd->add_option("--predictions", o.predictions, "Predictions, one SoccerNet results_spotting.json per game, same order")
      ->delimiter(',')
      ->required();
  cmd->add_option("--dictionary", o.dictionary, "Classes scored: soccernet (the 17 SoccerNet-v2 classes, as SoccerNet) or "
                                                "coarse (the coarse labels but other)")
      ->check(CLI::IsMember({"soccernet", "coarse"}))
      ->capture_default_str();
  cmd->add_option("--format", o.format, "What to print: table or json")->check(CLI::IsMember({"table", "json"}))->capture_default_str();
  cmd->callback([&] {
    ctx.run = [&] {
      if (o.labels.size() != o.predictions.size())
        throw Error("--predictions: " + std::to_string(o.predictions.size()) + " files for " +
                    std::to_string(o.labels.size()) + " --labels files");
      const bool sn = o.dictionary == "soccernet";
      const auto& names = sn ? fb::soccernet_v2_labels() : fb::coarse_labels();
      std::vector<int> classes;
      for (int c = 0; c < static_cast<int>(names.size()); ++c)
        if (sn || c != fb::kOther) classes.push_back(c);
      // SoccerNet's dictionary: events are keyed by their SoccerNet class; other labels are skipped.
      auto keyed = [&](std::vector<fb::TimedEvent> ev) {
        std::vector<fb::TimedEvent> out;
        for (auto& e : ev) {
          if (sn) {
            const auto it = std::find(names.begin(), names.end(), e.source_label);
            if (it == names.end()) continue;
            e.label = static_cast<int>(it - names.begin());
          } else if (e.label == fb::kOther) {
            continue;
          }
          out.push_back(e);
        }
        return out;
      };
      std::vector<fb::SpottingGame> games;
      for (size_t i = 0; i < o.labels.size(); ++i) {
        const auto truth = fb::read_soccernet_json(o.labels[i]);
        const auto preds = fb::read_soccernet_json(o.predictions[i]);
        if (truth.format != "soccernet-labels") throw Error(o.labels[i], 0, "annotations", "not a Labels-v2.json file");
        if (preds.format != "soccernet-predictions") throw Error(o.predictions[i], 0, "predictions", "not a prediction file");
        games.push_back({keyed(truth.events), keyed(preds.events)});
      }
      const auto loose = fb::average_map(games, classes, fb::loose_deltas_s());
      const auto tight = fb::average_map(games, classes, fb::tight_deltas_s());
      if (o.format == "json") {
        nlohmann::ordered_json j;
        j["dictionary"] = o.dictionary;
        j["games"] = games.size();
        j["a_mAP_loose"] = loose.average_map;
        j["a_mAP_tight"] = tight.average_map;
        auto& pc = j["a_mAP_per_class"] = nlohmann::ordered_json::object();
        for (size_t k = 0; k < classes.size(); ++k)
          pc[names[classes[k]]] = {{"loose", loose.average_ap_per_class[k]}, {"tight", tight.average_ap_per_class[k]}};
        ctx.out << j.dump(2) << "\n";
      } else {
        TextTable t({"class", "a_mAP_loose", "a_mAP_tight"});
        for (size_t k = 0; k < classes.size(); ++k)
          t.add_row({names[classes[k]], fixed(loose.average_ap_per_class[k], 4), fixed(tight.average_ap_per_class[k], 4)});
        t.add_row({"average-mAP", fixed(loose.average_map, 4), fixed(tight.average_map, 4)});
        ctx.out << t.render();
      }
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
  add_train(*football, ctx);
  add_tag(*football, ctx);
  add_evaluate(*football, ctx);
  add_segments(*football, ctx);
  add_cut(*football, ctx);
  add_spotting(*football, ctx);
}

}  // namespace dmlkit::app
