// Typed knobs; see knobs.h.
#include "core/knobs.h"
#include "core/knob_use.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "core/csv.h"
#include "core/error.h"

namespace dmlkit {

namespace {

std::string number(double v) { return fmt::format("{}", v); }

bool parse_bool(std::string_view s, bool& out) {
  if (s == "1" || s == "true" || s == "yes" || s == "on") return out = true, true;
  if (s == "0" || s == "false" || s == "no" || s == "off") return out = false, true;
  return false;
}

std::string label(const std::string& flag, const std::string& key) { return flag.empty() ? key : flag + " " + key; }

std::string joined(const std::vector<std::string>& items) {
  return fmt::to_string(fmt::join(items, ", "));
}

}  // namespace

const char* to_string(KnobType type) {
  switch (type) {
    case KnobType::Int:
      return "int";
    case KnobType::Double:
      return "double";
    case KnobType::Bool:
      return "bool";
    case KnobType::String:
      return "string";
    case KnobType::Enum:
      return "enum";
  }
  return "?";
}

KnobSpec& KnobSpec::range(double lo, double hi, bool lo_open, bool hi_open) {
  min = lo;
  max = hi;
  min_open = lo_open;
  max_open = hi_open;
  return *this;
}

KnobSpec& KnobSpec::at_least(double lo, bool open) {
  min = lo;
  min_open = open;
  return *this;
}

KnobSpec& KnobSpec::shown(std::string text) {
  shown_default = std::move(text);
  return *this;
}

std::string KnobSpec::default_text() const { return shown_default.empty() ? default_value : shown_default; }

namespace {
std::string range_text(const KnobSpec& k) {
  const bool has_min = std::isfinite(k.min), has_max = std::isfinite(k.max);
  if (has_min && has_max)
    return fmt::format(" in {}{}, {}{}", k.min_open ? "(" : "[", number(k.min), number(k.max), k.max_open ? ")" : "]");
  if (has_min) return (k.min_open ? " > " : " >= ") + number(k.min);
  if (has_max) return (k.max_open ? " < " : " <= ") + number(k.max);
  return "";
}
}  // namespace

std::string KnobSpec::type_text() const {
  if (type == KnobType::Enum) {
    std::string out = "enum ";
    for (size_t i = 0; i < choices.size(); ++i) out += (i ? "|" : "") + choices[i];
    return out;
  }
  return to_string(type) + range_text(*this);
}

std::string KnobSpec::describe() const {
  std::string out;
  switch (type) {
    case KnobType::Int:
      out = "an integer";
      break;
    case KnobType::Double:
      out = "a number";
      break;
    case KnobType::Bool:
      return "0 or 1 (or true/false)";
    case KnobType::String:
      return "a string";
    case KnobType::Enum:
      return "one of " + joined(choices);
  }
  return out + range_text(*this);
}

void KnobSpec::check(const std::string& value, const std::string& label) const {
  bool ok = true;
  double x = 0;
  switch (type) {
    case KnobType::Int: {
      long v = 0;
      ok = parse_long(value, v);
      x = static_cast<double>(v);
      break;
    }
    case KnobType::Double:
      ok = parse_double(value, x);
      break;
    case KnobType::Bool: {
      bool b = false;
      ok = parse_bool(value, b);
      break;
    }
    case KnobType::String:
      break;
    case KnobType::Enum: {
      ok = false;
      for (const auto& c : choices) ok = ok || c == value;
      break;
    }
  }
  if (ok && (type == KnobType::Int || type == KnobType::Double)) {
    if (min_open ? !(x > min) : !(x >= min)) ok = false;
    if (max_open ? !(x < max) : !(x <= max)) ok = false;
  }
  if (!ok) throw Error(label + ": expected " + describe() + ", got '" + value + "'");
}

namespace {
KnobSpec make_knob(std::string name, KnobType type, std::string default_value, std::string help) {
  KnobSpec k;
  k.name = std::move(name);
  k.type = type;
  k.default_value = std::move(default_value);
  k.help = std::move(help);
  return k;
}
}  // namespace

KnobSpec knob_int(std::string name, long long default_value, std::string help) {
  return make_knob(std::move(name), KnobType::Int, std::to_string(default_value), std::move(help));
}

KnobSpec knob_double(std::string name, double default_value, std::string help) {
  return make_knob(std::move(name), KnobType::Double, number(default_value), std::move(help));
}

KnobSpec knob_bool(std::string name, bool default_value, std::string help) {
  return make_knob(std::move(name), KnobType::Bool, default_value ? "1" : "0", std::move(help));
}

KnobSpec knob_string(std::string name, std::string default_value, std::string help) {
  return make_knob(std::move(name), KnobType::String, std::move(default_value), std::move(help));
}

KnobSpec knob_enum(std::string name, std::string default_value, std::vector<std::string> choices, std::string help) {
  KnobSpec k = make_knob(std::move(name), KnobType::Enum, std::move(default_value), std::move(help));
  k.choices = std::move(choices);
  return k;
}

void add_knob_values(KnobValues& values, const std::vector<std::string>& key_values, const std::string& flag) {
  for (const auto& kv : key_values) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) throw Error(flag + ": expected key=value, got '" + kv + "'");
    values[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
}

void check_knobs(const KnobValues& values, std::span<const KnobSpec* const> declared, const std::string& flag,
                 const std::string& selection) {
  for (const auto& [key, value] : values) {
    const KnobSpec* spec = nullptr;
    for (const KnobSpec* k : declared)
      if (k->name == key) spec = k;
    if (spec == nullptr) {
      std::vector<std::string> valid;
      for (const KnobSpec* k : declared) {
        bool seen = false;
        for (const auto& v : valid) seen = seen || v == k->name;
        if (!seen) valid.push_back(k->name);
      }
      throw Error(label(flag, key) + ": no knob of " + selection +
                  " (valid: " + (valid.empty() ? std::string("none") : joined(valid)) + ")");
    }
    spec->check(value, label(flag, key));
  }
}

Knobs::Knobs(const KnobValues& values, std::span<const KnobSpec> declared, std::string flag)
    : values_(&values), declared_(declared), flag_(std::move(flag)) {
  for (const auto& k : declared_) {
    auto it = values.find(k.name);
    if (it != values.end()) k.check(it->second, label(flag_, k.name));
  }
}

const KnobSpec& Knobs::spec(std::string_view name, KnobType expected) const {
  for (const auto& k : declared_) {
    if (k.name != name) continue;
    const bool string_like = expected == KnobType::String && k.type == KnobType::Enum;
    if (k.type != expected && !string_like)
      throw std::logic_error("knob '" + k.name + "' is declared " + to_string(k.type) + ", read as " +
                             to_string(expected));
    return k;
  }
  throw std::logic_error("knob '" + std::string(name) + "' is read but not declared");
}

const std::string& Knobs::raw(const KnobSpec& spec) const {
  if (values_ != nullptr) {
    auto it = values_->find(spec.name);
    if (it != values_->end()) return it->second;
  }
  return spec.default_value;
}

bool Knobs::given(std::string_view name) const {
  for (const auto& k : declared_)
    if (k.name == name) return values_ != nullptr && values_->count(k.name) > 0;
  throw std::logic_error("knob '" + std::string(name) + "' is read but not declared");
}

namespace {
thread_local KnobUseRecorder* current_recorder = nullptr;

std::string number_text(double v) { return fmt::format("{}", v); }  // shortest round-trip form
}  // namespace

KnobUseRecorder::KnobUseRecorder() : outer_(current_recorder) { current_recorder = this; }
KnobUseRecorder::~KnobUseRecorder() { current_recorder = outer_; }
void KnobUseRecorder::note(const std::string& name, const std::string& value) {
  if (current_recorder != nullptr) current_recorder->values_[name] = value;
}

long long Knobs::get_int(std::string_view name) const {
  const KnobSpec& k = spec(name, KnobType::Int);
  long v = 0;
  if (!parse_long(raw(k), v))
    throw Error(flag_ + " " + k.name + ": expected " + k.describe() + ", got '" + raw(k) + "'");
  KnobUseRecorder::note(k.name, std::to_string(v));
  return v;
}

double Knobs::get_double(std::string_view name) const {
  const KnobSpec& k = spec(name, KnobType::Double);
  double v = 0;
  if (!parse_double(raw(k), v))
    throw Error(flag_ + " " + k.name + ": expected " + k.describe() + ", got '" + raw(k) + "'");
  KnobUseRecorder::note(k.name, number_text(v));
  return v;
}

bool Knobs::get_bool(std::string_view name) const {
  const KnobSpec& k = spec(name, KnobType::Bool);
  bool v = false;
  if (!parse_bool(raw(k), v))
    throw Error(flag_ + " " + k.name + ": expected " + k.describe() + ", got '" + raw(k) + "'");
  KnobUseRecorder::note(k.name, v ? "true" : "false");
  return v;
}

std::string Knobs::get_string(std::string_view name) const {
  const KnobSpec& k = spec(name, KnobType::String);
  KnobUseRecorder::note(k.name, raw(k));
  return raw(k);
}

long long Knobs::get_int(std::string_view name, long long fallback) const {
  if (given(name)) return get_int(name);
  KnobUseRecorder::note(spec(name, KnobType::Int).name, std::to_string(fallback));
  return fallback;
}

double Knobs::get_double(std::string_view name, double fallback) const {
  if (given(name)) return get_double(name);
  KnobUseRecorder::note(spec(name, KnobType::Double).name, number_text(fallback));
  return fallback;
}

bool Knobs::get_bool(std::string_view name, bool fallback) const {
  if (given(name)) return get_bool(name);
  KnobUseRecorder::note(spec(name, KnobType::Bool).name, fallback ? "true" : "false");
  return fallback;
}

std::string Knobs::get_string(std::string_view name, const std::string& fallback) const {
  if (given(name)) return get_string(name);
  KnobUseRecorder::note(spec(name, KnobType::String).name, fallback);
  return fallback;
}

}  // namespace dmlkit
