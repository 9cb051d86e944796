// Jobs on servers as trace events (see trace.h).
#include "cluster/report/trace.h"

#include <algorithm>
#include <unordered_map>

namespace dmlkit::cluster {

void add_placement_trace(TraceEvents& trace, const SimResult& result, const ClusterSpec& cluster) {
  std::unordered_map<int, const JobRecord*> jobs;
  for (const auto& j : result.jobs) jobs[j.id] = &j;
  const int servers = cluster.num_servers();
  std::vector<std::vector<const PlacementInterval*>> per_server(servers);
  for (const auto& p : result.placements)
    if (p.server >= 0 && p.server < servers) per_server[p.server].push_back(&p);
  for (int s = 0; s < servers; ++s) {
    const int gpus = cluster.servers[s].gpus;
    const int pid = s + 1;  // pid 0 reads as "no process" in some viewers
    trace.name_process(pid, "server " + std::to_string(s) + " (" + std::to_string(gpus) + " GPUs)");
    for (int k = 0; k < gpus; ++k) trace.name_thread(pid, k, "GPU " + std::to_string(k));
    auto& list = per_server[s];
    std::stable_sort(list.begin(), list.end(), [](const PlacementInterval* a, const PlacementInterval* b) {
      return a->start_s != b->start_s ? a->start_s < b->start_s : a->job < b->job;
    });
    // GPU lanes [0, gpus) and CPU-task lanes [gpus, ...): when each becomes free.
    std::vector<double> gpu_free(gpus, -1), cpu_free;
    auto take = [](std::vector<double>& free_at, int n, double start, double end, std::vector<int>& lanes) {
      for (int k = 0; k < static_cast<int>(free_at.size()) && static_cast<int>(lanes.size()) < n; ++k)
        if (free_at[k] <= start) lanes.push_back(k);
      while (static_cast<int>(lanes.size()) < n) {  // more than the server has: never for a valid run
        free_at.push_back(-1);
        lanes.push_back(static_cast<int>(free_at.size()) - 1);
      }
      for (int k : lanes) free_at[k] = end;
    };
    for (const PlacementInterval* p : list) {
      if (!(p->end_s > p->start_s)) continue;  // placed and moved again at the same instant
      const auto it = jobs.find(p->job);
      const std::string name = it != jobs.end() ? it->second->name : "job " + std::to_string(p->job);
      const std::string category = it != jobs.end() ? it->second->application : "";
      nlohmann::ordered_json args{{"job", p->job}, {"gpus", p->gpus}};
      if (p->workers > 0 || p->ps > 0) {
        args["workers"] = p->workers;
        args["ps"] = p->ps;
      }
      std::vector<int> lanes;
      if (p->gpus > 0) {
        const size_t before = gpu_free.size();
        take(gpu_free, p->gpus, p->start_s, p->end_s, lanes);
        for (size_t k = before; k < gpu_free.size(); ++k)
          trace.name_thread(pid, static_cast<int>(k), "GPU " + std::to_string(k) + " (over capacity)");
        for (int k : lanes) trace.add(pid, k, name, category, p->start_s, p->end_s, args);
      } else {
        const size_t before = cpu_free.size();
        take(cpu_free, 1, p->start_s, p->end_s, lanes);
        for (size_t k = before; k < cpu_free.size(); ++k)
          trace.name_thread(pid, 1000 + static_cast<int>(k), "CPU tasks " + std::to_string(k));
        trace.add(pid, 1000 + lanes[0], name, category, p->start_s, p->end_s, args);
      }
    }
  }
}

}  // namespace dmlkit::cluster
