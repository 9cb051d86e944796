// Slurm client: subprocess calls with timeouts and failure classification.
#include "slurm/slurm_client.h"

#include <unistd.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <sstream>

#include "core/error.h"

namespace dmlkit::slurm {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string first_line(const std::string& s) {
  std::string t = s;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  // Keep the most informative line: the last non-empty one (Slurm prints context first).
  const size_t nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

// slurmd resolves a relative path from its own folder (and -o from --chdir), not from ours.
std::string absolute_path(const std::string& path) {
  return path.empty() ? path : std::filesystem::absolute(path).lexically_normal().string();
}

}  // namespace

SlurmError::Kind classify_slurm_failure(const ProcessResult& r) {
  if (r.timed_out) return SlurmError::Kind::Unreachable;
  const std::string e = lower(r.err + r.out);
  if (e.find("munge") != std::string::npos || e.find("authentication") != std::string::npos ||
      e.find("auth_g_") != std::string::npos || e.find("access/permission denied") != std::string::npos ||
      e.find("invalid user id") != std::string::npos || e.find("credential") != std::string::npos)
    return SlurmError::Kind::Auth;
  if (e.find("unable to contact slurm controller") != std::string::npos ||
      e.find("connection refused") != std::string::npos || e.find("connect failure") != std::string::npos ||
      e.find("socket timed out") != std::string::npos ||
      e.find("communication connection failure") != std::string::npos ||
      e.find("slurm_receive_msg") != std::string::npos || e.find("zero bytes were transmitted") != std::string::npos ||
      e.find("could not establish a configuration source") != std::string::npos)
    return SlurmError::Kind::Unreachable;
  return SlurmError::Kind::Command;
}

SlurmClient::SlurmClient(SlurmClientOptions options) : options_(std::move(options)) {}

ProcessResult SlurmClient::run(std::vector<std::string> argv) {
  if (!options_.bin_dir.empty()) argv[0] = options_.bin_dir + "/" + argv[0];
  std::vector<std::pair<std::string, std::string>> env;
  if (!options_.slurm_conf.empty()) env.emplace_back("SLURM_CONF", options_.slurm_conf);
  ++commands_run_;
  return run_process(argv, env, options_.timeout_s);
}

ProcessResult SlurmClient::run_checked(std::vector<std::string> argv) {
  const std::string shown = fmt::to_string(fmt::join(argv, " "));
  ProcessResult r = run(argv);
  if (!r.started)
    throw SlurmError(SlurmError::Kind::Command, shown + ": cannot run " + argv[0] + " (is slurm-client installed?)");
  if (r.ok()) return r;
  const auto kind = classify_slurm_failure(r);
  std::string msg = r.timed_out ? "no answer within " + std::to_string(static_cast<int>(options_.timeout_s)) + " s"
                                : first_line(r.err.empty() ? r.out : r.err);
  if (msg.empty()) msg = "exit status " + std::to_string(r.exit_code);
  throw SlurmError(kind, shown + ": " + msg);
}

// squeue/sinfo --json exit 0 even when they could not talk to slurmctld (they print an "errors"
// array and the reason on stderr), so a parse failure is classified by stderr as well.
template <typename Parse>
auto parse_or_classify(const ProcessResult& r, const char* what, Parse parse) -> decltype(parse(r.out)) {
  try {
    return parse(r.out);
  } catch (const Error& e) {
    // Not an authentication problem: the query could not be answered (slurmctld down or busy;
    // 22.05 then reports only "Unspecified error" and nothing on stderr).
    const std::string why = first_line(r.err);
    auto kind = classify_slurm_failure(r);
    if (kind == SlurmError::Kind::Command) kind = SlurmError::Kind::Unreachable;
    throw SlurmError(kind, std::string(what) + ": " + (why.empty() ? e.what() : why));
  }
}

std::vector<SlurmJob> SlurmClient::jobs() {
  const ProcessResult r = run_checked({"squeue", "--json"});
  return parse_or_classify(r, "squeue --json", parse_squeue_json);
}

std::vector<SlurmNode> SlurmClient::nodes() {
  const ProcessResult r = run_checked({"sinfo", "--json"});
  return parse_or_classify(r, "sinfo --json", parse_sinfo_json);
}

std::string SlurmClient::show_config() { return run_checked({"scontrol", "show", "config"}).out; }

void SlurmClient::place(int64_t id, const std::vector<std::string>& nodes, int gpus_per_node, int cpus_per_node) {
  if (nodes.empty() || gpus_per_node < 1 || cpus_per_node < 1)
    throw SlurmError(SlurmError::Kind::Command, "place: empty placement");
  std::string list;
  for (const auto& n : nodes) {
    // Node names come from sinfo; refuse anything that is not a plain host name.
    for (unsigned char c : n)
      if (!(std::isalnum(c) || c == '-' || c == '_' || c == '.'))
        throw SlurmError(SlurmError::Kind::Command, "place: refusing node name '" + n + "'");
    list += (list.empty() ? "" : ",") + n;
  }
  const std::string count = std::to_string(nodes.size());
  // StartTime=now: a requeued job is otherwise not eligible for ~2 minutes (spec failure list).
  // NumCPUs: Slurm raises a job's CPU count with its node count but never lowers it again, so a job
  // placed on 7 nodes and then on 1 would ask 7 CPUs there and not start beside other jobs.
  run_checked({"scontrol", "update", "JobId=" + std::to_string(id), "NumNodes=" + count + "-" + count,
               "NumCPUs=" + std::to_string(cpus_per_node * static_cast<int>(nodes.size())), "NodeList=" + list,
               "Gres=gpu:" + std::to_string(gpus_per_node), "StartTime=now"});
}

void SlurmClient::release(int64_t id) { run_checked({"scontrol", "release", std::to_string(id)}); }
void SlurmClient::hold(int64_t id) { run_checked({"scontrol", "hold", std::to_string(id)}); }
void SlurmClient::requeue_hold(int64_t id) { run_checked({"scontrol", "requeuehold", std::to_string(id)}); }
void SlurmClient::cancel(int64_t id) { run_checked({"scancel", std::to_string(id)}); }
void SlurmClient::reconfigure() { run_checked({"scontrol", "reconfigure"}); }

int64_t SlurmClient::submit(const JobRequest& q) {
  std::vector<std::string> argv = {"sbatch", "--parsable",           "-N", std::to_string(q.nodes),
                                   "-o",     absolute_path(q.output)};
  if (q.held) argv.insert(argv.begin() + 2, "-H");
  if (!q.array.empty()) argv.push_back("--array=" + q.array);
  if (!q.name.empty()) argv.push_back("--job-name=" + q.name);
  if (q.gpus_per_node > 0) argv.push_back("--gres=gpu:" + std::to_string(q.gpus_per_node));
  if (!q.comment.empty()) argv.push_back("--comment=" + q.comment);
  if (!q.partition.empty()) argv.push_back("--partition=" + q.partition);
  if (!q.account.empty()) argv.push_back("--account=" + q.account);
  if (!q.work_dir.empty()) argv.push_back("--chdir=" + absolute_path(q.work_dir));
  argv.push_back(absolute_path(q.script));
  argv.insert(argv.end(), q.script_args.begin(), q.script_args.end());
  const ProcessResult r = run_checked(argv);
  std::string id = r.out.substr(0, r.out.find_first_of(";\n"));
  if (id.empty() || !std::all_of(id.begin(), id.end(), [](unsigned char c) { return std::isdigit(c); }))
    throw SlurmError(SlurmError::Kind::Command, "sbatch: unexpected output '" + r.out + "'");
  return std::stoll(id);
}

std::string operator_rights_problem(const std::string& config, uid_t uid) {
  std::istringstream in(config);
  std::string line, slurm_user, accounting;
  auto value = [&](const std::string& key) -> std::string {
    if (line.compare(0, key.size() + 1, key + " ") != 0) return {};
    const size_t eq = line.find('=');
    if (eq == std::string::npos) return {};
    std::string v = line.substr(eq + 1);
    v.erase(0, v.find_first_not_of(' '));
    return v;
  };
  while (std::getline(in, line)) {
    if (line.compare(0, 10, "SlurmUser ") == 0) slurm_user = value("SlurmUser");
    if (line.compare(0, 22, "AccountingStorageType ") == 0) accounting = value("AccountingStorageType");
  }
  const bool is_slurm_user = slurm_user.find("(" + std::to_string(uid) + ")") != std::string::npos;
  if (uid != 0 && !is_slurm_user && accounting == "accounting_storage/none")
    return "live mode needs Slurm operator rights: run as root or as SlurmUser " + slurm_user +
           " (this cluster has no accounting database, so there are no other operators)";
  return {};
}

void SlurmClient::check_operator_rights() {
  const std::string problem = operator_rights_problem(show_config(), getuid());
  if (!problem.empty()) throw Error(problem);
}

}  // namespace dmlkit::slurm
