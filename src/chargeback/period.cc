#include "chargeback/period.h"

#include <algorithm>
#include <cctype>
#include <chrono>

#include "core/strings.h"

namespace gpucost::chargeback {
namespace {

constexpr Duration kDay = std::chrono::hours(24);

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}

// "YYYY-MM" of the UTC month `months_back` months before the one holding `t`.
std::string MonthBefore(Instant t, int months_back) {
  const std::chrono::year_month_day day{std::chrono::floor<std::chrono::days>(t)};
  const std::chrono::year_month month =
      std::chrono::year_month{day.year(), day.month()} - std::chrono::months(months_back);
  const unsigned m = static_cast<unsigned>(month.month());
  return StrCat(static_cast<int>(month.year()), m < 10 ? "-0" : "-", m);
}

}  // namespace

Instant Period::first_day() const { return std::chrono::floor<std::chrono::days>(window.start); }

int64_t Period::day_count() const {
  if (window.empty()) return 0;
  const Duration span = window.end - first_day();
  return (span.count() + kDay.count() - 1) / kDay.count();
}

int64_t Period::DayOf(Instant t) const {
  const int64_t day = std::chrono::floor<std::chrono::days>(t - first_day()).count();
  return std::clamp<int64_t>(day, 0, std::max<int64_t>(0, day_count() - 1));
}

Result<Period> ParseMonth(std::string_view text, Instant now) {
  std::string_view t = Trim(text);
  std::string relative;
  if (t == "current" || t == "previous") {
    relative = MonthBefore(now, t == "current" ? 0 : 1);
    t = relative;
  }
  const auto bad = [&] {
    return Status::InvalidArgument(
        StrCat("bad month \"", text, "\": want YYYY-MM, e.g. 2026-10, current or previous"));
  };
  if (t.size() != 7 || t[4] != '-' || !AllDigits(t.substr(0, 4)) || !AllDigits(t.substr(5, 2))) {
    return bad();
  }
  const int year = std::stoi(std::string(t.substr(0, 4)));
  const unsigned month = static_cast<unsigned>(std::stoi(std::string(t.substr(5, 2))));
  if (year < 1970 || month < 1 || month > 12) return bad();
  using std::chrono::sys_days;
  const std::chrono::year_month first{std::chrono::year(year), std::chrono::month(month)};
  const std::chrono::year_month next = first + std::chrono::months(1);
  Period p;
  p.window.start = Instant(sys_days(first / 1));
  p.window.end = Instant(sys_days(next / 1));
  p.month = std::string(t);
  return p;
}

Result<Period> ParseMonth(std::string_view text) { return ParseMonth(text, SystemClock().Now()); }

Period WindowPeriod(Window window) { return Period{window, ""}; }

}  // namespace gpucost::chargeback
