// Co-location interference: the ground truth of how much jobs sharing a server slow each other down
// (Harmony, INFOCOM'19: second-pass.md 3.2). Unknown to the policies: the simulator multiplies a
// parameter-server job's placement-aware speed (ps_speed.h) by the factor its model gives for the
// current co-locations, recomputed only when a placement changes or a job finishes.
//
// Models (docs/harmony.md, "The world" has the exact definitions and every assumption):
//   none        factor 1 for every job;
//   contention  each job type's tasks use a share of a server's five shared resources (CPU, memory
//               bandwidth, PCIe, disk I/O, NIC; data/harmony/contention.yaml, every value [A]);
//               where the tasks on a server ask for more than its capacity, each task gets
//               capacity / demand of it and runs at the smallest share over the resources it uses;
//   gavel       pairwise slowdowns from Gavel's measured throughputs of two jobs sharing a GPU
//               (data/gavel-throughputs, OSDI'20), each Harmony type mapped to a measured Gavel job
//               (data/harmony/gavel-mapping.yaml); a job's workers on a server are slowed by the
//               product, over the other jobs with workers there, of the measured pair ratios.
// A synchronous job runs at the pace of its slowest task (the minimum over its tasks' factors), an
// asynchronous one at the mean over its tasks [A].
#pragma once
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace dmlkit::cluster {

// One job's tasks on one server.
struct TaskGroup {
  int job = 0;      // the caller's job index (into the factors span)
  int cls = 0;      // the model's class of the job (InterferenceModel::class_of)
  int workers = 0;
  int ps = 0;
  bool sync = true;
};

// What is co-located where: per server, the groups on it. Clearing keeps the buffers, so a caller
// that rebuilds it allocates nothing in steady state.
struct Colocation {
  std::vector<std::vector<TaskGroup>> servers;
  void reset(int num_servers) {
    servers.resize(static_cast<size_t>(num_servers));
    for (auto& s : servers) s.clear();
  }
  void add(int server, const TaskGroup& g) { servers[static_cast<size_t>(server)].push_back(g); }
};

// Buffers of one computation; each caller (a simulation run) owns one, so a model object can be
// shared by runs on several threads.
struct InterferenceScratch {
  std::vector<double> worker, ps, sum, count, load, share;
};

class InterferenceModel {
 public:
  virtual ~InterferenceModel() = default;
  virtual const char* name() const = 0;
  // The model's class index of a job type name (ps_job.h colocation_class), -1 if it has none.
  virtual int class_of(std::string_view type_name) const = 0;
  // The names it knows, for error messages.
  virtual std::string known_classes() const = 0;
  // Per-task speed factors in (0, 1] of the groups on one server: worker[i] and ps[i] for
  // groups[i] (either may be left unread when the group has no such task).
  virtual void server_factors(std::span<const TaskGroup> groups, std::span<double> worker, std::span<double> ps,
                              InterferenceScratch& scratch) const = 0;
  // Each job's factor: factor[g.job] for every job with a group somewhere (the caller sizes the span
  // and sets absent jobs itself). Synchronous: min over the job's tasks; asynchronous: their mean.
  void job_factors(const Colocation& c, std::span<double> factor, InterferenceScratch& scratch) const;
};

// "none", "contention" or "gavel". `file`: the model's data file ("" = the bundled one:
// data_dir/harmony/contention.yaml; for gavel data_dir/harmony/gavel-mapping.yaml, which names the
// throughput file). Returns null for "none". Throws Error (file, line, field) on a bad name or file.
std::shared_ptr<const InterferenceModel> make_interference_model(const std::string& name, const std::string& data_dir,
                                                                 const std::string& file = "");
// The names make_interference_model accepts.
inline constexpr const char* kInterferenceModels = "none, contention, gavel";

// The contention model's usage profiles, also what LIF-Line knows (policies/placement/lif_line.cpp).
struct ContentionProfiles {
  std::vector<std::string> resources;      // cpu, mem_bw, pcie, disk_io, nic
  std::vector<double> capacity;            // per server, per resource
  std::vector<std::string> classes;        // job type names
  std::vector<std::vector<double>> worker; // [class][resource]: share of a server one task uses
  std::vector<std::vector<double>> ps;
  int find(std::string_view name) const;
};
// Reads a contention file (format: docs/harmony.md); Error naming file, line and field.
ContentionProfiles load_contention_profiles(const std::string& path);
std::string default_contention_file(const std::string& data_dir);

class ContentionInterference final : public InterferenceModel {
 public:
  explicit ContentionInterference(ContentionProfiles p);
  const char* name() const override { return "contention"; }
  int class_of(std::string_view type_name) const override { return p_.find(type_name); }
  std::string known_classes() const override;
  void server_factors(std::span<const TaskGroup> groups, std::span<double> worker, std::span<double> ps,
                      InterferenceScratch& scratch) const override;
  const ContentionProfiles& profiles() const { return p_; }

 private:
  ContentionProfiles p_;
};

class GavelInterference final : public InterferenceModel {
 public:
  // classes[i] is slowed by ratio[i][k] when sharing with classes[k] (measured throughput with the
  // pair / alone, clamped to [floor, 1]).
  GavelInterference(std::vector<std::string> classes, std::vector<std::vector<double>> ratio);
  const char* name() const override { return "gavel"; }
  int class_of(std::string_view type_name) const override;
  std::string known_classes() const override;
  void server_factors(std::span<const TaskGroup> groups, std::span<double> worker, std::span<double> ps,
                      InterferenceScratch& scratch) const override;
  double ratio(int a, int b) const { return ratio_[a][b]; }

 private:
  std::vector<std::string> classes_;
  std::vector<std::vector<double>> ratio_;
};
// Reads the mapping file and the throughputs it names (relative to the mapping file).
std::shared_ptr<const GavelInterference> load_gavel_interference(const std::string& mapping_path);

}  // namespace dmlkit::cluster
