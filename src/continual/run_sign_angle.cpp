// `continual sign-angle` as a library call (run.h): the "+class vs -class" angle study (spec B.8):
// old-task accuracy after the new task against the replay size, per task pair, with the measured
// angle between the tasks; one record per pair, replay size and seed, and the report.
#include "continual/image_datasets.h"
#include "continual/results.h"
#include "continual/run.h"

namespace dmlkit::continual {

namespace {

TextTable sign_points_table(const SignTaskResult& r) {
  TextTable t({"old_class", "new_class", "angle_deg", "replay_size", "runs", "old_acc_before_mean",
               "old_acc_after_mean", "old_acc_after_sd", "new_acc_mean"});
  for (const auto& p : r.points)
    t.add_row({std::to_string(p.old_class), std::to_string(p.new_class), fixed(p.angle_deg, 2),
               std::to_string(p.replay_size), std::to_string(p.runs), fixed(p.old_acc_before_mean, 3),
               fixed(p.old_acc_mean, 3), fixed(p.old_acc_std, 3), fixed(p.new_acc_mean, 3)});
  return t;
}

}  // namespace

SignTaskConfig SignAngleSpec::experiment() const {
  SignTaskConfig c = config;
  c.pairs = parse_class_pairs(pairs, "pairs");
  c.backend = learn::parse_backend(data.backend);
  return c;
}

void check(const SignAngleSpec& spec) { spec.experiment().validate(); }

RunOutput run(const SignAngleSpec& o, const RunProgress& progress) {
  check(o);
  SignTaskConfig c = o.experiment();
  const auto data = load_image_dataset(o.data.dataset, o.data.data_dir);
  c.pixel_mean = data.pixel_mean;
  c.pixel_std = data.pixel_std;
  const auto r = run_sign_task_experiment(data.train, data.test, c, progress);

  Results res("continual sign-angle", "pair");
  res.inputs() = {{"dataset", o.data.dataset},
                  {"data_dir", o.data.data_dir},
                  {"backend", o.data.backend},
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
  add_sign_task_records(res, r);

  HtmlReport rep("Continual learning: +class vs -class tasks on " + o.data.dataset);
  rep.add_paragraph(
      "Each task is one class whose images are kept (+1) or sign-inverted (-1); the angle between "
      "two tasks is the measured angle between their class-mean images. The ReLU^" +
      std::to_string(c.power_q) +
      " head learns the old task, then the new task plus r replayed "
      "old-task samples; the curves are the old task's test accuracy after the new task.");
  rep.add_facts({{"Data", o.data.dataset + (o.data.data_dir.empty() ? std::string() : " (" + o.data.data_dir + ")")},
                 {"Training backend", o.data.backend},
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
  rep.add_table(sign_points_table(r));

  RunOutput out;
  out.results = std::move(res);
  out.report = std::move(rep);
  out.printed = sign_points_table(r);
  out.printed_csv = out.printed;
  return out;
}

}  // namespace dmlkit::continual
