#include "core/log.h"

#include <unistd.h>

#include <atomic>
#include <string>

#include "core/progress.h"
#include "core/redact.h"
#include "core/utf8.h"

namespace gpucost {
namespace {
std::atomic<LogLevel> g_level{LogLevel::kInfo};
}

void SetLogLevel(LogLevel level) { g_level = level; }
LogLevel GetLogLevel() { return g_level; }

void Log(LogLevel level, std::string_view message) {
  if (level < g_level.load()) return;
  static constexpr std::string_view kNames[] = {"debug", "info", "warn", "error"};
  std::string line = "gpucost ";
  line += kNames[static_cast<int>(level)];
  line += ": ";
  // Input echoed in a message (a label value, a line of a file) must not drive the terminal nor
  // pass for a message of its own: its control characters other than newline and tab (an ESC
  // that starts a colour or moves the cursor, a CR) are written as U+FFFD, and each line after
  // the first is indented, so that a newline in a value cannot start a forged "gpucost ..." line.
  const std::string text = PrintableLines(RedactUris(message));
  for (size_t i = 0; i < text.size(); ++i) {
    line += text[i];
    if (text[i] == '\n' && (i + 1 == text.size() || (text[i + 1] != ' ' && text[i + 1] != '\t'))) {
      line += "  ";
    }
  }
  line += '\n';
  // One write() per line so concurrent messages do not interleave; a progress line on the
  // terminal is cleared first, so that the message starts a line of its own.
  WriteBesideProgress([&line] {
    [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, line.data(), line.size());
  });
}

}  // namespace gpucost
