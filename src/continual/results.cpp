// Continual-learning records (see results.h).
#include "continual/results.h"

#include <string>

namespace dmlkit::continual {

using nlohmann::ordered_json;

void add_angle_sweep_records(Results& results, const AngleSweepConfig& c, const AngleSweepResult& r) {
  const size_t A = c.angles_deg.size(), V = c.variants.size();
  // Variant outer, angle, then seed: the summary groups come out in the order of r.points.
  for (size_t v = 0; v < V; ++v)
    for (size_t a = 0; a < A; ++a)
      for (int s = 0; s < c.seeds; ++s) {
        const SweepRun& run = r.runs[(static_cast<size_t>(s) * A + a) * V + v];
        ResultRecord& rec = results.add(variant_name(run.variant), static_cast<uint64_t>(run.seed_index));
        rec.params["angle_deg"] = run.angle_deg;
        rec.metrics["task1_error_before"] = run.task1_error_before;
        rec.metrics["task1_error"] = run.task1_error_after;
        rec.metrics["task2_error"] = run.task2_error;
        rec.metrics["forgetting"] = run.task1_error_after - run.task1_error_before;
        rec.metrics["diverged"] = run.diverged;
      }
  auto& d = results.derived();
  d["task1"] = {{"train_error_mean", r.task1_train_error_mean}, {"test_error_mean", r.task1_test_error_mean}};
  ordered_json variants = ordered_json::array();
  for (const auto& s : r.summary)
    variants.push_back(
        {{"variant", variant_name(s.variant)},
         {"critical_angle_deg", s.critical_angle_deg ? ordered_json(*s.critical_angle_deg) : ordered_json()},
         {"max_task1_error_mean", s.max_error_mean}});
  d["variants"] = variants;
}

void add_replay_records(Results& results, const ReplayExperimentResult& r) {
  for (const auto& x : r.runs) {
    ResultRecord& rec = results.add(x.strategy, static_cast<uint64_t>(x.seed_index));
    rec.params["buffer_size"] = x.buffer_size;
    rec.metrics["old_task_accuracy"] = x.old_task_accuracy;
    rec.metrics["average_forgetting"] = x.average_forgetting;
    rec.metrics["last_task_accuracy"] = x.last_task_accuracy;
  }
  results.derived()["task_angles_deg"] = r.task_angles_deg;
}

void add_sign_task_records(Results& results, const SignTaskResult& r) {
  ordered_json pairs = ordered_json::array();
  for (const auto& p : r.points) {
    const std::string name = std::to_string(p.old_class) + "-" + std::to_string(p.new_class);
    if (pairs.empty() || pairs.back()["pair"] != name)
      pairs.push_back(
          {{"pair", name}, {"old_class", p.old_class}, {"new_class", p.new_class}, {"angle_deg", p.angle_deg}});
  }
  results.derived()["pairs"] = pairs;
  for (const auto& p : r.points)
    for (const auto& x : r.runs) {
      if (x.old_class != p.old_class || x.new_class != p.new_class || x.replay_size != p.replay_size) continue;
      ResultRecord& rec = results.add(std::to_string(x.old_class) + "-" + std::to_string(x.new_class),
                                      static_cast<uint64_t>(x.seed_index));
      rec.params["replay_size"] = x.replay_size;
      rec.metrics["old_acc_before"] = x.old_accuracy_before;
      rec.metrics["old_acc_after"] = x.old_accuracy_after;
      rec.metrics["new_acc"] = x.new_accuracy;
    }
}

}  // namespace dmlkit::continual
