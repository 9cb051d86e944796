// Parsers of Slurm 22.05 JSON output (squeue/sinfo --json) and host lists.
#include "slurm/slurm_types.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "core/error.h"

namespace dmlkit::slurm {

using nlohmann::json;

bool SlurmJob::finished() const {
  // NODE_FAIL and PREEMPTED are left out on purpose: a requeueable job passes through them on its
  // way back to PENDING, so they are not final for the controller.
  return state == "COMPLETED" || state == "CANCELLED" || state == "FAILED" || state == "TIMEOUT" ||
         state == "OUT_OF_MEMORY" || state == "BOOT_FAIL" || state == "DEADLINE" || state == "SPECIAL_EXIT";
}

int SlurmJob::requested_gpus() const {
  if (gpus_per_node > 0) return gpus_per_node * std::max(1, node_count);
  return gpus_per_job;
}

bool SlurmNode::usable() const {
  std::string s = state;
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  if (s.find("down") != std::string::npos || s.find("drain") != std::string::npos ||
      s.find("fail") != std::string::npos || s.find("unk") != std::string::npos ||
      s.find("future") != std::string::npos || s.find('*') != std::string::npos)
    return false;
  for (const auto& f : flags) {
    std::string u = f;
    std::transform(u.begin(), u.end(), u.begin(), [](unsigned char c) { return std::toupper(c); });
    if (u == "DRAIN" || u == "DRAINING" || u == "DRAINED" || u == "NOT_RESPONDING" || u == "FAIL" || u == "FAILING" ||
        u == "MAINTENANCE" || u == "POWERED_DOWN" || u == "REBOOT_REQUESTED")
      return false;
  }
  return true;
}

int parse_gpu_count(const std::string& gres) {
  // Take the first "gpu" entry of a comma list, then its last numeric ':'- or '='-field before '('.
  size_t start = 0;
  while (start <= gres.size()) {
    size_t end = gres.find(',', start);
    if (end == std::string::npos) end = gres.size();
    std::string item = gres.substr(start, end - start);
    const size_t paren = item.find('(');
    if (paren != std::string::npos) item = item.substr(0, paren);
    if (item.find("gpu") != std::string::npos) {
      size_t p = item.find_last_of(":=");
      if (p == std::string::npos) return 1;  // "gpu" alone means one
      const std::string num = item.substr(p + 1);
      if (num.empty() || !std::all_of(num.begin(), num.end(), [](unsigned char c) { return std::isdigit(c); }))
        return 0;
      return std::stoi(num);
    }
    start = end + 1;
  }
  return 0;
}

std::string parse_gpu_type(const std::string& gres) {
  std::string item = gres.substr(0, gres.find(','));
  item = item.substr(0, item.find('('));
  if (item.rfind("gres:", 0) == 0) item = item.substr(5);
  if (item.rfind("gpu:", 0) != 0) return "";
  const std::string rest = item.substr(4);  // "a100:4" or "4"
  const size_t colon = rest.find(':');
  return colon == std::string::npos ? "" : rest.substr(0, colon);
}

std::vector<std::string> expand_hostlist(const std::string& list) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < list.size()) {
    // One item: prefix[ranges]suffix? up to a comma outside brackets.
    size_t j = i;
    int depth = 0;
    while (j < list.size() && (list[j] != ',' || depth > 0)) {
      if (list[j] == '[') ++depth;
      if (list[j] == ']') --depth;
      ++j;
    }
    const std::string item = list.substr(i, j - i);
    i = j + 1;
    if (item.empty()) continue;
    const size_t lb = item.find('['), rb = item.find(']');
    if (lb == std::string::npos || rb == std::string::npos || rb < lb) {
      out.push_back(item);
      continue;
    }
    const std::string prefix = item.substr(0, lb), suffix = item.substr(rb + 1);
    const std::string ranges = item.substr(lb + 1, rb - lb - 1);
    size_t k = 0;
    while (k <= ranges.size()) {
      size_t e = ranges.find(',', k);
      if (e == std::string::npos) e = ranges.size();
      const std::string r = ranges.substr(k, e - k);
      k = e + 1;
      if (r.empty()) continue;
      const size_t dash = r.find('-');
      const std::string a = r.substr(0, dash);
      const std::string b = dash == std::string::npos ? a : r.substr(dash + 1);
      const auto digits = [](const std::string& s) {
        return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
      };
      if (!digits(a) || !digits(b)) throw Error("host list", 0, "", "bad range '" + r + "' in '" + list + "'");
      const long lo = std::stol(a), hi = std::stol(b);
      if (hi < lo || hi - lo > 100000) throw Error("host list", 0, "", "bad range '" + r + "' in '" + list + "'");
      for (long v = lo; v <= hi; ++v) {
        std::string num = std::to_string(v);
        while (num.size() < a.size()) num = "0" + num;  // zero padding as in node[01-10]
        out.push_back(prefix + num + suffix);
      }
    }
  }
  return out;
}

