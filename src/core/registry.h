// The one registry of every family (cluster policies, comm schedulers, influence algorithms,
// replay strategies, and those to come): entries keyed by name, each with a one-line summary, a
// factory, the knobs it reads (core/knobs.h) and family-specific traits. A family defines its entry
// type as RegistryEntry<Factory, Traits> and one Registry holding its entries in listing order;
// adding a policy is its own file (factory + entry) and one line in the family's registry.cpp.
// The same table feeds lookups, knob validation and `<family> list -v`. See docs/extending.md.
#pragma once
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/suggest.h"
#include "core/knobs.h"

namespace dmlkit {

struct NoTraits {};

template <class Factory, class Traits = NoTraits>
struct RegistryEntry {
  RegistryEntry(std::string name_, std::string summary_, Factory make_, std::vector<KnobSpec> knobs_ = {},
                Traits traits_ = {})
      : name(std::move(name_)),
        summary(std::move(summary_)),
        make(make_),
        knobs(std::move(knobs_)),
        traits(std::move(traits_)) {}
  std::string name;
  std::string summary;  // one line
  Factory make{};
  std::vector<KnobSpec> knobs;  // every knob the factory reads, with its default
  Traits traits{};
};

// How a family names things in its messages.
struct RegistryStyle {
  std::string noun;       // "policy": "unknown policy 'x' (known: a, b)"
  std::string field;      // non-empty: the Error names this field ("field 'scheduler': ...")
  std::string prefix;     // prepended to the message, e.g. "--algorithms: "
  std::string knob_flag;  // the option that sets knobs, e.g. "--policy-param"
};

template <class Entry>
class Registry {
 public:
  Registry(RegistryStyle style, std::vector<Entry> entries)
      : style_(std::move(style)), entries_(std::move(entries)), builtin_(entries_.size()) {
    for (size_t i = 0; i < entries_.size(); ++i)
      for (size_t j = 0; j < i; ++j)
        if (entries_[i].name == entries_[j].name)
          throw std::logic_error(style_.noun + " '" + entries_[i].name + "' registered twice");
  }

  const std::vector<Entry>& entries() const { return entries_; }

  // Adds an entry at run time (a policy written in Python, python/ and docs/python.md). A name
  // already registered at run time is replaced (a notebook re-runs its cell); a built-in name is
  // refused (Error). Not thread-safe: register before starting runs.
  void add(Entry entry) {
    for (size_t i = 0; i < entries_.size(); ++i) {
      if (entries_[i].name != entry.name) continue;
      if (i < builtin_)
        throw Error("cannot register " + style_.noun + " '" + entry.name + "': a built-in " + style_.noun +
                    " has that name");
      entries_[i] = std::move(entry);
      return;
    }
    entries_.push_back(std::move(entry));
  }
  // Whether `name` was added at run time (add()) rather than built in.
  bool added(std::string_view name) const {
    for (size_t i = builtin_; i < entries_.size(); ++i)
      if (entries_[i].name == name) return true;
    return false;
  }
  auto begin() const { return entries_.begin(); }
  auto end() const { return entries_.end(); }
  const RegistryStyle& style() const { return style_; }

  const Entry* find(std::string_view name) const {
    for (const auto& e : entries_)
      if (e.name == name) return &e;
    return nullptr;
  }

  // Throws Error("unknown <noun> 'x' (known: ...)") for a name that is not registered.
  const Entry& get(std::string_view name) const {
    if (const Entry* e = find(name)) return *e;
    const std::string message = style_.prefix + "unknown " + style_.noun + " '" + std::string(name) + "'" +
                                did_you_mean(name, names()) + " (known: " + known() + ")";
    if (style_.field.empty()) throw Error(message);
    throw Error("", 0, style_.field, message);
  }

  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : entries_) out.push_back(e.name);
    return out;
  }

  std::string known() const {
    std::string out;
    for (const auto& e : entries_) out += (out.empty() ? "" : ", ") + e.name;
    return out;
  }

  // Rejects a knob that none of the selected entries declares, or a value its knob does not
  // accept (Error naming the knob and the valid ones). Unknown names throw as get() does. `flag`
  // names the option the values came from in the messages (default: the style's knob flag).
  void check_knobs(const std::vector<std::string>& selected, const KnobValues& values,
                   const std::string& flag = "") const {
    std::vector<const KnobSpec*> declared;
    std::string selection;
    for (const auto& name : selected) {
      for (const auto& k : get(name).knobs) declared.push_back(&k);
      selection += (selection.empty() ? "" : ",") + name;
    }
    dmlkit::check_knobs(values, declared, flag.empty() ? style_.knob_flag : flag, selection);
  }
  // The same against the knobs of every entry (a key no entry declares is a typo).
  void check_knobs_any(const KnobValues& values) const {
    std::vector<const KnobSpec*> declared;
    for (const auto& e : entries_)
      for (const auto& k : e.knobs) declared.push_back(&k);
    dmlkit::check_knobs(values, declared, style_.knob_flag, "any " + style_.noun);
  }

  // One line per entry (its name; verbose: name, `columns`, summary), and when verbose, one line per
  // declared knob ("\t<knob>\t<type and range>\tdefault <d>\t<help>") and per note of `notes`.
  void print(std::ostream& out, bool verbose, const std::function<std::string(const Entry&)>& columns = {},
             const std::function<std::vector<std::string>(const Entry&)>& notes = {}) const {
    for (const auto& e : entries_) {
      out << e.name;
      if (verbose) {
        if (columns) out << "\t" << columns(e);
        out << "\t" << e.summary << "\n";
        for (const auto& k : e.knobs)
          out << "\t" << k.name << "\t" << k.type_text() << "\tdefault "
              << (k.default_text().empty() ? "\"\"" : k.default_text()) << "\t" << k.help << "\n";
        if (notes)
          for (const auto& n : notes(e)) out << "\t" << n << "\n";
      } else {
        out << "\n";
      }
    }
  }

  // The same as JSON (`<family> list --format json`), always with everything -v prints: an array
  // of {"name", "summary", "<columns_key>": columns(e) when given, "knobs": [{"name", "type",
  // "default", "help"}], "notes": [...] when given}.
  void print_json(std::ostream& out, const std::function<std::string(const Entry&)>& columns = {},
                  const std::function<std::vector<std::string>(const Entry&)>& notes = {},
                  const std::string& columns_key = "kinds") const {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const auto& e : entries_) {
      nlohmann::ordered_json j;
      j["name"] = e.name;
      j["summary"] = e.summary;
      if (columns) j[columns_key] = columns(e);
      nlohmann::ordered_json knobs = nlohmann::ordered_json::array();
      for (const auto& k : e.knobs)
        knobs.push_back({{"name", k.name}, {"type", k.type_text()}, {"default", k.default_text()}, {"help", k.help}});
      j["knobs"] = std::move(knobs);
      if (notes) j["notes"] = notes(e);
      list.push_back(std::move(j));
    }
    out << list.dump(2) << "\n";
  }

 private:
  RegistryStyle style_;
  std::vector<Entry> entries_;
  size_t builtin_ = 0;  // entries_[0, builtin_) were given to the constructor
};

}  // namespace dmlkit
