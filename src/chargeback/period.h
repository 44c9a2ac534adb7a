// The period a chargeback statement covers: a calendar month in UTC (`--month 2026-10`) or any
// window, and the UTC days it spans (the statement's daily series). Plain value type.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"
#include "core/time.h"

namespace gpucost::chargeback {

struct Period {
  Window window;
  std::string month;  // "2026-10" when the period is that calendar month, else ""

  // Midnight UTC of the day the window starts in: the first day of the daily series.
  Instant first_day() const;
  // UTC days the window touches (at least 1 for a non-empty window).
  int64_t day_count() const;
  // Index of the UTC day holding `t`, clamped to [0, day_count() - 1].
  int64_t DayOf(Instant t) const;
};

// "2026-10" -> [2026-10-01T00:00:00Z, 2026-11-01T00:00:00Z); "current" and "previous" are the
// UTC month holding `now` and the one before it (what a monthly job that has no shell to compute a
// date asks for). InvalidArgument for anything else ("2026-13", "2026-1", "October").
Result<Period> ParseMonth(std::string_view text, Instant now);
// As above, with `now` read from the system clock.
Result<Period> ParseMonth(std::string_view text);

// A period for an arbitrary window (no month).
Period WindowPeriod(Window window);

}  // namespace gpucost::chargeback
