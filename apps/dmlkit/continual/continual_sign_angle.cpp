// `dmlkit continual sign-angle` (continual::SignAngleSpec, continual/run.h): the "+class vs -class" angle study on
// Fashion-MNIST (spec B.8): old-task accuracy after the new task against the replay size, per task pair, with the
// measured angle between the tasks; writes results.json, records.csv and summary.csv (one record per pair, replay size
// and seed; core/results.h) and report.html.
#include "continual/run.h"
#include "dmlkit/commands.h"
#include "dmlkit/continual/continual_image_options.h"

namespace dmlkit::app {

namespace cont = dmlkit::continual;

namespace {

struct SignAngleOptions {
  cont::SignAngleSpec spec;
  std::string out = "out/continual-sign-angle";
  std::string format = "table";
};

}  // namespace

void add_continual_sign_angle_command(CLI::App& continual, Context& ctx) {
  auto& o = ctx.make<SignAngleOptions>();
  auto& c = o.spec.config;
  auto* cmd = continual.add_subcommand("sign-angle",
                                       "Old-task accuracy vs replay size on +class vs -class tasks (real images)");
  add_image_data_options(*cmd, o.spec.data);
  cmd->add_option("--pairs", o.spec.pairs, "Comma-separated OLD-NEW class pairs")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--replay-sizes", c.replay_sizes, "Comma-separated replay sizes")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_flag("--flip-new-task", c.flip_new_task,
                "Give the new task the opposite label convention (angle becomes 180 minus the class-mean angle)");
  add_image_training_options(*cmd, c, o.spec.data, o.out, o.format);
  cmd->callback([&] { ctx.run = [&] { return run_continual(o.spec, "sign-angle", o.out, o.format, ctx); }; });
}

}  // namespace dmlkit::app
