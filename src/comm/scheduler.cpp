// Registry of the communication schedulers (see scheduler.h). Adding one: write
// schedulers/<name>.cpp with the scheduler and its entry (name, summary, factory, knobs,
// architectures, tuning space), declare the entry below and list it in the registry.
#include "comm/scheduler.h"

#include "core/error.h"
#include "core/knob_use.h"

namespace dmlkit::comm {

// The entries, one per file of schedulers/.
SchedulerEntry fifo_entry();
SchedulerEntry p3_entry();
SchedulerEntry tictac_entry();
SchedulerEntry bytescheduler_entry();
SchedulerEntry horovod_entry();
SchedulerEntry ddp_entry();
SchedulerEntry pace_entry();

const SchedulerRegistry& scheduler_registry() {
  static const SchedulerRegistry registry(
      {"scheduler", "scheduler", "", "--scheduler-param"},
      {fifo_entry(), p3_entry(), tictac_entry(), bytescheduler_entry(), horovod_entry(), ddp_entry(), pace_entry()});
  return registry;
}

std::vector<std::string> scheduler_names() { return scheduler_registry().names(); }

bool supports(const SchedulerEntry& entry, Arch arch) {
  return arch == Arch::ps ? entry.traits.ps : entry.traits.allreduce;
}

double size_knob_bytes(const Knobs& knobs, std::string_view name, double unit,
                       const std::function<double()>& fallback_bytes) {
  if (knobs.given(name)) return knobs.get_double(name) * unit;
  const double bytes = fallback_bytes();
  (void)knobs.get_double(name, bytes / unit);  // records the value used
  return bytes;
}

namespace {

// "bytescheduler.partition-mb" -> "partition-mb".
std::string bare(const std::string& knob) {
  const size_t dot = knob.find('.');
  return dot == std::string::npos ? knob : knob.substr(dot + 1);
}

bool qualified(const std::string& key) { return key.find('.') != std::string::npos; }

}  // namespace

KnobValues scheduler_knobs(const std::string& name, const KnobValues& params) {
  KnobValues out;
  for (const auto& k : scheduler_registry().get(name).knobs) {
    if (auto it = params.find(k.name); it != params.end())
      out[k.name] = it->second;
    else if (auto b = params.find(bare(k.name)); b != params.end())
      out[k.name] = b->second;
  }
  return out;
}

void check_scheduler_params(const std::vector<std::string>& selected, const KnobValues& params,
                            const std::string& flag) {
  const SchedulerRegistry& registry = scheduler_registry();
  KnobValues given;  // the qualified keys, checked by the registry
  std::string selection;
  std::vector<std::string> valid;  // the bare options the selection reads
  for (const auto& name : selected) {
    selection += (selection.empty() ? "" : ",") + name;
    for (const auto& k : registry.get(name).knobs) {
      const std::string option = "--" + bare(k.name);
      bool seen = false;
      for (const auto& v : valid) seen = seen || v == option;
      if (!seen) valid.push_back(option);
    }
  }
  for (const auto& [key, value] : params) {
    if (qualified(key)) {
      given[key] = value;
      continue;
    }
    bool declared = false;
    for (const auto& name : selected)
      for (const auto& k : registry.get(name).knobs)
        if (bare(k.name) == key) {
          declared = true;
          k.check(value, "--" + key);
        }
    if (!declared) {
      std::string list;
      for (const auto& v : valid) list += (list.empty() ? "" : ", ") + v;
      throw Error("--" + key + ": no knob of " + selection + " (valid: " + (list.empty() ? "none" : list) + ")");
    }
  }
  registry.check_knobs(selected, given, flag);
}

std::unique_ptr<CommScheduler> make_scheduler(const std::string& name, const KnobValues& params,
                                              const TrainingWorkload& workload, const NetworkConfig& net) {
  const SchedulerRegistry& registry = scheduler_registry();
  const SchedulerEntry& entry = registry.get(name);  // Error(field "scheduler") if unknown
  if (!supports(entry, net.arch))
    throw Error("", 0, "scheduler", "scheduler '" + name + "' does not support --arch " + to_string(net.arch));
  const KnobValues knobs = scheduler_knobs(name, params);
  // The factory comes from the entry: a registered name cannot run another scheduler's code.
  return entry.make(Knobs(knobs, entry.knobs, registry.style().knob_flag), {net.arch, &workload, &net});
}

void validate_scheduler(const std::string& name, const KnobValues& params, const TrainingWorkload& workload,
                        const NetworkConfig& net) {
  (void)make_scheduler(name, params, workload, net);
}

KnobValues effective_scheduler_knobs(const std::string& name, const KnobValues& params,
                                     const TrainingWorkload& workload, const NetworkConfig& net) {
  KnobUseRecorder used;  // what the factory reads, run-dependent defaults included
  (void)make_scheduler(name, params, workload, net);
  return effective_knobs(scheduler_registry(), {name}, scheduler_knobs(name, params), used.values());
}

}  // namespace dmlkit::comm
