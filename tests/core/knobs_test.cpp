// The shared knob parser/validator and registry template (core/knobs.h, core/registry.h).
#include <gtest/gtest.h>

#include <sstream>

#include "core/error.h"
#include "core/knobs.h"
#include "core/registry.h"

namespace dmlkit {
namespace {

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

const std::vector<KnobSpec>& specs() {
  static const std::vector<KnobSpec> s = {
      knob_int("a.queues", 3, "queues").range(1, 64), knob_double("a.f", 0.25, "f").range(0, 1, false, true),
      knob_bool("a.on", false, "on"), knob_enum("a.mode", "x", {"x", "y"}, "mode"), knob_string("a.s", "1,2", "s")};
  return s;
}

TEST(Knobs, ParsesKeyValueAndRejectsMalformed) {
  KnobValues v;
  add_knob_values(v, {"a.queues=2", "a.s=3,4", "a.queues=5"}, "--policy-param");
  EXPECT_EQ(v.at("a.queues"), "5");
  EXPECT_EQ(v.at("a.s"), "3,4");
  EXPECT_NE(message_of([&] { add_knob_values(v, {"novalue"}, "--policy-param"); }).find("--policy-param"),
            std::string::npos);
  EXPECT_FALSE(message_of([&] { add_knob_values(v, {"=3"}, "--x"); }).empty());
}

TEST(Knobs, TypedGettersFallBackToTheDeclaredDefault) {
  const KnobValues given = {{"a.f", "0.5"}, {"a.on", "true"}};
  const Knobs k(given, specs(), "--policy-param");
  EXPECT_EQ(k.get_int("a.queues"), 3);
  EXPECT_EQ(k.get_int("a.queues", 2), 2);  // run-dependent default when not given
  EXPECT_DOUBLE_EQ(k.get_double("a.f"), 0.5);
  EXPECT_DOUBLE_EQ(k.get_double("a.f", 0.1), 0.5);
  EXPECT_TRUE(k.get_bool("a.on"));
  EXPECT_EQ(k.get_string("a.mode"), "x");
  EXPECT_EQ(k.get_string("a.s"), "1,2");
  EXPECT_TRUE(k.given("a.f"));
  EXPECT_FALSE(k.given("a.queues"));
  EXPECT_THROW(k.get_int("a.undeclared"), std::logic_error);
  EXPECT_THROW(k.get_int("a.f"), std::logic_error);  // declared double
}

TEST(Knobs, ValuesAreCheckedAgainstTypeAndRange) {
  for (auto [key, value] : std::vector<std::pair<std::string, std::string>>{{"a.queues", "two"},
                                                                            {"a.queues", "2.5"},
                                                                            {"a.queues", "0"},
                                                                            {"a.f", "1"},
                                                                            {"a.f", "nan"},
                                                                            {"a.on", "maybe"},
                                                                            {"a.mode", "z"}}) {
    const KnobValues given = {{key, value}};
    const std::string msg = message_of([&] { Knobs(given, specs(), "--policy-param"); });
    EXPECT_NE(msg.find("--policy-param " + key + ":"), std::string::npos) << key << "=" << value << ": " << msg;
    EXPECT_NE(msg.find("'" + value + "'"), std::string::npos) << msg;
  }
  EXPECT_NO_THROW(Knobs(KnobValues{{"a.queues", "64"}, {"a.f", "0"}, {"a.on", "0"}, {"a.mode", "y"}}, specs(), "-p"));
}

TEST(Knobs, UnknownKeyNamesTheValidOnes) {
  std::vector<const KnobSpec*> declared;
  for (const auto& s : specs()) declared.push_back(&s);
  const std::string msg = message_of([&] { check_knobs({{"a.queue", "2"}}, declared, "--policy-param", "tiresias"); });
  EXPECT_NE(msg.find("--policy-param a.queue: no knob of tiresias (valid: a.queues, a.f"), std::string::npos) << msg;
  EXPECT_NE(message_of([&] { check_knobs({{"x", "2"}}, {}, "--p", "fifo"); }).find("(valid: none)"), std::string::npos);
}

using ThingEntry = RegistryEntry<int (*)(), NoTraits>;

TEST(Registry, LookupListingAndKnobChecks) {
  const Registry<ThingEntry> r({"widget", "", "--widgets: ", "--widget-param"},
                               {{"one", "the first", [] { return 1; }, {knob_int("one.n", 2, "how many").at_least(0)}},
                                {"two", "the second", [] { return 2; }}});
  EXPECT_EQ(r.get("two").make(), 2);
  EXPECT_EQ(r.find("three"), nullptr);
  EXPECT_EQ(message_of([&] { r.get("three"); }), "--widgets: unknown widget 'three' (known: one, two)");
  EXPECT_EQ(r.names(), (std::vector<std::string>{"one", "two"}));
  EXPECT_NO_THROW(r.check_knobs({"one", "two"}, {{"one.n", "3"}}));
  EXPECT_NE(message_of([&] { r.check_knobs({"two"}, {{"one.n", "3"}}); }).find("no knob of two"), std::string::npos);
  EXPECT_NE(message_of([&] {
              r.check_knobs({"one"}, {{"one.n", "-1"}});
            }).find("--widget-param one.n"),
            std::string::npos);
  std::ostringstream brief, verbose;
  r.print(brief, false);
  EXPECT_EQ(brief.str(), "one\ntwo\n");
  r.print(verbose, true);
  EXPECT_EQ(verbose.str(), "one\tthe first\n\tone.n\tint >= 0\tdefault 2\thow many\ntwo\tthe second\n");
  using Dup = std::vector<ThingEntry>;
  EXPECT_THROW((Registry<ThingEntry>({"widget", "", "", ""}, Dup{{"a", "", nullptr}, {"a", "", nullptr}})),
               std::logic_error);
}

}  // namespace
}  // namespace dmlkit
