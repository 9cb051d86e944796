// Reading a live controller's state file for `cluster status`; see status.h.
#include "live/status.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/output_dir.h"

namespace dmlkit::live {

namespace {

std::string alloc_field(const nlohmann::json& a) {
  std::string s;
  for (const auto& p : a) s += (s.empty() ? "" : ",") + p.at(0).get<std::string>() + ":" + std::to_string(p.at(1).get<int>());
  return s;
}

}  // namespace

LiveStatus read_live_status(const std::string& path) {
  if (!std::filesystem::is_regular_file(path))
    throw Error(path, 0, "", "no controller state file here (start `dmlkit cluster serve --slurm --state FILE`)");
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(read_text_file(path));
  } catch (const nlohmann::json::exception&) {
    throw Error(path, 0, "", "not a JSON controller state file");
  }
  LiveStatus st;
  st.state_path = path;
  const char* field = "schema_version";
  try {
    if (doc.at(field).get<int>() != 1) throw Error(path, 0, field, "unknown state file version");
    field = "policy";
    st.policy = doc.at(field).get<std::string>();
    field = "last_observe_wall_s";
    st.last_poll_wall_s = doc.at(field).get<double>();
    field = "last_decision_wall_s";
    st.last_decision_wall_s = doc.value(field, 0.0);
    field = "stopped_wall_s";
    st.stopped_wall_s = doc.value(field, 0.0);
    field = "finished";
    st.finished_jobs = static_cast<int>(doc.at(field).size());
    field = "jobs";
    for (const auto& r : doc.at(field)) {
      LiveJobStatus j;
      j.slurm_id = r.at("slurm_id").get<long long>();
      j.name = r.at("name").get<std::string>();
      j.gpus = r.at("num_gpus").get<int>();
      j.requested_gpus = r.at("cap_gpus").get<int>();
      j.attained_gpu_s = r.at("attained_gpu_s").get<double>();
      j.preemptions = r.at("preemptions").get<int>();
      j.retries = r.value("failures", 0);
      if (!r.at("last_alloc").empty() && r.at("was_running").get<bool>()) {
        j.status = "running";
        j.placement = alloc_field(r.at("last_alloc"));
      } else if (r.at("released").get<bool>()) {
        j.status = "placed";
        j.placement = alloc_field(r.at("decided"));
      } else {
        j.status = "waiting";
      }
      st.jobs.push_back(std::move(j));
    }
    field = "failed";
    if (doc.contains(field))
      for (const auto& r : doc.at(field))
        st.failed.push_back({r.at("slurm_id").get<long long>(), r.at("name").get<std::string>(),
                             r.at("state").get<std::string>(), r.at("retries").get<int>()});
  } catch (const nlohmann::json::exception&) {
    throw Error(path, 0, field, "missing or of the wrong type in the controller state file");
  }
  return st;
}

}  // namespace dmlkit::live
