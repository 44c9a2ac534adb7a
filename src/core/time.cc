#include "core/time.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "core/strings.h"

namespace gpucost {
namespace {

constexpr int64_t kFirstRfc3339Ms = -62'167'219'200'000;  // 0000-01-01T00:00:00Z
constexpr int64_t kLastRfc3339Ms = 253'402'300'799'999;   // 9999-12-31T23:59:59.999Z

bool ReadDigits(std::string_view s, size_t& pos, size_t count, int& out) {
  if (pos + count > s.size()) return false;
  int v = 0;
  for (size_t i = 0; i < count; ++i) {
    const char c = s[pos + i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  pos += count;
  out = v;
  return true;
}

bool Expect(std::string_view s, size_t& pos, char c) {
  if (pos < s.size() && s[pos] == c) {
    ++pos;
    return true;
  }
  return false;
}

Result<Instant> ParseRfc3339(std::string_view s) {
  const auto bad = [&](std::string_view why) {
    return Status::InvalidArgument(StrCat("bad time \"", s, "\": ", why));
  };
  size_t pos = 0;
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!ReadDigits(s, pos, 4, year) || !Expect(s, pos, '-') || !ReadDigits(s, pos, 2, month) ||
      !Expect(s, pos, '-') || !ReadDigits(s, pos, 2, day)) {
    return bad("expected YYYY-MM-DD");
  }
  const std::chrono::year_month_day ymd{std::chrono::year(year), std::chrono::month(month),
                                        std::chrono::day(day)};
  if (!ymd.ok()) return bad("no such date");
  int64_t millis = 0;
  int offset_minutes = 0;
  if (pos < s.size()) {
    if (s[pos] != 'T' && s[pos] != 't' && s[pos] != ' ') return bad("expected 'T' after the date");
    ++pos;
    if (!ReadDigits(s, pos, 2, hour) || !Expect(s, pos, ':') || !ReadDigits(s, pos, 2, minute) ||
        !Expect(s, pos, ':') || !ReadDigits(s, pos, 2, second)) {
      return bad("expected hh:mm:ss");
    }
    if (hour > 23 || minute > 59 || second > 60) return bad("time of day out of range");
    if (Expect(s, pos, '.')) {
      int64_t scale = 100;
      size_t digits = 0;
      while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
        millis += (s[pos] - '0') * scale;  // digits past milliseconds are dropped
        scale /= 10;
        ++pos;
        ++digits;
      }
      if (digits == 0) return bad("empty fraction");
    }
    if (pos >= s.size()) return bad("missing time zone (use Z or +hh:mm)");
    if (s[pos] == 'Z' || s[pos] == 'z') {
      ++pos;
    } else if (s[pos] == '+' || s[pos] == '-') {
      const int sign = s[pos] == '-' ? -1 : 1;
      ++pos;
      int oh = 0, om = 0;
      if (!ReadDigits(s, pos, 2, oh) || !Expect(s, pos, ':') || !ReadDigits(s, pos, 2, om)) {
        return bad("bad time zone offset");
      }
      offset_minutes = sign * (oh * 60 + om);
    } else {
      return bad("bad time zone");
    }
    if (pos != s.size()) return bad("trailing characters");
  }
  const auto days = std::chrono::sys_days(ymd);
  Instant t = std::chrono::time_point_cast<Duration>(days) + std::chrono::hours(hour) +
              std::chrono::minutes(minute) + std::chrono::seconds(second) + Duration(millis) -
              std::chrono::minutes(offset_minutes);
  return t;
}

}  // namespace

Result<Instant> ParseInstant(std::string_view text) {
  const std::string_view s = Trim(text);
  if (s.empty()) return Status::InvalidArgument("empty time");
  const bool numeric = s.find_first_not_of("0123456789.") == std::string_view::npos;
  if (numeric && (s.size() != 10 || s[4] != '-')) {
    double seconds = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), seconds);
    if (ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(seconds)) {
      return Status::InvalidArgument(StrCat("bad unix time \"", s, "\""));
    }
    // Past the year 9999 a time is no date (nor milliseconds a double holds exactly): it is
    // the end of 9999, so that "0,99999999999999" still reads as "everything".
    if (seconds * 1000.0 > static_cast<double>(kLastRfc3339Ms)) {
      return InstantFromUnixMs(kLastRfc3339Ms);
    }
    return InstantFromUnixMs(static_cast<int64_t>(std::llround(seconds * 1000.0)));
  }
  return ParseRfc3339(s);
}

