// Text made safe for a terminal or a playlist line (text_safety.h).
#include "core/text_safety.h"

#include <cstdint>
#include <algorithm>
#include <cstdio>

namespace dmlkit {
namespace {

// Length of the valid UTF-8 sequence at text[i] and its code point; 0 if the bytes there are not
// valid UTF-8 (a stray continuation byte, a truncated or overlong sequence, a surrogate).
size_t utf8_sequence(std::string_view text, size_t i, uint32_t& code_point) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  size_t length = 0;
  uint32_t cp = 0, min_cp = 0;
  if (lead < 0x80) {
    code_point = lead;
    return 1;
  } else if ((lead & 0xE0) == 0xC0) {
    length = 2, cp = lead & 0x1F, min_cp = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3, cp = lead & 0x0F, min_cp = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4, cp = lead & 0x07, min_cp = 0x10000;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  if (cp < min_cp || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  code_point = cp;
  return length;
}

bool is_control(uint32_t cp) { return (cp < 0x20 && cp != '\t') || (cp >= 0x7F && cp <= 0x9F); }

void append_byte_escape(std::string& out, unsigned char byte) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(byte));
  out += buf;
}

// A control character's escape: "\n", "\r", "\x1b" (C0, DEL) or "\u009b" (C1).
void append_control_escape(std::string& out, uint32_t cp) {
  if (cp == '\n') {
    out += "\\n";
  } else if (cp == '\r') {
    out += "\\r";
  } else if (cp < 0x80) {
    append_byte_escape(out, static_cast<unsigned char>(cp));
  } else {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
    out += buf;
  }
}

}  // namespace

std::string terminal_safe(std::string_view text, size_t max_bytes) {
  std::string out;
  out.reserve(std::min(text.size(), max_bytes) + 16);
  size_t i = 0;
  while (i < text.size()) {
    uint32_t cp = 0;
    const size_t length = utf8_sequence(text, i, cp);
    if (i + std::max<size_t>(length, 1) > max_bytes) break;
    if (length == 0) {
      append_byte_escape(out, static_cast<unsigned char>(text[i]));  // not UTF-8
      ++i;
      continue;
    }
    if (is_control(cp))
      append_control_escape(out, cp);
    else
      out.append(text.substr(i, length));
    i += length;
  }
  if (i < text.size()) out += " ... (" + std::to_string(text.size() - i) + " more bytes)";
  return out;
}

std::string playlist_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    uint32_t cp = 0;
    const size_t length = utf8_sequence(text, i, cp);
    if (length == 0 || cp < 0x20 || (cp >= 0x7F && cp <= 0x9F)) {
      out += ' ';
      i += std::max<size_t>(length, 1);
      continue;
    }
    out.append(text.substr(i, length));
    i += length;
  }
  return out;
}

}  // namespace dmlkit
