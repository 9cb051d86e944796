// `dmlkit continual angle-sweep` (continual::AngleSweepSpec, continual/run.h): the synthetic study of "Angle Matters"
// (spec B.2-B.4, B.8): task-1 test error after task 2 against the angle between the task signals, per variant, over
// seeds; writes results.json, records.csv and summary.csv (one record per variant, angle and
// seed; the summary over seeds is core/results.h's), critical_angles.csv and report.html, and
// prints the critical angles.
#include "continual/run.h"
#include "dmlkit/commands.h"
#include "dmlkit/continual/continual_image_options.h"
#include "dmlkit/option_checks.h"
#include "dmlkit/run_output.h"

namespace dmlkit::app {

namespace cont = dmlkit::continual;

namespace {

struct AngleSweepOptions {
  cont::AngleSweepSpec spec;
  std::string out = "out/continual-angle-sweep";
  std::string format = "table";
};

}  // namespace

void add_continual_sweep_command(CLI::App& continual, Context& ctx) {
  auto& o = ctx.make<AngleSweepOptions>();
  auto& c = o.spec.config;
  auto* cmd =
      continual.add_subcommand("angle-sweep", "Forgetting vs angle between two signal-noise tasks (synthetic study)");
  cmd->add_option("--angles", o.spec.angles, "Angles in degrees: start:stop:step (stop included) or a list like 30,160")
      ->capture_default_str();
  cmd->add_option("--variants", o.spec.variants, "Comma-separated variants: cl, replay, ewc, ewc-replay")
      ->delimiter(',')
      ->capture_default_str();
  add_runs_option(*cmd, c.seeds, "Independent runs per (variant, angle): seed indices 0..N-1, each split from --seed");
  cmd->add_option("--seed", c.seed, "Base random seed (results are identical for the same seed)")
      ->capture_default_str();
  cmd->add_option("--epochs", c.epochs, "Full-batch gradient-descent epochs per task")->capture_default_str();
  cmd->add_option("--lr", c.learning_rate, "Learning rate")->capture_default_str();
  cmd->add_option("--patch-len", c.data.patch_len, "Patch length d")->capture_default_str();
  cmd->add_option("--patches", c.data.num_patches, "Patches per sample P (one signal, P-1 noise)")
      ->capture_default_str();
  cmd->add_option("--signal-norm", c.data.signal_norm, "Norm of each task signal")->capture_default_str();
  cmd->add_option("--noise-std", c.data.noise_std, "Standard deviation of each noise coordinate")
      ->capture_default_str();
  cmd->add_flag("--noise-orthogonal", c.data.noise_orthogonal,
                "Project noise off the signal plane (the paper's assumption; the code uses isotropic noise)");
  cmd->add_option("--train-per-task", c.data.train_per_task, "Training samples per task")->capture_default_str();
  cmd->add_option("--test-per-task", c.data.test_per_task, "Test samples per task")->capture_default_str();
  cmd->add_option("--filters", c.filters_per_class, "Filters per class m")->capture_default_str();
  cmd->add_option("--q", c.power_q, "Power q of the polynomial ReLU")->capture_default_str();
  cmd->add_option("--replay-fraction", c.replay_fraction, "Share of the task-2 training set replaced by task-1 samples")
      ->capture_default_str();
  cmd->add_option("--ewc-lambda", c.ewc_lambda, "EWC penalty strength lambda")->capture_default_str();
  cmd->add_option("--fisher", o.spec.fisher,
                  "EWC Fisher diagonal: empirical-sum (the official code's: squared log-likelihood gradients, "
                  "summed over the task-1 samples) or expected-mean (p(1-p)-weighted, averaged)")
      ->capture_default_str();
  cmd->add_option("--ewc-step", o.spec.ewc_step,
                  "How the EWC penalty enters a step: gradient (plain gradient descent on loss + penalty, the "
                  "official code's) or proximal (exact proximal step, stable for any lambda)")
      ->capture_default_str();
  cmd->add_option("--harmful-error", c.harmful_error, "Task-1 error at which forgetting counts as harmful")
      ->capture_default_str();
  cmd->add_option("--threads", c.threads, "Worker threads (results do not depend on it)")->capture_default_str();
  cmd->add_option("--backend", o.spec.backend,
                  "Training backend: torch (libtorch autograd, networks batched) or eigen (hand-written reference)")
      ->capture_default_str();
  cmd->add_option("--chunk-models", c.chunk_models, "torch backend: networks trained together in one batch tensor")
      ->capture_default_str();
  add_output_options(*cmd, o.out, o.format);
  cmd->callback([&] { ctx.run = [&] { return run_continual(o.spec, "angle-sweep", o.out, o.format, ctx); }; });
}

}  // namespace dmlkit::app