std::string FormatRfc3339(Instant t) {
  // Years 0000 to 9999 only (a corrupt timestamp near the ends of int64 overflowed the day count);
  // past them the milliseconds are written as they are.
  if (UnixMs(t) < kFirstRfc3339Ms || UnixMs(t) > kLastRfc3339Ms) {
    return StrCat("unix ms ", UnixMs(t));
  }
  const auto days = std::chrono::floor<std::chrono::days>(t);
  const std::chrono::year_month_day ymd(days);
  const auto in_day = t - days;
  const int64_t ms_of_day = in_day.count();
  const int64_t h = ms_of_day / 3'600'000, m = ms_of_day / 60'000 % 60, sec = ms_of_day / 1000 % 60;
  const int64_t ms = ms_of_day % 1000;
  char buf[64];
  if (ms == 0) {
    std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02lld:%02lld:%02lldZ", int(ymd.year()),
                  unsigned(ymd.month()), unsigned(ymd.day()), static_cast<long long>(h),
                  static_cast<long long>(m), static_cast<long long>(sec));
  } else {
    std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02lld:%02lld:%02lld.%03lldZ", int(ymd.year()),
                  unsigned(ymd.month()), unsigned(ymd.day()), static_cast<long long>(h),
                  static_cast<long long>(m), static_cast<long long>(sec),
                  static_cast<long long>(ms));
  }
  return buf;
}

namespace {

// A duration whose milliseconds do not fit in 64 bits (some 292 million years).
Status TooLong(std::string_view text) {
  return Status::InvalidArgument(StrCat("bad duration \"", text, "\": too long"));
}

}  // namespace

Result<Duration> ParseDuration(std::string_view text) {
  const std::string_view s = Trim(text);
  if (s.empty()) return Status::InvalidArgument("empty duration");
  if (s.find_first_not_of("0123456789.") == std::string_view::npos) {
    double seconds = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), seconds);
    if (ec != std::errc() || ptr != s.data() + s.size() || seconds < 0) {
      return Status::InvalidArgument(StrCat("bad duration \"", s, "\""));
    }
    if (!(seconds * 1000.0 < 9.2e18)) return TooLong(s);  // llround's range
    return Duration(std::llround(seconds * 1000.0));
  }
  int64_t total = 0;
  size_t pos = 0;
  while (pos < s.size()) {
    int64_t n = 0;
    const auto [ptr, ec] = std::from_chars(s.data() + pos, s.data() + s.size(), n);
    if (ec != std::errc()) {
      return Status::InvalidArgument(StrCat("bad duration \"", s, "\": expected a number"));
    }
    pos = static_cast<size_t>(ptr - s.data());
    int64_t unit_ms = 0;
    if (s.substr(pos, 2) == "ms") {
      unit_ms = 1;
      pos += 2;
    } else if (pos < s.size()) {
      switch (s[pos]) {
        case 's': unit_ms = 1000; break;
        case 'm': unit_ms = 60'000; break;
        case 'h': unit_ms = 3'600'000; break;
        case 'd': unit_ms = 86'400'000; break;
        case 'w': unit_ms = 7 * 86'400'000LL; break;
        case 'y': unit_ms = 365 * 86'400'000LL; break;
        default: break;
      }
      if (unit_ms != 0) ++pos;
    }
    if (unit_ms == 0) {
      return Status::InvalidArgument(
          StrCat("bad duration \"", s, "\": expected a unit (ms, s, m, h, d, w, y)"));
    }
    int64_t ms = 0;
    if (__builtin_mul_overflow(n, unit_ms, &ms) || __builtin_add_overflow(total, ms, &total)) {
      return TooLong(s);
    }
  }
  return Duration(total);
}

std::string FormatDuration(Duration d) {
  int64_t ms = d.count();
  if (ms == 0) return "0s";
  std::string out;
  if (ms < 0) {
    out = "-";
    ms = -ms;
  }
  static constexpr struct {
    int64_t ms;
    const char* unit;
  } kUnits[] = {{86'400'000, "d"}, {3'600'000, "h"}, {60'000, "m"}, {1000, "s"}, {1, "ms"}};
  for (const auto& u : kUnits) {
    if (ms >= u.ms) {
      out += std::to_string(ms / u.ms);
      out += u.unit;
      ms %= u.ms;
    }
  }
  return out;
}

Result<Window> ParseWindow(std::string_view text) {
  const size_t comma = text.find(',');
  if (comma == std::string_view::npos) {
    return Status::InvalidArgument(StrCat("bad window \"", text, "\": expected START,END"));
  }
  GPUCOST_ASSIGN_OR_RETURN(Instant start, ParseInstant(text.substr(0, comma)));
  GPUCOST_ASSIGN_OR_RETURN(Instant end, ParseInstant(text.substr(comma + 1)));
  if (end <= start) {
    return Status::InvalidArgument(StrCat("bad window \"", text, "\": END must be after START"));
  }
  return Window{start, end};
}

Instant SystemClock::Now() const {
  return std::chrono::time_point_cast<Duration>(std::chrono::system_clock::now());
}

}  // namespace gpucost
