// `dmlkit sweep ...`: grids of runs of any dmlkit command (docs/sweeps.md). `sweep plan FILE` prints
// the grid; `sweep run FILE --out DIR` runs it (locally, --jobs at once, or as a Slurm job array
// with --slurm), resumable; `sweep status DIR` says where it is; `sweep collect DIR` merges the
// cells' results into one table and report. Every cell's command line is checked with the CLI's
// own parser and the command's up-front checks (check_cli) before the first cell runs.
#include <filesystem>
#include <ostream>

#include "core/error.h"
#include "core/html_report.h"
#include "core/output_dir.h"
#include "core/suggest.h"
#include "core/table.h"
#include "dmlkit/cli.h"
#include "dmlkit/commands.h"
#include "dmlkit/option_checks.h"
#include "dmlkit/run_output.h"
#include "slurm/slurm_client.h"
#include "sweep/collect.h"
#include "sweep/runner.h"
#include "sweep/slurm_array.h"
#include "sweep/sweep_dir.h"
#include "sweep/sweep_file.h"

namespace dmlkit::app {
namespace {

namespace fs = std::filesystem;
namespace sw = dmlkit::sweep;

std::string joined(const std::vector<std::string>& words, const char* sep = " ") {
  std::string s;
  for (const auto& w : words) s += (s.empty() ? "" : sep) + w;
  return s;
}

// Every argument and axis names an option of the command (knobs need its knob option), then every
// cell's command line passes the command's own checks. Error (exit 2) before anything runs.
void check_sweep(const sw::SweepFile& f, const sw::Plan& plan, const std::string& dir, UserCode code) {
  std::vector<std::string> options;
  if (!command_options(f.command, options))
    throw Error(f.path, f.command_line, "command",
                "'" + joined(f.command) + "' is not a dmlkit command that runs something" +
                    did_you_mean(f.command.back(), options) + " (here: " + joined(options, ", ") + ")");
  const std::string command = "dmlkit " + joined(f.command);
  auto has = [&](const std::string& n) { return std::find(options.begin(), options.end(), n) != options.end(); };
  if (!has("out"))
    throw Error(f.path, f.command_line, "command",
                "'" + joined(f.command) + "' writes no output folder (no --out); a sweep runs commands that do");
  const std::string knob_option = f.knob_option.substr(2);
  auto check = [&](const std::string& section, const std::string& name, long line, bool knob) {
    if (knob) {
      if (!has(knob_option))
        throw Error(
            f.path, line, section + "." + name,
            "a knob (a name with a '.') is passed with " + f.knob_option + ", which " + command + " does not take");
      return;
    }
    if (!has(name))
      throw Error(f.path, line, section + "." + name,
                  "unknown option '--" + name + "' for " + command + did_you_mean(name, options) + " (see " + command +
                      " --help)");
  };
  for (const auto& a : f.args) check("args", a.name, a.line, a.knob());
  for (const auto& ax : f.axes) {
    if (!ax.label) check("axes", ax.name, ax.line, ax.knob());
    for (const auto& v : ax.values)
      for (const auto& a : v.args) check("axes." + ax.name + ".args", a.name, a.line, a.knob());
  }
  for (const auto& c : plan.cells) {
    std::vector<std::string> args = c.argv;
    args.push_back("--out");
    args.push_back(sw::cell_dir(dir, c.name));
    std::string error;
    if (check_cli(args, error, code) != 0) throw Error(f.path, 0, "", "cell " + c.name + ": " + error);
  }
}

std::string default_out(const std::string& file) { return "out/sweeps/" + fs::path(file).stem().string(); }

// ---- plan -------------------------------------------------------------------------------------

void add_plan(CLI::App& sweep, Context& ctx) {
  auto& file = ctx.make<std::string>();
  auto& verbose = ctx.make<bool>();
  auto& format = ctx.make<std::string>();
  format = "table";
  auto* cmd = sweep.add_subcommand("plan", "Print a sweep file's grid: its size and every cell");
  cmd->add_option("file", file, "Sweep file (YAML; see experiments/sweeps/)")->required();
  cmd->add_flag("-v,--verbose", verbose, "Also print each cell's command line");
  cmd->add_option("--format", format, "What to print: table, json (the plan) or csv")
      ->check(CLI::IsMember({"table", "json", "csv"}))
      ->capture_default_str();
  cmd->callback([&] {
    ctx.run = [&] {
      const sw::SweepFile f = sw::load_sweep_file(file);
      const sw::Plan plan = sw::make_plan(f);
      check_sweep(f, plan, default_out(file), UserCode::Never);  // a plan runs no code, no Python file
      if (format == "json") {
        ctx.out << sw::plan_json(plan).dump(2) << "\n";
        return 0;
      }
      std::vector<std::string> header{"cell", "name"};
      header.insert(header.end(), plan.axes.begin(), plan.axes.end());
      if (verbose) header.push_back("command");
      TextTable t(header);
      for (const auto& c : plan.cells) {
        std::vector<std::string> row{std::to_string(c.index), c.name};
        for (const auto& a : plan.axes) row.push_back(json_cell(c.values[a]));
        if (verbose) row.push_back("dmlkit " + joined(c.argv) + " --out CELLDIR");
        t.add_row(std::move(row));
      }
      if (format == "csv") {
        ctx.out << t.to_csv();
        return 0;
      }
      std::string sizes;
      for (const auto& ax : f.axes)
        sizes += (sizes.empty() ? "" : " x ") + ax.name + " " + std::to_string(ax.values.size());
      ctx.out << "dmlkit " << joined(f.command) << ": " << plan.cells.size() << " cells"
              << (sizes.empty() ? "" : " (" + sizes + ")") << "\n\n"
              << t.render();
      return 0;
    };
  });
}

// ---- run --------------------------------------------------------------------------------------

struct SweepRunOptions {
  std::string file;
  std::string out;
  int jobs = 1;
  int retries = 1;
  double cell_timeout_s = 0;
  std::string binary;
  bool slurm = false;
  size_t chunk = 1;
  int max_parallel = 0;
  bool no_wait = false;
  int resubmits = 3;
  double poll_s = 1;
  bool no_collect = false;
};

sw::RunOptions runner_options(const SweepRunOptions& o) {
  sw::RunOptions r;
  r.binary = o.binary.empty() ? sw::self_executable() : o.binary;
  r.jobs = o.jobs;
  r.retries = o.retries;
  r.cell_timeout_s = o.cell_timeout_s;
  return r;
}

void write_collected(const std::string& dir, const sw::Plan& plan, const sw::Collected& c) {
  write_file_atomic((fs::path(dir) / "results.json").string(), c.results.json_text());
  write_file_atomic((fs::path(dir) / "records.csv").string(), c.results.records_table().to_csv());
  write_file_atomic((fs::path(dir) / "summary.csv").string(), c.results.summary_table().to_csv());
  const HtmlReport rep = sw::sweep_report(plan, c);
  write_file_atomic((fs::path(dir) / "report.html").string(), rep.render());
  write_file_atomic((fs::path(dir) / "report.json").string(), rep.to_json().dump() + "\n");
}

void print_failed(Context& ctx, const std::vector<std::string>& failed) {
  if (failed.empty()) return;
  ctx.err << "failed cells (" << failed.size() << "):\n";
  for (const auto& f : failed) ctx.err << "  " << f << "\n";
}

int run_sweep(const SweepRunOptions& o, Context& ctx) {
  const sw::SweepFile f = sw::load_sweep_file(o.file);
  const sw::Plan plan = sw::make_plan(f);
  const std::string dir = o.out.empty() ? default_out(o.file) : o.out;
  {
    // The sweep folder must not be or hold the sweep file.
    std::error_code ec;
    const fs::path a = fs::weakly_canonical(fs::absolute(o.file, ec), ec);
    const fs::path d = fs::weakly_canonical(fs::absolute(dir, ec), ec);
    if (a.string().rfind(d.string() + "/", 0) == 0) throw Error("--out " + dir + ": holds the input '" + o.file + "'");
  }
  check_sweep(f, plan, dir, UserCode::Load);
  sw::prepare_sweep_dir(dir, plan);
  sw::RunOptions run = runner_options(o);
  sw::RunReport rep;
  if (o.slurm) {
    sw::SlurmArrayOptions so;
    so.chunk = o.chunk;
    so.max_parallel = o.max_parallel;
    so.resubmits = o.resubmits;
    so.poll_s = o.poll_s;
    slurm::SlurmClient slurm(slurm::SlurmClientOptions{});
    try {
      // Resuming a sweep whose array is still in the queue: wait for it rather than submit twice.
      size_t active = 0;
      for (const auto& t : sw::array_task_counts(sw::read_submissions(dir), slurm, dir))
        active += t.pending + t.running + t.held;
      if (active == 0) {
        const sw::Submission sub = sw::submit_array(dir, plan.cells, run, so, slurm);
        if (sub.job_id == 0)
          ctx.out << "every cell is finished already\n";
        else
          ctx.out << "submitted job array " << sub.job_id << ": " << sub.tasks.size() << " tasks for " << [&] {
            size_t n = 0;
            for (const auto& t : sub.tasks) n += t.size();
            return n;
          }() << " cells\n";
      } else {
        ctx.out << "the sweep's job array is still queued or running (" << active << " tasks): waiting for it\n";
      }
      if (o.no_wait) {
        ctx.out << "follow it with: dmlkit sweep status " << dir << "\n";
        return 0;
      }
      const sw::ArrayWaitReport w = sw::wait_array(dir, plan.cells, run, so, slurm);
      rep = w.cells;
      if (w.resubmitted > 0)
        ctx.out << "resubmitted " << w.lost_cells << " lost cells in " << w.resubmitted << " new arrays\n";
      if (w.unfinished > 0)
        ctx.err << w.unfinished << " cells were lost and not run after " << w.resubmitted
                << " resubmissions; re-run the same command to submit them again\n";
    } catch (const slurm::SlurmError& e) {
      throw Error(std::string("slurm: ") + e.what());
    }
  } else {
    rep = sw::run_cells(dir, plan.cells, run);
  }
  ctx.out << plan.cells.size() << " cells: " << rep.skipped << " finished before, " << rep.done << " run now, "
          << rep.failed << " failed";
  if (rep.retried > 0) ctx.out << " (" << rep.retried << " retries)";
  ctx.out << "; " << fixed(rep.wall_s, 1) << " s\n";
  print_failed(ctx, rep.failed_cells);
  if (!o.no_collect) {
    const sw::Collected c = sw::collect_sweep(dir, plan);
    write_collected(dir, plan, c);
    const std::string path = fs::absolute(dir).lexically_normal().string();
    ctx.out << "\nresults: " << path << "/results.json\nreport:  " << path << "/report.html\n";
  }
  if (!rep.failed_cells.empty()) {
    ctx.err << "dmlkit: " << rep.failed_cells.size() << " of " << plan.cells.size()
            << " cells failed; run the same command again to retry them\n";
    return 1;
  }
  return 0;
}

void add_run(CLI::App& sweep, Context& ctx) {
  auto& o = ctx.make<SweepRunOptions>();
  auto* cmd = sweep.add_subcommand("run", "Run a sweep: every cell of the grid, locally or as a Slurm job array");
  cmd->add_option("file", o.file, "Sweep file (YAML; see experiments/sweeps/)")->required();
  cmd->add_option("--out", o.out,
                  "Sweep folder (default out/sweeps/<file name>); running again with the same folder resumes");
  cmd->add_option("--jobs,-j", o.jobs, "Cells run at once on this machine")->check(at_least(1))->capture_default_str();
  cmd->add_option("--retries", o.retries, "Extra attempts of a failed cell (exit status 2, bad input, is not retried)")
      ->check(at_least(0))
      ->capture_default_str();
  cmd->add_option("--cell-timeout", o.cell_timeout_s, "Seconds an attempt may take (0 = no limit)")
      ->check(at_least(0))
      ->capture_default_str();
  cmd->add_option("--dmlkit", o.binary, "The dmlkit program the cells run (default: this one)");
  cmd->add_flag("--slurm", o.slurm, "Submit the cells as one Slurm job array (sbatch --array) instead");
  cmd->add_option("--chunk", o.chunk, "--slurm: cells per array task")->check(at_least(1))->capture_default_str();
  cmd->add_option("--max-parallel", o.max_parallel, "--slurm: array tasks running at once (0 = no limit)")
      ->check(at_least(0))
      ->capture_default_str();
  cmd->add_flag("--no-wait", o.no_wait, "--slurm: submit and return (then: dmlkit sweep status DIR)");
  cmd->add_option("--resubmits", o.resubmits, "--slurm: new arrays for cells lost with a failed node")
      ->check(at_least(0))
      ->capture_default_str();
  cmd->add_option("--poll", o.poll_s, "--slurm: seconds between two looks at the queue")
      ->check(above(0))
      ->capture_default_str();
  cmd->add_flag("--no-collect", o.no_collect, "Do not merge the results at the end (see dmlkit sweep collect)");
  cmd->callback([&] {
    ctx.own_output_check = true;  // a sweep folder is resumed, not replaced (sweep/sweep_dir.h)
    ctx.run = [&] { return run_sweep(o, ctx); };
  });
}

// ---- status -----------------------------------------------------------------------------------

void add_status(CLI::App& sweep, Context& ctx) {
  auto& dir = ctx.make<std::string>();
  auto& verbose = ctx.make<bool>();
  auto* cmd = sweep.add_subcommand("status", "How far a sweep is: cells done, failed, running, waiting");
  cmd->add_option("dir", dir, "Sweep folder (the --out of sweep run)")->required();
  cmd->add_flag("-v,--verbose", verbose, "List every cell with its state");
  cmd->callback([&] {
    ctx.run = [&] {
      const sw::Plan plan = sw::read_plan(dir);
      size_t done = 0, failed = 0, running = 0, queued = 0, waiting = 0;
      TextTable cells({"cell", "state", "attempts", "seconds", "host", "last error"});
      std::vector<std::string> failed_list;
      for (const auto& c : plan.cells) {
        sw::CellState s = sw::read_state(dir, c.name);
        std::string state = s.status.empty() ? "not started" : s.status;
        if (sw::cell_finished(dir, c.name)) {
          state = "done";
          ++done;
        } else if (s.status == "failed") {
          ++failed;
          failed_list.push_back(c.name + ": " + s.error);
        } else if (s.status == "running") {
          ++running;
        } else if (s.status == "queued") {
          ++queued;
        } else {
          ++waiting;
        }
        cells.add_row(
            {c.name, state, std::to_string(s.attempts), fixed(s.seconds, 2), s.host, state == "done" ? "" : s.error});
      }
      ctx.out << plan.cells.size() << " cells: " << done << " done, " << failed << " failed, " << running
              << " running (or interrupted), " << queued << " queued on Slurm, " << waiting << " not started\n";
      const auto subs = sw::read_submissions(dir);
      if (!subs.empty()) {
        try {
          slurm::SlurmClient slurm(slurm::SlurmClientOptions{});
          size_t active = 0;
          for (const auto& t : sw::array_task_counts(subs, slurm)) {
            ctx.out << "job array " << t.job_id << ": " << t.running << " tasks running, " << t.pending << " pending, "
                    << t.held << " held\n";
            active += t.pending + t.running + t.held;
          }
          if (active == 0 && done + failed < plan.cells.size())
            ctx.out << "no task is queued: " << plan.cells.size() - done - failed
                    << " cells were lost; run `dmlkit sweep run FILE --slurm --out " << dir
                    << "` again to submit them\n";
        } catch (const std::exception& e) {
          ctx.out << "Slurm not reachable (" << e.what() << "): job arrays not shown\n";
        }
      }
      if (verbose)
        ctx.out << "\n" << cells.render();
      else
        for (const auto& f : failed_list) ctx.out << "failed: " << f << "\n";
      return 0;
    };
  });
}

// ---- collect ----------------------------------------------------------------------------------

void add_collect(CLI::App& sweep, Context& ctx) {
  auto& dir = ctx.make<std::string>();
  auto& out = ctx.make<std::string>();
  auto& format = ctx.make<std::string>();
  format = "table";
  auto* cmd = sweep.add_subcommand("collect", "Merge every cell's results.json into one table, CSV and report");
  cmd->add_option("dir", dir, "Sweep folder (the --out of sweep run)")->required();
  cmd->add_option("--out", out, "Write the merged results here instead of into the sweep folder");
  cmd->add_option("--format", format, "What to print: table (the summary), json (results.json) or csv (records)")
      ->check(CLI::IsMember({"table", "json", "csv"}))
      ->capture_default_str();
  cmd->callback([&] {
    ctx.run = [&] {
      const sw::Plan plan = sw::read_plan(dir);
      const sw::Collected c = sw::collect_sweep(dir, plan);
      std::string path;
      if (out.empty()) {
        write_collected(dir, plan, c);
        path = fs::absolute(dir).lexically_normal().string();
      } else {
        OutputDir o(out, {dir});
        c.results.write(o);
        sw::sweep_report(plan, c).write(o);
        path = commit_output(o);
      }
      if (format == "json")
        ctx.out << c.results.json_text();
      else if (format == "csv")
        ctx.out << c.results.records_table().to_csv();
      else
        ctx.out << c.results.records().size() << " records from " << c.cells - c.missing.size() << " of " << c.cells
                << " cells\n\n"
                << sw::compact_summary(c.results).render();
      if (!c.missing.empty())
        ctx.err << c.missing.size() << " cells have no results yet (dmlkit sweep status " << dir << ")\n";
      print_output_location(ctx, format, path);
      return 0;
    };
  });
}

// ---- task (the inside of a Slurm array task) --------------------------------------------------

void add_task(CLI::App& sweep, Context& ctx) {
  auto& dir = ctx.make<std::string>();
  auto& submission = ctx.make<std::string>();
  auto& index = ctx.make<int64_t>();
  auto& o = ctx.make<SweepRunOptions>();
  index = -1;
  auto* cmd = sweep.add_subcommand("task", "Run one Slurm array task's cells (started by sweep run --slurm)");
  cmd->group("");  // internal: not listed in --help
  cmd->add_option("dir", dir, "Sweep folder")->required();
  cmd->add_option("--submission", submission, "submission-K.json of the array")->required();
  cmd->add_option("--index", index, "Task index (default: $SLURM_ARRAY_TASK_ID)");
  cmd->add_option("--retries", o.retries, "Extra attempts of a failed cell")->check(at_least(0));
  cmd->add_option("--cell-timeout", o.cell_timeout_s, "Seconds an attempt may take (0 = no limit)")->check(at_least(0));
  cmd->callback([&] {
    ctx.own_output_check = true;
    ctx.run = [&] {
      int64_t i = index;
      if (i < 0) {
        const char* env = std::getenv("SLURM_ARRAY_TASK_ID");
        if (env == nullptr) throw Error("--index: not given and SLURM_ARRAY_TASK_ID is not set");
        i = std::atoll(env);
      }
      const sw::RunReport rep = sw::run_array_task(dir, submission, i, runner_options(o));
      ctx.out << "task " << i << ": " << rep.done << " done, " << rep.skipped << " finished before, " << rep.failed
              << " failed\n";
      print_failed(ctx, rep.failed_cells);
      return 0;  // failed cells are in their state files; the task itself did its job
    };
  });
}

}  // namespace

void add_sweep_commands(CLI::App& app, Context& ctx) {
  auto* sweep =
      app.add_subcommand("sweep", "Grids of runs of any command: locally in parallel or as a Slurm job array");
  sweep->require_subcommand(1);
  add_plan(*sweep, ctx);
  add_run(*sweep, ctx);
  add_status(*sweep, ctx);
  add_collect(*sweep, ctx);
  add_task(*sweep, ctx);
}

}  // namespace dmlkit::app
