// The assignment policies of `dmlkit ps`. Adding one: write policies/<name>.cpp with the policy and
// its entry (name, summary, factory, knobs), declare the entry in policies/factories.h, and add
// one line here.
#include "ps/policies/factories.h"
#include "ps/policy.h"

namespace dmlkit::ps {

const char* to_string(ChangeKind kind) {
  switch (kind) {
    case ChangeKind::rebalance:
      return "rebalance";
    case ChangeKind::explore:
      return "explore";
    case ChangeKind::scale_in:
      return "scale-in";
    case ChangeKind::scale_out:
      return "scale-out";
  }
  return "?";
}

const AssignmentRegistry& policy_registry() {
  static const AssignmentRegistry registry({"policy", "policies", "", "--policy-param"},
                                           {mxnet_entry(), round_robin_entry(), random_entry(), byteps_entry(),
                                            paa_entry(), psld_entry()});
  return registry;
}

std::unique_ptr<AssignmentPolicy> make_policy(const std::string& name, const KnobValues& params) {
  const AssignmentRegistry& registry = policy_registry();
  const AssignmentEntry& entry = registry.get(name);
  registry.check_knobs_any(params);
  const Knobs knobs(params, entry.knobs, registry.style().knob_flag);
  return entry.make(knobs);
}

}  // namespace dmlkit::ps
