// `dmlkit continual replay` (continual::ReplaySpec, continual/run.h): compares replay sampling strategies across buffer
// sizes on sequential two-class Fashion-MNIST tasks (spec B.7/B.8), task-incremental (ReLU^q head, pixel features) or
// class-incremental (small CNN, backbone features); writes results.json, records.csv and
// summary.csv (one record per strategy, buffer size and seed; core/results.h), task_angles.csv and
// report.html.
#include <ostream>

#include "continual/replay/strategy.h"
#include "continual/run.h"
#include "dmlkit/commands.h"
#include "dmlkit/continual/continual_image_options.h"
#include "dmlkit/run_output.h"

namespace dmlkit::app {

namespace cont = dmlkit::continual;

namespace {

struct ReplayOptions {
  cont::ReplaySpec spec;
  std::string out = "out/continual-replay";
  std::string format = "table";
};

}  // namespace

void add_continual_replay_command(CLI::App& continual, Context& ctx) {
  auto& o = ctx.make<ReplayOptions>();
  auto& c = o.spec.config;
  auto* cmd =
      continual.add_subcommand("replay", "Compare replay sampling strategies across buffer sizes on real images");
  add_image_data_options(*cmd, o.spec.data);
  cmd->add_option("--strategies", c.strategies, "Comma-separated strategies")->delimiter(',')->capture_default_str();
  cmd->add_option("--buffer-sizes", c.buffer_sizes, "Comma-separated replay buffer sizes")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--scenario", o.spec.scenario,
                  "task-il: a binary +-1 problem per task; class-il: a small CNN (libtorch) with one "
                  "2*tasks-way head over all classes seen")
      ->capture_default_str();
  cmd->add_option("--tasks", c.tasks, "Sequential two-class tasks (2..5): classes 2t vs 2t+1")->capture_default_str();
  cmd->add_option("--task-classes", o.spec.task_classes,
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
  add_image_training_options(*cmd, c, o.spec.data, o.out, o.format);
  cmd->callback([&] { ctx.run = [&] { return run_continual(o.spec, "replay", o.out, o.format, ctx); }; });
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
