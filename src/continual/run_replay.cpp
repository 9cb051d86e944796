// `continual replay` as a library call (run.h): replay sampling strategies across buffer sizes on
// sequential two-class tasks (spec B.7/B.8), task-incremental (ReLU^q head, pixel features) or
// class-incremental (small CNN, backbone features); one record per strategy, buffer size and seed,
// task_angles.csv and the report.
#include <algorithm>

#include "continual/image_datasets.h"
#include "continual/results.h"
#include "continual/run.h"

namespace dmlkit::continual {

namespace {

// "A vs B" for every task, e.g. "0 vs 1, 2 vs 3".
std::string tasks_text(const ReplayExperimentConfig& c) {
  std::string text;
  for (const auto& [a, b] : c.class_pairs())
    text += (text.empty() ? "" : ", ") + std::to_string(a) + " vs " + std::to_string(b);
  return text;
}

TextTable replay_points_table(const ReplayExperimentResult& r) {
  TextTable t({"strategy", "buffer_size", "runs", "old_task_accuracy_mean", "old_task_accuracy_sd",
               "average_forgetting_mean", "average_forgetting_sd", "last_task_accuracy_mean"});
  for (const auto& p : r.points)
    t.add_row({p.strategy, std::to_string(p.buffer_size), std::to_string(p.runs), fixed(p.old_acc_mean, 3),
               fixed(p.old_acc_std, 3), fixed(p.forgetting_mean, 3), fixed(p.forgetting_std, 3),
               fixed(p.last_acc_mean, 3)});
  return t;
}

TextTable replay_angles_table(const ReplayExperimentResult& r) {
  TextTable t({"from_task", "to_task", "angle_deg"});
  for (size_t i = 0; i < r.task_angles_deg.size(); ++i)
    t.add_row({std::to_string(i), std::to_string(i + 1), fixed(r.task_angles_deg[i], 2)});
  return t;
}

void add_results(Results& res, const ReplaySpec& o, const ReplayExperimentConfig& c, const ReplayExperimentResult& r) {
  res.inputs() = {{"dataset", o.data.dataset},
                  {"data_dir", o.data.data_dir},
                  {"scenario", o.scenario},
                  {"tasks", c.tasks},
                  {"backend", o.data.backend},
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
  add_replay_records(res, r);
}

HtmlReport report(const ReplaySpec& o, const ReplayExperimentConfig& c, const ReplayExperimentResult& r) {
  HtmlReport rep("Continual learning: replay sampling strategies on " + o.data.dataset);
  const bool class_il = c.scenario == Scenario::class_il;
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
       {"Training backend", class_il ? "torch (libtorch CNN)" : o.data.backend},
       {"Data", o.data.dataset + (o.data.data_dir.empty() ? std::string() : " (" + o.data.data_dir + ")")},
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
  rep.add_table(replay_points_table(r));
  rep.add_heading("Angle between consecutive tasks");
  rep.add_paragraph("Angle between the signed class-mean directions mean(x|+1) - mean(x|-1) of consecutive tasks.");
  rep.add_table(replay_angles_table(r));
  return rep;
}

}  // namespace

ReplayExperimentConfig ReplaySpec::experiment() const {
  ReplayExperimentConfig c = config;
  c.scenario = parse_scenario(scenario);
  c.backend = learn::parse_backend(data.backend);
  if (!task_classes.empty()) {
    c.task_classes = parse_class_pairs(task_classes, "task-classes");
    c.tasks = static_cast<int>(c.task_classes.size());
  }
  return c;
}

void check(const ReplaySpec& spec) { spec.experiment().validate(); }

RunOutput run(const ReplaySpec& spec, const RunProgress& progress) {
  check(spec);  // before loading the data: a bad option is reported first
  ReplayExperimentConfig c = spec.experiment();
  const auto data = load_image_dataset(spec.data.dataset, spec.data.data_dir);
  c.pixel_mean = data.pixel_mean;
  c.pixel_std = data.pixel_std;
  const auto result = run_replay_experiment(data.train, data.test, c, progress);
  RunOutput o;
  o.results = Results("continual replay", "strategy");
  add_results(o.results, spec, c, result);
  o.tables.emplace_back("task_angles.csv", replay_angles_table(result));
  o.report = report(spec, c, result);
  o.printed = replay_points_table(result);
  o.printed_csv = o.printed;
  return o;
}

}  // namespace dmlkit::continual
