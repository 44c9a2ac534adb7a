// Slurm prints times as "YYYY-MM-DDTHH:MM:SS" in the local time zone of the sacct process.
// LocalTimeZone turns such wall-clock times into UTC instants for a zone given as a setting:
// "UTC", a fixed offset ("+02:00", "-0530"), an IANA name ("Europe/Berlin", read from the system
// time zone database, $TZDIR or /usr/share/zoneinfo) or "local" (the zone of this process).
// libstdc++ 12 has no std::chrono::locate_zone, so named zones go through POSIX mktime with TZ
// set for the call; a process-wide mutex serialises that, but other threads reading local time
// at the same moment could observe the switch. Offsets are cached per local quarter hour (zones
// change offset on such boundaries). Not thread-safe (the cache); use one per parse.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/result.h"
#include "core/time.h"

namespace gpucost::slurm {

class LocalTimeZone {
 public:
  // Validates the setting: unknown names are an InvalidArgument error (glibc would silently
  // read them as UTC).
  static Result<LocalTimeZone> Make(std::string_view setting);

  const std::string& name() const { return name_; }

  // "2021-08-09T00:06:42" -> the UTC instant it names in this zone; also accepts unix seconds
  // (SLURM_TIME_FORMAT=%s). A time inside a daylight-saving gap is read with the offset in
  // force before the gap; for an hour repeated at the fall-back, mktime picks the pass. Errors
  // name the text.
  Result<Instant> ToInstant(std::string_view text);

  // The instant as wall-clock time in this zone, "YYYY-MM-DDTHH:MM:SS" (what sacct's
  // --starttime/--endtime read), whole seconds rounded down.
  Result<std::string> Format(Instant t) const;

 private:
  enum class Kind : uint8_t { kFixed, kNamed, kLocal };
  LocalTimeZone(Kind kind, std::string name, int64_t offset_s)
      : kind_(kind), name_(std::move(name)), offset_s_(offset_s) {}
  Result<int64_t> OffsetAt(int64_t local_s);

  Kind kind_;
  std::string name_;
  int64_t offset_s_ = 0;  // kFixed: local - UTC
  std::unordered_map<int64_t, int64_t> offset_by_slot_;
};

}  // namespace gpucost::slurm
