// The built-in cluster policies. Adding a policy: write policies/<group>/<name>.cpp with the policy
// and its registry entry (name, summary, factory, declared knobs, traits), declare the entry
// function in policies/factories.h, and add one line here. docs/extending.md has the details.
#include <string>

#include "cluster/policies/factories.h"
#include "cluster/policy.h"
#include "core/error.h"

namespace dmlkit::cluster {

namespace {
PolicyRegistry& mutable_policy_registry() {
  static PolicyRegistry registry({"policy", "", "", "--policy-param"}, {
                                                                                 fifo_entry(),
                                                                                 srtf_entry(),
                                                                                 drf_entry(),
                                                                                 tetris_entry(),
                                                                                 tiresias_entry(),
                                                                                 optimus_entry(),
                                                                                 drf_dl2_entry(),
                                                                                 fifo_dl2_entry(),
                                                                                 srtf_dl2_entry(),
                                                                                 tetris_dl2_entry(),
                                                                                 optimus_dl2_entry(),
                                                                                 fixed_dl2_entry(),
                                                                                 dl2_entry(),
                                                                                 optimus_oracle_entry(),
                                                                                 lb_entry(),
                                                                                 tetris_align_entry(),
                                                                                 lif_line_entry(),
                                                                                 bin_packing_entry(),
                                                                                 standalone_entry(),
                                                                                 harmony_entry(),
                                                                                 harmony_seq2seq_entry(),
                                                                             });
  return registry;
}
}  // namespace

const PolicyRegistry& policy_registry() { return mutable_policy_registry(); }

void register_policy(PolicyEntry entry) { mutable_policy_registry().add(std::move(entry)); }

std::unique_ptr<Policy> make_policy(const std::string& name, const PolicyOptions& options) {
  const PolicyRegistry& registry = policy_registry();
  const PolicyEntry& entry = registry.get(name);
  // A knob no registered policy declares is a typo whatever the command (the commands also reject
  // knobs of policies they do not run, with check_policy_params).
  registry.check_knobs_any(options.params);
  const Knobs knobs(options.params, entry.knobs, registry.style().knob_flag);
  auto policy = entry.make(options, knobs);
  // The PS-job dispatch, declared in the entry (PolicyTraits::make_ps) and listed by `-v`.
  if (entry.traits.make_ps) policy = with_ps_variant(std::move(policy), entry.traits.make_ps(options, knobs));
  return policy;
}

void check_policy_params(const std::vector<std::string>& policies, const KnobValues& params, const std::string& flag) {
  policy_registry().check_knobs(policies, params, flag);
}

void add_policy_params(KnobValues& params, const std::vector<std::string>& key_values) {
  add_knob_values(params, key_values, "--policy-param");
}

}  // namespace dmlkit::cluster
