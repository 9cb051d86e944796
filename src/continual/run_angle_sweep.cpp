// `continual angle-sweep` as a library call (run.h): the synthetic study of "Angle Matters" (spec
// B.2-B.4, B.8): task-1 test error after task 2 against the angle between the task signals, per
// variant, over seeds; one record per variant, angle and seed, critical_angles.csv and the report.
#include <optional>

#include "continual/results.h"
#include "continual/run.h"

namespace dmlkit::continual {

namespace {

std::string opt_angle(const std::optional<double>& a) { return a ? fixed(*a, 1) : "none"; }

void add_sweep_results(Results& res, const AngleSweepConfig& c, const AngleSweepResult& r) {
  res.inputs() = {{"patch_len", c.data.patch_len},
                  {"num_patches", c.data.num_patches},
                  {"signal_norm", c.data.signal_norm},
                  {"noise_std", c.data.noise_std},
                  {"noise_orthogonal", c.data.noise_orthogonal},
                  {"train_per_task", c.data.train_per_task},
                  {"test_per_task", c.data.test_per_task},
                  {"filters_per_class", c.filters_per_class},
                  {"power_q", c.power_q},
                  {"learning_rate", c.learning_rate},
                  {"epochs", c.epochs},
                  {"replay_fraction", c.replay_fraction},
                  {"ewc_lambda", c.ewc_lambda},
                  {"harmful_error", c.harmful_error},
                  {"runs", c.seeds},
                  {"seed", c.seed},
                  {"angles_deg", c.angles_deg},
                  {"backend", backend_name(c.backend)}};
  // Only with an EWC variant: the EWC settings are recorded when they can matter (cl and replay
  // sweeps keep the inputs they had before these options existed).
  if (c.has_ewc()) {
    res.inputs()["fisher"] = learn::fisher_kind_name(c.fisher);
    res.inputs()["ewc_step"] = learn::penalty_step_name(c.ewc_step);
  }
  add_angle_sweep_records(res, c, r);
}

TextTable critical_table(const AngleSweepResult& r) {
  TextTable t({"variant", "critical_angle_deg", "max_task1_error_mean"});
  for (const auto& s : r.summary)
    t.add_row({variant_name(s.variant), opt_angle(s.critical_angle_deg), fixed(s.max_error_mean, 3)});
  return t;
}

TextTable sweep_table(const AngleSweepResult& r) {
  TextTable t({"variant", "angle_deg", "runs", "task1_error_mean", "task1_error_sd", "task1_error_min",
               "task1_error_max", "forgetting_mean", "task2_error_mean", "diverged_mean"});
  for (const auto& p : r.points)
    t.add_row({variant_name(p.variant), fixed(p.angle_deg, 2), std::to_string(p.runs), fixed(p.error_mean, 3),
               fixed(p.error_std, 3), fixed(p.error_min, 3), fixed(p.error_max, 3), fixed(p.forgetting_mean, 3),
               fixed(p.task2_error_mean, 3),
               fixed(p.runs > 0 ? static_cast<double>(p.diverged_runs) / static_cast<double>(p.runs) : 0, 3)});
  return t;
}

HtmlReport report(const AngleSweepConfig& c, const AngleSweepResult& r) {
  HtmlReport rep("Continual learning: forgetting vs angle between tasks");
  rep.add_paragraph(
      "Two-layer CNN with ReLU^" + std::to_string(c.power_q) + " (" + std::to_string(c.filters_per_class) +
      " filters per class) trained by full-batch gradient descent on signal-noise task 1, then on task 2 whose "
      "signal is rotated by the angle; the curve is task 1's test error after task 2 (Wan et al., ICML 2025, "
      "'Angle Matters'). Mean over seeds; the shaded band is mean +/- one standard deviation (runs).");
  rep.add_facts(
      {{"Runs", std::to_string(c.seeds)},
       {"Training backend", backend_name(c.backend)},
       {"Epochs per task", std::to_string(c.epochs)},
       {"Learning rate", fixed(c.learning_rate, 4)},
       {"Signal norm / noise std", fixed(c.data.signal_norm, 2) + " / " + fixed(c.data.noise_std, 2)},
       {"Samples per task (train / test)",
        std::to_string(c.data.train_per_task) + " / " + std::to_string(c.data.test_per_task)},
       {"Replay fraction", fixed(c.replay_fraction, 3)},
       {"EWC lambda", fixed(c.ewc_lambda, 1)},
       {"EWC Fisher / step", learn::fisher_kind_name(c.fisher) + " / " + learn::penalty_step_name(c.ewc_step)},
       {"Task-1 test error after task 1 (mean)", fixed(r.task1_test_error_mean, 4)}});
  LineChart chart;
  chart.title = "Task-1 test error after task 2 vs angle";
  chart.x_title = "angle between task signals (degrees)";
  chart.y_title = "task-1 test error";
  chart.x_min = 0;
  chart.x_max = 180;
  chart.y_min = 0;
  chart.y_max = 1;
  for (const auto& s : r.summary) {
    ChartSeries series;
    series.label = variant_name(s.variant);
    for (const auto& p : r.points)
      if (p.variant == s.variant) {
        series.x.push_back(p.angle_deg);
        series.y.push_back(p.error_mean);
        series.y_low.push_back(p.error_mean - p.error_std);
        series.y_high.push_back(p.error_mean + p.error_std);
      }
    chart.series.push_back(std::move(series));
  }
  rep.add_chart(std::move(chart));
  rep.add_heading("Critical angle per variant");
  rep.add_paragraph("First angle where the mean task-1 error reaches " + fixed(c.harmful_error, 2) +
                    " (linear interpolation between grid angles); 'none' if it never does on the grid.");
  rep.add_table(critical_table(r));
  rep.add_heading("All points");
  rep.add_table(sweep_table(r));
  return rep;
}

}  // namespace

AngleSweepConfig AngleSweepSpec::experiment() const {
  AngleSweepConfig c = config;
  c.angles_deg = parse_angles(angles);
  c.variants.clear();
  for (const auto& v : variants) c.variants.push_back(parse_variant(v));
  c.backend = parse_backend(backend);
  c.fisher = learn::parse_fisher_kind(fisher);
  c.ewc_step = learn::parse_penalty_step(ewc_step);
  return c;
}

void check(const AngleSweepSpec& spec) { spec.experiment().validate(); }

RunOutput run(const AngleSweepSpec& spec, const RunProgress& progress) {
  check(spec);
  const AngleSweepConfig c = spec.experiment();
  const AngleSweepResult result = run_angle_sweep(c, progress);
  RunOutput o;
  o.results = Results("continual angle-sweep", "variant");
  add_sweep_results(o.results, c, result);
  o.tables.emplace_back("critical_angles.csv", critical_table(result));
  o.report = report(c, result);
  o.heading = "task-1 test error after task 1: " + fixed(result.task1_test_error_mean, 4) + "\n\n";
  o.printed = critical_table(result);
  o.printed_csv = sweep_table(result);
  return o;
}

}  // namespace dmlkit::continual
