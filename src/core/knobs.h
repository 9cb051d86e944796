// Declared, typed knobs of registry entries (core/registry.h) and the one parser/validator for
// `--policy-param key=value`-style options. An entry declares each knob it reads (name, type,
// default, help, allowed values or range); the CLI parses the user's key=value pairs into
// KnobValues, check_knobs() rejects a key no selected entry declares (naming the valid ones) and a
// value of the wrong type or out of range (naming the knob), and the entry's factory reads typed
// values through Knobs, which falls back to the declared default. See docs/extending.md.
#pragma once
#include <limits>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace dmlkit {

enum class KnobType { Int, Double, Bool, String, Enum };
const char* to_string(KnobType type);

struct KnobSpec {
  std::string name;  // as the user writes it, e.g. "tiresias.queues" or "--gamma"
  KnobType type = KnobType::Double;
  std::string default_value;                              // as the user would write it
  std::string help;                                       // one line
  std::vector<std::string> choices;                       // Enum: the allowed values
  double min = -std::numeric_limits<double>::infinity();  // Int/Double range
  double max = std::numeric_limits<double>::infinity();
  bool min_open = false, max_open = false;  // exclusive bounds
  std::string shown_default;                // what `list -v` prints when the default depends on the run

  // Builders, e.g. knob_double("tetris.fairness", 0.25, "...").range(0, 1, false, true).
  KnobSpec& range(double lo, double hi, bool lo_open = false, bool hi_open = false);
  KnobSpec& at_least(double lo, bool open = false);
  KnobSpec& shown(std::string text);
  // The default as `list -v` prints it.
  std::string default_text() const;
  // "an integer in [1, 64]", "one of raw, share", ... (for error messages).
  std::string describe() const;
  // "int in [1, 64]", "enum raw|share", "bool", ... (for `list -v`).
  std::string type_text() const;
  // Throws Error("<flag-or-name>: expected ..., got 'v'") unless `value` parses as this knob's type
  // and lies in its range or choices. `label` prefixes the message ("--policy-param tiresias.queues").
  void check(const std::string& value, const std::string& label) const;
};

KnobSpec knob_int(std::string name, long long default_value, std::string help);
KnobSpec knob_double(std::string name, double default_value, std::string help);
KnobSpec knob_bool(std::string name, bool default_value, std::string help);
KnobSpec knob_string(std::string name, std::string default_value, std::string help);
KnobSpec knob_enum(std::string name, std::string default_value, std::vector<std::string> choices, std::string help);

// The knobs a user gave, key -> value as written.
using KnobValues = std::map<std::string, std::string>;

// Adds "key=value" entries (a repeatable flag such as --policy-param) to `values`, a later entry
// overriding an earlier one; throws Error naming `flag` on an entry without '=' or key.
void add_knob_values(KnobValues& values, const std::vector<std::string>& key_values, const std::string& flag);

// Checks every given key against the knobs declared by the selected entries and every value
// against its knob's type and range. Throws Error:
//   "<flag> drf.typo: no knob of drf,fifo (valid: fifo.backfill)" or
//   "<flag> tiresias.queues: expected an integer in [1, 64], got 'two'".
void check_knobs(const KnobValues& values, std::span<const KnobSpec* const> declared, const std::string& flag,
                 const std::string& selection);

// The typed view of the given values one entry reads in its factory. Reading a knob the entry did
// not declare is a programming error (std::logic_error), caught by the family's conformance test.
class Knobs {
 public:
  Knobs() = default;
  Knobs(const KnobValues& values, std::span<const KnobSpec> declared, std::string flag);

  bool given(std::string_view name) const;
  long long get_int(std::string_view name) const;  // the given value, or the declared default
  double get_double(std::string_view name) const;
  bool get_bool(std::string_view name) const;
  std::string get_string(std::string_view name) const;  // String and Enum knobs
  // The given value, or `fallback` when not given: for defaults that depend on the run (the
  // profile, the seed, another knob), which the declaration documents in shown_default.
  long long get_int(std::string_view name, long long fallback) const;
  double get_double(std::string_view name, double fallback) const;
  bool get_bool(std::string_view name, bool fallback) const;
  std::string get_string(std::string_view name, const std::string& fallback) const;

 private:
  const KnobSpec& spec(std::string_view name, KnobType expected) const;
  const std::string& raw(const KnobSpec& spec) const;  // given value or declared default
  const KnobValues* values_ = nullptr;
  std::span<const KnobSpec> declared_;
  std::string flag_;
};

}  // namespace dmlkit
