// Issue 36 item 8: text from files reaches a terminal, an error message or a playlist only made
// safe (core/text_safety.h): no escape sequence, no line break, no unbounded echo.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "core/table.h"
#include "core/text_safety.h"
#include "core/yaml.h"

namespace dmlkit {
namespace {

bool has_control_byte(const std::string& s) {
  for (unsigned char c : s)
    if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7F) return true;
  return false;
}

TEST(TextSafety, TerminalTextShowsControlCharactersAsEscapes) {
  EXPECT_EQ(terminal_safe("plain, é and ✓"), "plain, é and ✓");
  EXPECT_EQ(terminal_safe("a\nb\r\x1b[2Jc"), "a\\nb\\r\\x1b[2Jc");
  EXPECT_EQ(terminal_safe("\x7f"), "\\x7f");
  EXPECT_EQ(terminal_safe("\xc2\x9b"
                          "31m"),
            "\\u009b31m");  // C1 CSI as UTF-8
  EXPECT_EQ(terminal_safe("\x9b"
                          "31m"),
            "\\x9b31m");  // a raw C1 byte (not UTF-8)
  EXPECT_EQ(terminal_safe("tab\there"), "tab\there");
}

TEST(TextSafety, TerminalTextIsCappedAtACharacterBoundary) {
  EXPECT_EQ(terminal_safe(std::string(10, 'x'), 4), "xxxx ... (6 more bytes)");
  EXPECT_EQ(terminal_safe("aé", 2), "a ... (2 more bytes)");  // é is two bytes: not cut in half
}

TEST(TextSafety, PlaylistLinesHoldNoLineBreak) {
  EXPECT_EQ(playlist_line("goal 12': a\nhttp://evil/x.mp4\r\n/etc/passwd"),
            "goal 12': a http://evil/x.mp4  /etc/passwd");
  EXPECT_EQ(playlist_line("\x1b]0;title\x07 ok"), " ]0;title  ok");
}

TEST(TextSafety, AnErrorIsOneShortLineWhateverItEchoes) {
  const std::string key(10 * 1000 * 1000, 'k');
  const Error e("f.yaml", 3, key + "\n\x1b[31m", "not a number: '" + key + "\n'");
  const std::string what = e.what();
  EXPECT_LT(what.size(), kMaxEchoBytes + kMaxMessageBytes + 200);
  EXPECT_EQ(what.find('\n'), std::string::npos);
  EXPECT_FALSE(has_control_byte(what)) << what.substr(0, 300);
  EXPECT_EQ(e.field().size(), key.size() + 6) << "the full field is kept for callers";
  EXPECT_EQ(std::string(Error("bad: \x1b[2J\n").what()), "bad: \\x1b[2J\\n");
}

TEST(TextSafety, AHugeYamlKeyGivesAShortError) {
  const std::string key(2 * 1000 * 1000, 'k');
  try {
    // An explicit key ("? KEY"): a plain implicit key is limited to 1024 characters by YAML.
    yaml::check_keys("p.yaml", yaml::load("? " + key + "\n: 1\n", "p.yaml"), {"name"});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_LT(std::string(e.what()).size(), 3000u);
    EXPECT_EQ(e.field(), key);
    EXPECT_EQ(e.line(), 1);
  }
}

TEST(TextSafety, TablesShowCellsTerminalSafe) {
  TextTable t({"minute", "text"});
  t.add_row({"12'", "\x1b[2J\x1b]0;pwned\x07goal\nfake row"});
  const std::string text = t.render();
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3) << "header, rule, one row: " << text;
  EXPECT_NE(text.find("\\x1b[2J"), std::string::npos) << text;
}

}  // namespace
}  // namespace dmlkit
