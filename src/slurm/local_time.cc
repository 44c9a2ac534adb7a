#include "slurm/local_time.h"

#include <charconv>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <mutex>

#include "core/strings.h"

namespace gpucost::slurm {
namespace {

constexpr int64_t kSlotS = 15 * 60;

std::mutex& TzMutex() {
  static std::mutex m;
  return m;
}

bool ParseInt(std::string_view t, int64_t& v) {
  if (t.empty() || t[0] < '0' || t[0] > '9') return false;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  return ec == std::errc() && p == t.data() + t.size();
}

// "+02:00", "-0530", "+2" -> seconds east of UTC.
std::optional<int64_t> ParseFixedOffset(std::string_view s) {
  if (s.size() < 2 || (s[0] != '+' && s[0] != '-')) return std::nullopt;
  const int64_t sign = s[0] == '-' ? -1 : 1;
  const std::string_view rest = s.substr(1);
  int64_t h = 0;
  int64_t m = 0;
  bool ok = false;
  if (rest.size() <= 2) {
    ok = ParseInt(rest, h);
  } else if (rest.size() == 5 && rest[2] == ':') {
    ok = ParseInt(rest.substr(0, 2), h) && ParseInt(rest.substr(3), m);
  } else if (rest.size() == 4) {
    ok = ParseInt(rest.substr(0, 2), h) && ParseInt(rest.substr(2), m);
  }
  if (!ok || h < 0 || m < 0) return std::nullopt;
  if (h > 18 || m > 59) return std::nullopt;
  return sign * (h * 3600 + m * 60);
}

bool ZoneFileExists(const std::string& name) {
  if (name.empty() || name.front() == '/' || name.find("..") != std::string::npos) return false;
  const char* dir = std::getenv("TZDIR");
  std::error_code ec;
  if (dir != nullptr && *dir != '\0' &&
      std::filesystem::is_regular_file(std::filesystem::path(dir) / name, ec)) {
    return true;
  }
  return std::filesystem::is_regular_file(std::filesystem::path("/usr/share/zoneinfo") / name, ec);
}

// Local wall-clock seconds (as if UTC) of "YYYY-MM-DDTHH:MM:SS"; nullopt when malformed.
std::optional<int64_t> ParseLocalSeconds(std::string_view t) {
  if (t.size() != 19 || t[4] != '-' || t[7] != '-' || (t[10] != 'T' && t[10] != ' ') ||
      t[13] != ':' || t[16] != ':') {
    return std::nullopt;
  }
  int64_t y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  if (!ParseInt(t.substr(0, 4), y) || !ParseInt(t.substr(5, 2), mo) || !ParseInt(t.substr(8, 2), d) ||
      !ParseInt(t.substr(11, 2), h) || !ParseInt(t.substr(14, 2), mi) ||
      !ParseInt(t.substr(17, 2), s)) {
    return std::nullopt;
  }
  const std::chrono::year_month_day ymd{std::chrono::year(static_cast<int>(y)),
                                        std::chrono::month(static_cast<unsigned>(mo)),
                                        std::chrono::day(static_cast<unsigned>(d))};
  if (!ymd.ok() || h > 23 || mi > 59 || s > 60) return std::nullopt;
  const int64_t days = std::chrono::sys_days(ymd).time_since_epoch().count();
  return days * 86400 + h * 3600 + mi * 60 + s;
}

}  // namespace

Result<LocalTimeZone> LocalTimeZone::Make(std::string_view setting) {
  const std::string s(Trim(setting));
  if (s == "UTC" || s == "utc" || s == "Z" || s == "GMT" || s == "Etc/UTC") {
    return LocalTimeZone(Kind::kFixed, "UTC", 0);
  }
  if (s == "local") return LocalTimeZone(Kind::kLocal, "local", 0);
  if (std::optional<int64_t> off = ParseFixedOffset(s)) return LocalTimeZone(Kind::kFixed, s, *off);
  if (ZoneFileExists(s)) return LocalTimeZone(Kind::kNamed, s, 0);
  return Status::InvalidArgument(
      StrCat("time zone \"", s, "\" is not UTC, local, a fixed offset like +02:00, or a name in "
             "the system time zone database (e.g. Europe/Berlin)"));
}

Result<int64_t> LocalTimeZone::OffsetAt(int64_t local_s) {
  if (kind_ == Kind::kFixed) return offset_s_;
  const int64_t slot = local_s - ((local_s % kSlotS) + kSlotS) % kSlotS;
  if (auto it = offset_by_slot_.find(slot); it != offset_by_slot_.end()) return it->second;
  const std::chrono::sys_seconds as_utc{std::chrono::seconds(slot)};
  const std::chrono::sys_days day = std::chrono::floor<std::chrono::days>(as_utc);
  const std::chrono::year_month_day ymd(day);
  const std::chrono::hh_mm_ss hms(as_utc - day);
  std::tm tm{};
  tm.tm_year = static_cast<int>(ymd.year()) - 1900;
  tm.tm_mon = static_cast<int>(static_cast<unsigned>(ymd.month())) - 1;
  tm.tm_mday = static_cast<int>(static_cast<unsigned>(ymd.day()));
  tm.tm_hour = static_cast<int>(hms.hours().count());
  tm.tm_min = static_cast<int>(hms.minutes().count());
  tm.tm_isdst = -1;
  std::time_t t = -1;
  {
    std::lock_guard<std::mutex> lock(TzMutex());
    std::optional<std::string> saved;
    if (kind_ == Kind::kNamed) {
      if (const char* old = std::getenv("TZ")) saved = old;
      setenv("TZ", name_.c_str(), 1);
    }
    tzset();
    t = std::mktime(&tm);
    if (kind_ == Kind::kNamed) {
      if (saved) {
        setenv("TZ", saved->c_str(), 1);
      } else {
        unsetenv("TZ");
      }
      tzset();
    }
  }
  if (t == static_cast<std::time_t>(-1)) {
    return Status::ParseError(StrCat("time is out of range for time zone ", name_));
  }
  const int64_t offset = slot - static_cast<int64_t>(t);
  offset_by_slot_.emplace(slot, offset);
  return offset;
}

Result<Instant> LocalTimeZone::ToInstant(std::string_view text) {
  text = Trim(text);
  int64_t unix_s = 0;
  if (!text.empty() && text.size() <= 12 && ParseInt(text, unix_s) && unix_s >= 0) {
    return InstantFromUnixMs(unix_s * 1000);
  }
  const std::optional<int64_t> local = ParseLocalSeconds(text);
  if (!local) {
    return Status::ParseError(StrCat("time \"", text, "\" is not YYYY-MM-DDTHH:MM:SS"));
  }
  GPUCOST_ASSIGN_OR_RETURN(const int64_t offset, OffsetAt(*local));
  return InstantFromUnixMs((*local - offset) * 1000);
}

Result<std::string> LocalTimeZone::Format(Instant t) const {
  const int64_t unix_s = std::chrono::floor<std::chrono::seconds>(t.time_since_epoch()).count();
  int64_t local_s = unix_s + offset_s_;
  if (kind_ != Kind::kFixed) {
    std::tm tm{};
    const auto tt = static_cast<std::time_t>(unix_s);
    bool ok = false;
    {
      std::lock_guard<std::mutex> lock(TzMutex());
      std::optional<std::string> saved;
      if (kind_ == Kind::kNamed) {
        if (const char* old = std::getenv("TZ")) saved = old;
        setenv("TZ", name_.c_str(), 1);
      }
      tzset();
      ok = localtime_r(&tt, &tm) != nullptr;
      if (kind_ == Kind::kNamed) {
        if (saved) {
          setenv("TZ", saved->c_str(), 1);
        } else {
          unsetenv("TZ");
        }
        tzset();
      }
    }
    if (!ok) return Status::InvalidArgument(StrCat("time is out of range for time zone ", name_));
    local_s = unix_s + tm.tm_gmtoff;
  }
  const std::chrono::sys_seconds as_utc{std::chrono::seconds(local_s)};
  const std::chrono::sys_days day = std::chrono::floor<std::chrono::days>(as_utc);
  const std::chrono::year_month_day ymd(day);
  const std::chrono::hh_mm_ss hms(as_utc - day);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02d", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                static_cast<int>(hms.hours().count()), static_cast<int>(hms.minutes().count()),
                static_cast<int>(hms.seconds().count()));
  return std::string(buf);
}

}  // namespace gpucost::slurm
