// The knob values a run actually uses, for results.json's inputs.effective_knobs (issue 20): every
// knob of the selected registry entries (core/registry.h, core/knobs.h) with the given value, else
// the declared default, overridden by what the entries' factories read (run-dependent defaults,
// such as a policy's defaults under another profile, appear as the value used).
#pragma once
#include <string>
#include <vector>

#include "core/knobs.h"

namespace dmlkit {

// Records, while it lives, every knob value a factory reads through Knobs::get_* on this thread,
// as used (given, declared default, or the run-dependent fallback), written as the user would
// write it. Recorders nest (the innermost one records).
//   KnobUseRecorder used; auto policy = make_policy(name, options); ... used.values()
class KnobUseRecorder {
 public:
  KnobUseRecorder();
  ~KnobUseRecorder();
  KnobUseRecorder(const KnobUseRecorder&) = delete;
  KnobUseRecorder& operator=(const KnobUseRecorder&) = delete;
  const KnobValues& values() const { return values_; }
  // Called by Knobs: records `name` = `value` in the innermost recorder of this thread, if any.
  static void note(const std::string& name, const std::string& value);

 private:
  KnobValues values_;
  KnobUseRecorder* outer_ = nullptr;
};

// Every knob of the `selected` entries of `registry` (a core/registry.h Registry): the given value,
// else the declared default as `list -v` prints it; then `used` (a recorder's values) on top.
template <class Registry>
KnobValues effective_knobs(const Registry& registry, const std::vector<std::string>& selected, const KnobValues& given,
                           const KnobValues& used = {}) {
  KnobValues out;
  for (const auto& name : selected)
    for (const auto& k : registry.get(name).knobs) {
      const auto it = given.find(k.name);
      out[k.name] = it != given.end() ? it->second : k.default_text();
    }
  for (const auto& [k, v] : used) out[k] = v;
  return out;
}

}  // namespace dmlkit
