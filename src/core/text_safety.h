// Text read from files (feed lines, job names, YAML keys, anything a user or an attacker wrote) made
// safe for where dmlkit writes it. One helper per destination:
//   a terminal (tables, error messages): terminal_safe();
//   a playlist or cue line (football highlights.m3u): playlist_line();
//   HTML: html_escape() in core/html_report.h.
// Error messages (core/error.h) pass their file, field and message through terminal_safe() with a
// cap, so a 100 MB key echoed in an error is one short line, never 100 MB of stderr.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace dmlkit {

// Most bytes of one echoed piece of input (a field name, a value) an error message shows.
inline constexpr size_t kMaxEchoBytes = 200;
// Most bytes of an error message's text (after its file and field).
inline constexpr size_t kMaxMessageBytes = 2000;

// `text` for a terminal: every control character but tab (C0, DEL, and the C1 controls U+0080 to
// U+009F) is shown as an escape ("\n", "\r", "\x1b", "\u009b") and every byte that is not part of
// valid UTF-8 as "\xNN", so text from a file can neither break a line nor send an escape sequence
// (colours, cursor moves, a cleared screen, a window title). At most `max_bytes` bytes of `text`
// are shown (cut at a character boundary), followed by " ... (N more bytes)".
std::string terminal_safe(std::string_view text, size_t max_bytes = std::string_view::npos);

// `text` as one line of a playlist (M3U #EXTINF title) or cue file: every control character (line
// breaks among them) becomes a space, so feed text cannot add entries (a URL, /etc/passwd) or
// directives to the playlist.
std::string playlist_line(std::string_view text);

}  // namespace dmlkit
