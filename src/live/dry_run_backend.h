// A ClusterBackend for `cluster serve --dry-run`: reads go to the real backend, every change
// (place, release, hold, requeue, cancel, reconfigure, submit) is dropped. The controller decides
// as usual and logs its decisions; Slurm keeps scheduling as it would without it. A dry run needs
// no operator rights (it changes nothing), so their check is skipped.
#pragma once
#include "live/slurm_names.h"

namespace dmlkit::live {

class DryRunBackend final : public ClusterBackend {
 public:
  explicit DryRunBackend(ClusterBackend& inner) : inner_(inner) {}

  std::vector<SlurmJob> jobs() override { return inner_.jobs(); }
  std::vector<SlurmNode> nodes() override { return inner_.nodes(); }
  SlurmSnapshot snapshot() override { return inner_.snapshot(); }
  void check_operator_rights() override {}
  void place(int64_t, const std::vector<std::string>&, int, int) override {}
  void release(int64_t) override {}
  void hold(int64_t) override {}
  void requeue_hold(int64_t) override {}
  void cancel(int64_t) override {}
  void reconfigure() override {}
  int64_t submit(const JobRequest&) override {
    throw SlurmError(SlurmError::Kind::Command, "dry run: nothing is submitted");
  }
  int64_t commands_run() const override { return inner_.commands_run(); }
  double now_s() const override { return inner_.now_s(); }
  void sleep_s(double seconds) override { inner_.sleep_s(seconds); }

 private:
  ClusterBackend& inner_;
};

}  // namespace dmlkit::live
