#include "core/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <string_view>

#include "core/byte_size.h"
#include "core/money.h"
#include "core/strings.h"

namespace gpucost {
namespace {

// "9s", "4m05s", "2h10m": the time left, to the second.
std::string ProgressEta(double seconds) {
  const int64_t s = std::llround(std::max(0.0, seconds));
  char buf[32];
  if (s < 60) {
    std::snprintf(buf, sizeof buf, "%llds", static_cast<long long>(s));
  } else if (s < 3600) {
    std::snprintf(buf, sizeof buf, "%lldm%02llds", static_cast<long long>(s / 60),
                  static_cast<long long>(s % 60));
  } else {
    std::snprintf(buf, sizeof buf, "%lldh%02lldm", static_cast<long long>(s / 3600),
                  static_cast<long long>(s / 60 % 60));
  }
  return buf;
}

// Hours of data covered: "36.5h", "0.25h".
std::string ProgressHours(double ms) {
  char buf[32];
  const double h = ms / 3.6e6;
  std::snprintf(buf, sizeof buf, h < 10 ? "%.2fh" : "%.1fh", h);
  return buf;
}

std::string ProgressAmount(ProgressUnit unit, double v) {
  switch (unit) {
    case ProgressUnit::kBytes:
      return FormatByteSize(static_cast<uint64_t>(std::max(0.0, v)));
    case ProgressUnit::kTime:
      return ProgressHours(v);
    case ProgressUnit::kGpus:
      return StrCat(FormatGroupedUnits(std::llround(std::max(0.0, v)), 0),
                    std::llround(v) == 1 ? " GPU" : " GPUs");
  }
  return "";
}

std::string_view ProgressVerb(ProgressUnit unit) {
  switch (unit) {
    case ProgressUnit::kBytes:
      return ": read ";
    case ProgressUnit::kTime:
      return ": covered ";
    case ProgressUnit::kGpus:
      return ": attributed ";
  }
  return ": ";
}

// The line a terminal shows now (drawn and not finished), and the lock its draws and the log's
// writes take turns under.
std::mutex g_terminal_mu;
ProgressLine* g_shown = nullptr;

}  // namespace

void WriteBesideProgress(const std::function<void()>& write) {
  const std::lock_guard lock(g_terminal_mu);
  if (g_shown != nullptr && g_shown->drawn_width_ > 0) {
    g_shown->out_ << '\r' << std::string(g_shown->drawn_width_, ' ') << '\r';
    g_shown->out_.flush();
    g_shown->drawn_width_ = 0;
    g_shown->last_draw_.reset();  // redraw at the next update
  }
  write();
}

bool ProgressWanted(std::optional<bool> forced, int fd) {
  if (forced) return *forced;
  return ::isatty(fd) != 0;
}

ProgressLine::ProgressLine(std::string label, ProgressUnit unit, int64_t total, const Clock& clock,
                           std::ostream& out, bool enabled, Duration min_interval)
    : label_(std::move(label)),
      unit_(unit),
      total_(total),
      clock_(clock),
      out_(out),
      enabled_(enabled),
      min_interval_(min_interval),
      start_(clock.Now()) {}

std::string ProgressLine::Text(Duration elapsed) const {
  // A count of GPUs names its noun once: "attributed 2,000 of 8,000 GPUs".
  const bool bare = unit_ == ProgressUnit::kGpus && total_ > 0;
  std::string text = StrCat(
      label_, ProgressVerb(unit_),
      bare ? FormatGroupedUnits(done_, 0) : ProgressAmount(unit_, static_cast<double>(done_)));
  if (total_ > 0) {
    const double share = static_cast<double>(done_) / static_cast<double>(total_);
    char pct[16];
    std::snprintf(pct, sizeof pct, "%.0f%%", 100 * share);
    text += StrCat(" of ", ProgressAmount(unit_, static_cast<double>(total_)), " (", pct, ")");
  }
  const double seconds = std::chrono::duration<double>(elapsed).count();
  if (seconds > 0 && done_ > 0) {
    const double rate = static_cast<double>(done_) / seconds;  // per second
    text += StrCat(", ", ProgressAmount(unit_, rate), "/s");
    if (total_ > 0 && done_ < total_) {
      text += StrCat(", ", ProgressEta(static_cast<double>(total_ - done_) / rate), " left");
    }
  }
  return text;
}

void ProgressLine::Set(int64_t done) {
  done_ = total_ > 0 ? std::clamp<int64_t>(done, 0, total_) : std::max<int64_t>(done, 0);
  if (!enabled_ || finished_) return;
  const Instant now = clock_.Now();
  if (last_draw_ && now - *last_draw_ < min_interval_) return;
  last_draw_ = now;
  const std::string text = Text(now - start_);
  const std::lock_guard lock(g_terminal_mu);
  g_shown = this;
  // Carriage return, the text, and blanks over what a longer earlier draw left.
  out_ << '\r' << text;
  if (text.size() < drawn_width_) out_ << std::string(drawn_width_ - text.size(), ' ');
  out_.flush();
  drawn_width_ = std::max(drawn_width_, text.size());
  ++draws_;
}

void ProgressLine::Finish() {
  if (finished_) return;
  finished_ = true;
  if (!enabled_ || draws_ == 0) return;
  const std::lock_guard lock(g_terminal_mu);
  if (g_shown == this) g_shown = nullptr;
  if (drawn_width_ == 0) return;  // a log message cleared it
  out_ << '\r' << std::string(drawn_width_, ' ') << '\r';
  out_.flush();
}

bool ProgressFlags::wanted() const { return registered && ProgressWanted(forced(), STDERR_FILENO); }

}  // namespace gpucost
