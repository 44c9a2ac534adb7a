#include "core/utf8.h"

#include <cstdint>

namespace gpucost {
namespace {

struct Sequence {
  size_t length = 1;  // bytes: the whole character, or the ill-formed subpart to replace
  bool valid = false;
  uint32_t code_point = 0;
};

// The character at s[i], or the maximal ill-formed subpart there (the longest start of a
// well-formed sequence, at least one byte), per the Unicode Standard's table of well-formed
// byte sequences (3.9, Table 3-7).
Sequence SequenceAt(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  const uint8_t b0 = byte(i);
  if (b0 < 0x80) return {1, true, b0};
  size_t trailing = 0;
  uint8_t lo = 0x80;  // the range of the second byte; later ones are 80..BF
  uint8_t hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    trailing = 1;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    trailing = 2;
    if (b0 == 0xE0) lo = 0xA0;  // no overlong forms
    if (b0 == 0xED) hi = 0x9F;  // no surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    trailing = 3;
    if (b0 == 0xF0) lo = 0x90;  // no overlong forms
    if (b0 == 0xF4) hi = 0x8F;  // nothing past U+10FFFF
  } else {
    return {};  // 80..C1, F5..FF never start a character
  }
  Sequence seq{1, false, static_cast<uint32_t>(b0 & (0x3F >> trailing))};
  for (size_t k = 0; k < trailing; ++k) {
    if (i + seq.length >= s.size()) return seq;
    const uint8_t b = byte(i + seq.length);
    if (b < lo || b > hi) return seq;
    seq.code_point = (seq.code_point << 6) | (b & 0x3F);
    ++seq.length;
    lo = 0x80;
    hi = 0xBF;
  }
  seq.valid = true;
  return seq;
}

bool IsControl(uint32_t c) { return c < 0x20 || (c >= 0x7F && c <= 0x9F); }

template <typename Keep>
void AppendReplacing(std::string& out, std::string_view s, Keep keep) {
  size_t i = 0;
  while (i < s.size()) {
    // Runs of printable ASCII, the usual case, in one append.
    size_t j = i;
    while (j < s.size() && static_cast<uint8_t>(s[j]) < 0x80 && keep(static_cast<uint8_t>(s[j]))) {
      ++j;
    }
    out.append(s.substr(i, j - i));
    i = j;
    if (i == s.size()) break;
    const Sequence seq = SequenceAt(s, i);
    if (seq.valid && keep(seq.code_point)) {
      out.append(s.substr(i, seq.length));
    } else {
      out.append(kReplacementCharacter);
    }
    i += seq.length;
  }
}

}  // namespace

size_t ValidUtf8Prefix(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    if (static_cast<uint8_t>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const Sequence seq = SequenceAt(s, i);
    if (!seq.valid) return i;
    i += seq.length;
  }
  return i;
}

void AppendValidUtf8(std::string& out, std::string_view s) {
  if (IsValidUtf8(s)) {
    out.append(s);
    return;
  }
  AppendReplacing(out, s, [](uint32_t) { return true; });
}

std::string ValidUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  AppendValidUtf8(out, s);
  return out;
}

std::string PrintableText(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  AppendReplacing(out, s, [](uint32_t c) { return !IsControl(c); });
  return out;
}

std::string PrintableLines(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  AppendReplacing(out, s, [](uint32_t c) { return c == '\n' || c == '\t' || !IsControl(c); });
  return out;
}

size_t Utf8Length(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<uint8_t>(c) & 0xC0) != 0x80;
  return n;
}

}  // namespace gpucost
