// Time types: instants (UTC, millisecond precision), durations, windows and steps, with parsing
// and formatting for RFC 3339, unix seconds and Prometheus-style durations ("90s", "1h30m").
// Also the Clock seam: code that needs "now" takes a Clock so tests never read the wall clock.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"

namespace gpucost {

using Duration = std::chrono::milliseconds;
using Instant = std::chrono::sys_time<std::chrono::milliseconds>;  // UTC

inline Instant InstantFromUnixMs(int64_t ms) { return Instant(Duration(ms)); }
inline int64_t UnixMs(Instant t) { return t.time_since_epoch().count(); }
inline double UnixSeconds(Instant t) { return static_cast<double>(UnixMs(t)) / 1000.0; }
inline double Seconds(Duration d) { return static_cast<double>(d.count()) / 1000.0; }
inline constexpr double kMsPerHour = 3'600'000.0;
inline double Hours(Duration d) { return static_cast<double>(d.count()) / kMsPerHour; }

// a mod m in [0, m), for m > 0 (C++'s % keeps the sign of a).
inline int64_t FloorMod(int64_t a, int64_t m) { return ((a % m) + m) % m; }
// The grid of steps of length `step` that start at `offset_ms` past multiples of it since the
// epoch: the grid point at or before `t`, and the one at or after it.
inline Instant GridFloor(Instant t, Duration step, int64_t offset_ms = 0) {
  return t - Duration(FloorMod(UnixMs(t) - offset_ms, step.count()));
}
inline Instant GridCeil(Instant t, Duration step, int64_t offset_ms = 0) {
  const Instant floor = GridFloor(t, step, offset_ms);
  return floor == t ? t : floor + step;
}

// Half-open [start, end).
struct Window {
  Instant start;
  Instant end;

  Duration length() const { return end - start; }
  bool empty() const { return end <= start; }
  bool Contains(Instant t) const { return t >= start && t < end; }
  friend bool operator==(const Window&, const Window&) = default;
};

// The part of `w` inside `other`; an empty window at w.start (or its end) when they do not meet.
inline Window Intersect(Window w, Window other) {
  const Instant start = std::clamp(other.start, w.start, w.end);
  const Instant end = std::clamp(other.end, start, w.end);
  return Window{start, end};
}

// Accepts RFC 3339 ("2026-10-01T00:00:00Z", "2026-10-01T02:00:00.5+02:00", date-only
// "2026-10-01") or unix seconds ("1759276800", "1759276800.25").
Result<Instant> ParseInstant(std::string_view text);

// "2026-10-01T00:00:00Z"; milliseconds are printed only when non-zero.
std::string FormatRfc3339(Instant t);

// Prometheus durations: "250ms", "60s", "5m", "1h30m", "7d", "2w"; a bare number is seconds.
Result<Duration> ParseDuration(std::string_view text);
// Shortest exact Prometheus form: 90000ms -> "1m30s".
std::string FormatDuration(Duration d);

// "START,END" with each side as ParseInstant accepts. END must be after START.
Result<Window> ParseWindow(std::string_view text);

// Number of whole or partial steps needed to cover the window.
inline int64_t StepCount(Window w, Duration step) {
  const int64_t len = w.length().count();
  return len <= 0 ? 0 : (len + step.count() - 1) / step.count();
}

class Clock {
 public:
  virtual ~Clock() = default;
  virtual Instant Now() const = 0;
};

class SystemClock final : public Clock {
 public:
  Instant Now() const override;
};

// A clock tests move by hand.
class FakeClock final : public Clock {
 public:
  explicit FakeClock(Instant start) : now_(start) {}
  Instant Now() const override { return now_; }
  void Advance(Duration d) { now_ += d; }
  void Set(Instant t) { now_ = t; }

 private:
  Instant now_;
};

}  // namespace gpucost
