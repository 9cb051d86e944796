// `dmlkit continual replay`: compares replay sampling strategies across buffer sizes on sequential
// two-class Fashion-MNIST tasks (spec B.7/B.8), task-incremental (ReLU^q head, pixel features) or
// class-incremental (small CNN, backbone features); writes results.json, records.csv and
// summary.csv (one record per strategy, buffer size and seed; core/results.h), task_angles.csv and
// report.html.
#include <nlohmann/json.hpp>
#include <algorithm>
#include <ostream>

#include "continual/image_datasets.h"
#include "continual/replay/strategy.h"
#include "continual/replay_experiment.h"
#include "continual/results.h"
#include "core/html_report.h"
#include "core/output_dir.h"
#include "core/progress.h"
#include "core/results.h"
#include "core/table.h"
#include "dmlkit/continual/continual_image_options.h"
#include "dmlkit/commands.h"
#include "dmlkit/run_output.h"

namespace dmlkit::app {

namespace cont = dmlkit::continual;

namespace {

struct ReplayOptions {
  cont::ReplayExperimentConfig config;
  std::string scenario = "task-il";
  std::vector<std::string> task_classes;  // "A-B" per task; empty: 2t-(2t+1)
  ImageRunOptions run{"fashion-mnist", "", "out/continual-replay", "table"};
};

// "A vs B" for every task, e.g. "0 vs 1, 2 vs 3".
std::string tasks_text(const cont::ReplayExperimentConfig& c) {
  std::string text;
  for (const auto& [a, b] : c.class_pairs())
    text += (text.empty() ? "" : ", ") + std::to_string(a) + " vs " + std::to_string(b);
  return text;
}

TextTable points_table(const cont::ReplayExperimentResult& r) {
  TextTable t({"strategy", "buffer_size", "runs", "old_task_accuracy_mean", "old_task_accuracy_sd",
               "average_forgetting_mean", "average_forgetting_sd", "last_task_accuracy_mean"});
  for (const auto& p : r.points)
    t.add_row({p.strategy, std::to_string(p.buffer_size), std::to_string(p.runs), fixed(p.old_acc_mean, 3),
               fixed(p.old_acc_std, 3), fixed(p.forgetting_mean, 3), fixed(p.forgetting_std, 3),
               fixed(p.last_acc_mean, 3)});
  return t;
}

TextTable angles_table(const cont::ReplayExperimentResult& r) {
  TextTable t({"from_task", "to_task", "angle_deg"});
  for (size_t i = 0; i < r.task_angles_deg.size(); ++i)
    t.add_row({std::to_string(i), std::to_string(i + 1), fixed(r.task_angles_deg[i], 2)});
  return t;
}

Results replay_results(const ReplayOptions& o, const cont::ReplayExperimentResult& r) {
  const auto& c = o.config;
  Results res("continual replay", "strategy");
  res.inputs() = {{"dataset", o.run.dataset},
                  {"data_dir", o.run.data_dir},
                  {"scenario", o.scenario},
                  {"tasks", c.tasks},
                  {"backend", o.run.backend},
                  {"task_classes", tasks_text(c)},
                  {"train_per_class", c.train_per_class},
                  {"test_per_class", c.test_per_class},
                  {"filters_per_class", c.filters_per_class},
                  {"power_q", c.power_q},
                  {"learning_rate", c.learning_rate},
                  {"epochs", c.epochs},
                  {"batch_size", c.batch_size},
                  {"strategies", c.strategies},
                  {"cnn_conv1_channels", c.cnn_conv1_channels},
                  {"cnn_conv2_channels", c.cnn_conv2_channels},
                  {"cnn_kernel", c.cnn_kernel},
                  {"cnn_feature_dim", c.cnn_feature_dim},
                  {"cnn_learning_rate", c.cnn_learning_rate},
                  {"cnn_batch_size", c.cnn_batch_size},
                  {"cnn_momentum", c.cnn_momentum},
                  {"buffer_sizes", c.buffer_sizes},
                  {"runs", c.seeds},
                  {"seed", c.seed}};
  cont::add_replay_records(res, r);
  return res;
}

HtmlReport report(const ReplayOptions& o, const cont::ReplayExperimentResult& r) {
  const auto& c = o.config;
  HtmlReport rep("Continual learning: replay sampling strategies on " + o.run.dataset);
  const bool class_il = c.scenario == cont::Scenario::class_il;
  const std::string learner =
      class_il ? "one " + std::to_string(2 * c.tasks) + "-way small CNN (two " + std::to_string(c.cnn_kernel) + "x" +
                     std::to_string(c.cnn_kernel) + " convolutions with " + std::to_string(c.cnn_conv1_channels) +
                     " and " + std::to_string(c.cnn_conv2_channels) + " channels, max-pooling, a " +
                     std::to_string(c.cnn_feature_dim) + "-wide feature layer; libtorch) over all classes seen"
               : "the ReLU^" + std::to_string(c.power_q) + " head, one binary problem per task";
  rep.add_paragraph("Sequential two-class tasks (classes " + tasks_text(c) + ") learned by " + learner +
                    " with mini-batch SGD on each task plus a replay buffer refilled at each task end by "
                    "the strategy (" +
                    std::string(class_il ? "on the CNN's backbone features" : "pixel-space features") +
                    "). Old-task accuracy is the mean final accuracy on tasks 0..T-2; forgetting is the mean drop "
                    "from their best accuracy.");
  rep.add_facts(
      {{"Scenario", o.scenario},
       {"Training backend", class_il ? "torch (libtorch CNN)" : o.run.backend},
       {"Data", o.run.dataset + (o.run.data_dir.empty() ? std::string() : " (" + o.run.data_dir + ")")},
       {"Tasks", std::to_string(c.tasks)},
       {"Train / test images per class", std::to_string(c.train_per_class) + " / " + std::to_string(c.test_per_class)},
       {class_il ? "CNN channels / kernel / features" : "Filters per class",
        class_il ? std::to_string(c.cnn_conv1_channels) + ", " + std::to_string(c.cnn_conv2_channels) + " / " +
                       std::to_string(c.cnn_kernel) + " / " + std::to_string(c.cnn_feature_dim)
                 : std::to_string(c.filters_per_class)},
       {"Epochs per task / lr / batch",
        std::to_string(c.epochs) + " / " + fixed(class_il ? c.cnn_learning_rate : c.learning_rate, 4) + " / " +
            std::to_string(class_il ? c.cnn_batch_size : c.batch_size) +
            (class_il ? " (momentum " + fixed(c.cnn_momentum, 2) + ")" : std::string())},
       {"Runs", std::to_string(c.seeds)}});
  for (int metric = 0; metric < 2; ++metric) {
    LineChart chart;
    chart.title = metric == 0 ? "Old-task accuracy vs replay buffer size" : "Average forgetting vs replay buffer size";
    // Buffer sizes span decades (20 ... 2000): a log axis when none is 0. Shaded: mean +/- one sd.
    chart.x_log = std::all_of(r.points.begin(), r.points.end(), [](const auto& p) { return p.buffer_size > 0; });
    chart.x_title = chart.x_log ? "buffer size (samples, log scale)" : "buffer size (samples)";
    chart.y_title = metric == 0 ? "old-task accuracy" : "average forgetting";
    for (const auto& name : c.strategies) {
      ChartSeries s;
      s.label = name;
      for (const auto& p : r.points)
        if (p.strategy == name) {
          s.x.push_back(static_cast<double>(p.buffer_size));
          const double mean = metric == 0 ? p.old_acc_mean : p.forgetting_mean;
          const double sd = metric == 0 ? p.old_acc_std : p.forgetting_std;
          s.y.push_back(mean);
          s.y_low.push_back(mean - sd);
          s.y_high.push_back(mean + sd);
        }
      chart.series.push_back(std::move(s));
    }
    rep.add_chart(std::move(chart));
  }
  rep.add_heading("Mean and spread over seeds");
  rep.add_table(points_table(r));
  rep.add_heading("Angle between consecutive tasks");
  rep.add_paragraph("Angle between the signed class-mean directions mean(x|+1) - mean(x|-1) of consecutive tasks.");
  rep.add_table(angles_table(r));
  return rep;
}

int run(ReplayOptions& o, Context& ctx) {
  auto& c = o.config;
  c.scenario = cont::parse_scenario(o.scenario);
  c.backend = learn::parse_backend(o.run.backend);
  if (!o.task_classes.empty()) {
    c.task_classes = parse_class_pairs(o.task_classes, "task-classes");
    c.tasks = static_cast<int>(c.task_classes.size());
  }
  c.validate();  // before loading the data: a bad option is reported first
  const auto data = cont::load_image_dataset(o.run.dataset, o.run.data_dir);
  const auto& train = data.train;
  const auto& test = data.test;
  c.pixel_mean = data.pixel_mean;
  c.pixel_std = data.pixel_std;
  ProgressBar bar("replay", static_cast<double>(c.strategies.size() * c.buffer_sizes.size()) * c.seeds);
  const auto result = cont::run_replay_experiment(train, test, o.config,
                                                  [&](size_t done, size_t) { bar.update(static_cast<double>(done)); });
  bar.finish();
  OutputDir out(o.run.out);
  const Results res = replay_results(o, result);
  res.write(out);
  out.write("task_angles.csv", angles_table(result).to_csv());
  report(o, result).write(out);
  finish_image_run(out, ctx, o.run, res.to_json().dump(2), points_table(result));
  return 0;
}

}  // namespace

void add_continual_replay_command(CLI::App& continual, Context& ctx) {
  auto& o = ctx.make<ReplayOptions>();
  auto& c = o.config;
  auto* cmd =
      continual.add_subcommand("replay", "Compare replay sampling strategies across buffer sizes on real images");
  add_image_data_options(*cmd, o.run);
  cmd->add_option("--strategies", c.strategies, "Comma-separated strategies")->delimiter(',')->capture_default_str();
  cmd->add_option("--buffer-sizes", c.buffer_sizes, "Comma-separated replay buffer sizes")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--scenario", o.scenario,
                  "task-il: a binary +-1 problem per task; class-il: a small CNN (libtorch) with one "
                  "2*tasks-way head over all classes seen")
      ->capture_default_str();
  cmd->add_option("--tasks", c.tasks, "Sequential two-class tasks (2..5): classes 2t vs 2t+1")->capture_default_str();
  cmd->add_option("--task-classes", o.task_classes,
                  "Comma-separated classes of each task instead, e.g. 4-5,8-9 (the official MNIST sampling study)")
      ->delimiter(',');
  cmd->add_option("--cnn-conv1", c.cnn_conv1_channels, "class-il CNN: channels of the first convolution")
      ->capture_default_str();
  cmd->add_option("--cnn-conv2", c.cnn_conv2_channels, "class-il CNN: channels of the second convolution")
      ->capture_default_str();
  cmd->add_option("--cnn-kernel", c.cnn_kernel, "class-il CNN: kernel size of both convolutions")
      ->capture_default_str();
  cmd->add_option("--cnn-features", c.cnn_feature_dim, "class-il CNN: width of the feature (penultimate) layer")
      ->capture_default_str();
  cmd->add_option("--cnn-lr", c.cnn_learning_rate, "class-il CNN: learning rate (--lr is the task-il head's)")
      ->capture_default_str();
  cmd->add_option("--cnn-batch-size", c.cnn_batch_size,
                  "class-il CNN: mini-batch size (--batch-size is the task-il head's)")
      ->capture_default_str();
  cmd->add_option("--cnn-momentum", c.cnn_momentum, "class-il CNN: SGD momentum in [0, 1)")->capture_default_str();
  add_image_training_options(*cmd, c, o.run);
  cmd->callback([&] { ctx.run = [&] { return run(o, ctx); }; });
}

// `continual strategies` (also `continual list`); -v: summaries (and knobs) from the registry.
void add_continual_strategies_command(CLI::App& continual, Context& ctx) {
  auto& verbose = ctx.make<bool>();
  auto* cmd = continual.add_subcommand("strategies", "List the replay sampling strategies")->alias("list");
  cmd->add_flag("-v,--verbose", verbose, "Also print each strategy's summary and knobs");
  auto& format = ctx.make<std::string>();
  add_list_format_option(*cmd, format);
  cmd->callback([&] {
    ctx.run = [&] {
      if (format == "json")
        cont::replay_strategy_registry().print_json(ctx.out);
      else
        cont::replay_strategy_registry().print(ctx.out, verbose);
      return 0;
    };
  });
}

}  // namespace dmlkit::app
