// `dmlkit cluster compare --experiment NAME` for an OASiS-model preset (`engine: oasis`,
// docs/oasis.md): every method (--policies, from `dmlkit cluster policies --engine oasis`) on the
// jobs of every seed and sweep point, the LP upper bound, results.json (one record per method,
// seed and point, params load and servers), records.csv, summary.csv and report.html.
#include <ostream>

#include "cluster/oasis/oasis_experiment.h"
#include "core/table.h"
#include "core/text_safety.h"
#include "core/error.h"
#include "core/output_dir.h"
#include "core/parallel_for.h"
#include "core/progress.h"
#include "dmlkit/cluster/cluster_experiment.h"
#include "dmlkit/run_output.h"

namespace dmlkit::app {

namespace oa = dmlkit::cluster::oasis;

int run_oasis_experiment_cli(const std::string& path, const ExperimentCliOptions& o, Context& ctx) {
  oa::OasisExperiment e = oa::load_oasis_experiment(path);
  const std::string out_path = o.out.empty() ? "out/cluster-compare-" + e.name : o.out;
  check_output_target(out_path);
  if (!o.policies.empty()) {
    for (const auto& m : o.policies) oa::oasis_method_registry().get(m);
    e.methods = o.policies;
  }
  if (!o.seeds.empty()) e.seeds = o.seeds;
  KnobValues user;
  add_knob_values(user, o.policy_params, "--policy-param");
  oa::oasis_method_registry().check_knobs(e.methods, user);
  for (const auto& [k, v] : user) e.params[k] = v;
  const int threads = resolve_threads(o.threads);
  const size_t items = oa::sweep_points(e).size() * e.seeds.size();
  ProgressBar bar(e.name, static_cast<double>(items));
  size_t done = 0;
  const auto runs = oa::run_oasis_experiment(e, o.data_dir, threads, [&] { bar.update(static_cast<double>(done++)); });
  bar.update(static_cast<double>(done));
  bar.finish();
  const Results res = oa::oasis_results(e, runs);
  OutputDir out(out_path);
  res.write(out);
  oa::oasis_report(e, res).write(out);
  const std::string final_path = commit_output(out);
  if (o.format == "json") {
    ctx.out << res.json_text();
  } else if (o.format == "csv") {
    ctx.out << oa::oasis_summary_table(res).to_csv();
  } else {
    std::string seeds;
    for (auto s : e.seeds) seeds += (seeds.empty() ? "" : ",") + std::to_string(s);
    ctx.out << "experiment " << terminal_safe(e.name) << " (engine oasis): "
            << (e.shared_pool
                    ? std::to_string(e.worker_servers + e.ps_servers) + " servers (shared pool)"
                    : std::to_string(e.worker_servers) + " worker + " + std::to_string(e.ps_servers) + " PS servers")
            << ", " << e.horizon_slots << " slots, seeds " << seeds << "\n";
    if (!runs.empty())
      for (const auto& r : runs)
        if (!r.log.empty()) {
          for (const auto& l : r.log) ctx.out << "  " << l << "\n";
          ctx.out << "  theoretical competitive ratio 2*alpha = " << fixed(r.theoretical_ratio, 2) << "\n";
          break;
        }
    ctx.out << "\n" << oa::oasis_summary_table(res).render();
  }
  print_output_location(ctx, o.format, final_path);
  return 0;
}

}  // namespace dmlkit::app
