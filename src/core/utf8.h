// UTF-8 checks and the one rule for bytes that are not UTF-8 in what gpucost writes. Label values
// and names come from outside (exporters, Kubernetes objects, Slurm, files, query parameters) as
// bytes; grouping and money use them as they came, and every renderer writes each ill-formed
// sequence as U+FFFD (docs/report.md, "Text that is not UTF-8"). Stateless and thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace gpucost {

// U+FFFD REPLACEMENT CHARACTER in UTF-8.
inline constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";

// The length of the longest well-formed UTF-8 prefix of `s`: s.size() when all of it is.
// Well-formed as Unicode defines it: no overlong forms, surrogates or code points past U+10FFFF.
size_t ValidUtf8Prefix(std::string_view s);
inline bool IsValidUtf8(std::string_view s) { return ValidUtf8Prefix(s) == s.size(); }

// `s` with each maximal ill-formed subsequence replaced by one U+FFFD (Unicode's "substitution
// of maximal subparts": what nlohmann::json's error_handler_t::replace and Python's
// errors="replace" write, so that every format shows a value the same way).
std::string ValidUtf8(std::string_view s);
void AppendValidUtf8(std::string& out, std::string_view s);

// ValidUtf8, with control characters (C0, DEL and C1, tab and newline included) also written as
// U+FFFD: text for a terminal, where a value must not break a table's line, move the cursor or
// send an escape sequence.
std::string PrintableText(std::string_view s);
// PrintableText keeping line feeds and tabs: text of several lines (a CSV cell, a log message).
// A carriage return goes too: it would let a value overwrite the line before it in a terminal.
std::string PrintableLines(std::string_view s);

// The code points of well-formed UTF-8 text (ValidUtf8's or PrintableText's): the columns it
// takes in a terminal, wide characters aside.
size_t Utf8Length(std::string_view s);

}  // namespace gpucost