namespace {

json parse_doc(const std::string& text, const char* what) {
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) throw Error(what, 0, "", "output is not a JSON object");
  if (doc.contains("errors") && doc["errors"].is_array() && !doc["errors"].empty()) {
    const json& e = doc["errors"][0];
    std::string msg =
        e.is_object() && e.contains("error") && e["error"].is_string() ? e["error"].get<std::string>() : e.dump();
    throw Error(what, 0, "errors", msg);
  }
  return doc;
}

std::string str(const json& o, const char* key) {
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) return {};
  if (it->is_string()) return it->get<std::string>();
  return it->dump();
}

int64_t num(const json& o, const char* key, int64_t fallback = 0) {
  auto it = o.find(key);
  if (it == o.end() || !it->is_number()) return fallback;
  return it->get<int64_t>();
}

}  // namespace

std::vector<SlurmJob> parse_squeue_json(const std::string& text) {
  const json doc = parse_doc(text, "squeue --json");
  if (!doc.contains("jobs") || !doc["jobs"].is_array()) throw Error("squeue --json", 0, "jobs", "missing jobs array");
  std::vector<SlurmJob> jobs;
  for (const json& j : doc["jobs"]) {
    if (!j.is_object()) throw Error("squeue --json", 0, "jobs", "a job is not an object");
    SlurmJob s;
    s.id = num(j, "job_id", -1);
    if (s.id < 0) throw Error("squeue --json", 0, "job_id", "missing job id");
    s.name = str(j, "name");
    s.state = str(j, "job_state");
    s.reason = str(j, "state_reason");
    s.comment = str(j, "comment");
    s.partition = str(j, "partition");
    s.account = str(j, "account");
    s.user = str(j, "user_name");
    s.priority = num(j, "priority");
    s.submit_time = num(j, "submit_time");
    s.node_count = static_cast<int>(num(j, "node_count", 1));
    s.gpus_per_node = parse_gpu_count(str(j, "tres_per_node"));
    s.gpus_per_job = parse_gpu_count(str(j, "tres_per_job"));
    s.cpus_per_node = std::max(1, static_cast<int>(num(j, "minimum_cpus_per_node", 1)));
    s.required_nodes = str(j, "required_nodes");
    s.restarts = static_cast<int>(num(j, "restart_cnt"));
    s.array_job_id = num(j, "array_job_id");
    s.array_task_id = num(j, "array_task_id", -1);
    s.array_tasks = str(j, "array_task_string");
    // Allocation: node names from job_resources, GPUs per node from gres_detail (same order).
    std::vector<std::string> names;
    if (j.contains("job_resources") && j["job_resources"].is_object()) {
      const json& jr = j["job_resources"];
      if (jr.contains("allocated_nodes") && jr["allocated_nodes"].is_array()) {
        for (const json& n : jr["allocated_nodes"])
          if (n.is_object()) names.push_back(str(n, "nodename"));
      } else {
        names = expand_hostlist(str(jr, "nodes"));
      }
    }
    if (names.empty() && s.active_running()) names = expand_hostlist(str(j, "nodes"));
    std::vector<int> gpus;
    if (j.contains("gres_detail") && j["gres_detail"].is_array())
      for (const json& g : j["gres_detail"]) gpus.push_back(g.is_string() ? parse_gpu_count(g.get<std::string>()) : 0);
    for (size_t i = 0; i < names.size(); ++i)
      s.allocation.push_back({names[i], i < gpus.size() ? gpus[i] : s.gpus_per_node});
    jobs.push_back(std::move(s));
  }
  return jobs;
}

std::vector<SlurmNode> parse_sinfo_json(const std::string& text) {
  const json doc = parse_doc(text, "sinfo --json");
  if (!doc.contains("nodes") || !doc["nodes"].is_array())
    throw Error("sinfo --json", 0, "nodes", "missing nodes array");
  std::vector<SlurmNode> nodes;
  for (const json& n : doc["nodes"]) {
    if (!n.is_object()) throw Error("sinfo --json", 0, "nodes", "a node is not an object");
    SlurmNode s;
    s.name = str(n, "name");
    if (s.name.empty()) throw Error("sinfo --json", 0, "name", "a node has no name");
    s.state = str(n, "state");
    if (n.contains("state_flags") && n["state_flags"].is_array())
      for (const json& f : n["state_flags"])
        if (f.is_string()) s.flags.push_back(f.get<std::string>());
    if (n.contains("partitions") && n["partitions"].is_array())
      for (const json& p : n["partitions"])
        if (p.is_string()) s.partitions.push_back(p.get<std::string>());
    s.gpu_type = parse_gpu_type(str(n, "gres"));
    s.gpus = parse_gpu_count(str(n, "gres"));
    s.gpus_used = parse_gpu_count(str(n, "gres_used"));
    nodes.push_back(std::move(s));
  }
  return nodes;
}

}  // namespace dmlkit::slurm
