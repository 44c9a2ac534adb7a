#include "scrape/spool.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>

#include "core/log.h"
#include "core/redact.h"
#include "core/strings.h"
#include "scrape/spool_codec.h"

namespace gpucost::scrape {
namespace {

namespace fs = std::filesystem;
using std::chrono::hours;

constexpr std::string_view kZstSuffix = ".prom.zst";
// The files of earlier versions, read and pruned: gzip members, and text before them.
constexpr std::string_view kGzSuffix = ".prom.gz";
constexpr std::string_view kSuffix = ".prom";
constexpr size_t kMinuteStampLen = 14;  // "20261001T1307Z"
constexpr size_t kHourStampLen = 12;    // "20261001T13Z", the names of earlier versions

std::string MinuteStamp(Instant t) {
  const auto day = std::chrono::floor<std::chrono::days>(t);
  const std::chrono::year_month_day ymd(day);
  const auto minute = std::chrono::duration_cast<std::chrono::minutes>(t - day).count();
  char buf[64];  // room for any int the compiler cannot rule out
  std::snprintf(buf, sizeof buf, "%04d%02u%02uT%02d%02dZ", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                static_cast<int>(minute / 60), static_cast<int>(minute % 60));
  return buf;
}

bool ParseDigits(std::string_view s, int& out) {
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

// The span a spool file name stands for (its minute, or its hour for the names of earlier
// versions); nullopt for any other file (left alone).
std::optional<Window> SpanOfName(std::string_view name) {
  const size_t suffix = name.ends_with(kZstSuffix)  ? kZstSuffix.size()
                        : name.ends_with(kGzSuffix) ? kGzSuffix.size()
                        : name.ends_with(kSuffix)   ? kSuffix.size()
                                                    : 0;
  if (suffix == 0 || name.size() <= 8 || name[8] != 'T') return std::nullopt;
  size_t len = 0;
  if (name.size() > kMinuteStampLen + 1 + suffix && name[kMinuteStampLen - 1] == 'Z' &&
      name[kMinuteStampLen] == '_') {
    len = kMinuteStampLen;
  } else if (name.size() > kHourStampLen + 1 + suffix && name[kHourStampLen - 1] == 'Z' &&
             name[kHourStampLen] == '_') {
    len = kHourStampLen;
  } else {
    return std::nullopt;
  }
  int y = 0, m = 0, d = 0, h = 0, min = 0;
  if (!ParseDigits(name.substr(0, 4), y) || !ParseDigits(name.substr(4, 2), m) ||
      !ParseDigits(name.substr(6, 2), d) || !ParseDigits(name.substr(9, 2), h) || h > 23 ||
      (len == kMinuteStampLen && (!ParseDigits(name.substr(11, 2), min) || min > 59))) {
    return std::nullopt;
  }
  const std::chrono::year_month_day ymd{std::chrono::year(y),
                                        std::chrono::month(static_cast<unsigned>(m)),
                                        std::chrono::day(static_cast<unsigned>(d))};
  if (!ymd.ok()) return std::nullopt;
  const Instant start = Instant(std::chrono::sys_days(ymd)) + hours(h) + std::chrono::minutes(min);
  return Window{start, start + (len == kMinuteStampLen ? Duration(std::chrono::minutes(1))
                                                       : Duration(hours(1)))};
}

Status Errno(std::string_view what, const std::string& path) {
  return Status::IoError(StrCat("cannot ", what, " ", path, ": ", std::strerror(errno)));
}

// Cuts a torn last frame (a write cut short by a crash) back to the frames before it; gives the
// bytes cut.
Result<uint64_t> CutTornFrame(int fd, const std::string& path) {
  const off_t size = ::lseek(fd, 0, SEEK_END);
  if (size < 0) return Errno("seek in", path);
  GPUCOST_ASSIGN_OR_RETURN(const uint64_t whole, WholeFramesLength(fd, path));
  if (whole == static_cast<uint64_t>(size)) return 0;
  if (::ftruncate(fd, static_cast<off_t>(whole)) != 0) return Errno("truncate", path);
  LogWarn(StrCat("spool file ", path, ": cut a torn last scrape (",
                 static_cast<uint64_t>(size) - whole, " bytes after ", whole, " of whole ones)"));
  return static_cast<uint64_t>(size) - whole;
}

Status FsyncDir(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Errno("open", dir);
  const int rc = ::fsync(fd);
  ::close(fd);
  return rc == 0 ? Status::Ok() : Errno("sync", dir);
}

}  // namespace

Spool::Spool(std::string dir, int zstd_level) : dir_(std::move(dir)), zstd_level_(zstd_level) {}

std::string Spool::FileName(const ScrapeTarget& target, Instant t) {
  return StrCat(MinuteStamp(t), "_", TargetFileKey(target), kZstSuffix);
}

Status Spool::Open() {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) return Status::IoError(StrCat("cannot create spool folder ", dir_, ": ", ec.message()));
  if (!fs::is_directory(dir_, ec)) {
    return Status::IoError(StrCat("spool path ", dir_, " is not a folder"));
  }
  std::unique_lock<std::shared_mutex> lock(mu_);
  uint64_t bytes = 0, files = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(dir_, ec)) {
    if (!SpanOfName(e.path().filename().string()) || !e.is_regular_file(ec)) continue;
    const uintmax_t size = e.file_size(ec);
    if (ec) continue;  // gone meanwhile
    bytes += size;
    ++files;
  }
  if (ec) return Status::IoError(StrCat("cannot list spool folder ", dir_, ": ", ec.message()));
  bytes_ = bytes;
  files_ = files;
  return Status::Ok();
}

Status Spool::AppendLocked(const std::string& path, std::string_view frame) {
  struct stat st {};
  const bool created = ::stat(path.c_str(), &st) != 0;
  // Read as well as write: the torn-frame check reads the file.
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return Errno("open", path);
  Status status;
  if (checked_.insert(path).second && !created) {
    Result<uint64_t> cut = CutTornFrame(fd, path);
    if (cut.ok()) {
      bytes_ -= std::min<uint64_t>(*cut, bytes_);
    } else {
      status = cut.status();
      checked_.erase(path);
    }
  }
  const off_t before = status.ok() ? ::lseek(fd, 0, SEEK_END) : -1;
  if (status.ok() && before < 0) status = Errno("seek in", path);
  size_t done = 0;
  while (status.ok() && done < frame.size()) {
    const ssize_t n = ::write(fd, frame.data() + done, frame.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = ENOSPC;
      status = Errno("append to", path);
    } else {
      done += static_cast<size_t>(n);
    }
  }
  if (status.ok() && ::fsync(fd) != 0) status = Errno("sync", path);
  if (!status.ok() && before >= 0) {
    // Leave no partial scrape behind: back to where this one began. Where even that fails, the
    // next append checks the file's tail again.
    if (::ftruncate(fd, before) != 0) {
      LogWarn(StrCat("cannot truncate ", path, ": ", std::strerror(errno)));
      checked_.erase(path);
    }
  }
  ::close(fd);
  // A new file whose name is not known to last is removed: as if not written.
  if (status.ok() && created) status = FsyncDir(dir_);
  if (!status.ok()) {
    if (created && ::unlink(path.c_str()) == 0) checked_.erase(path);
    return status;
  }
  bytes_ += frame.size();
  if (created) ++files_;
  return Status::Ok();
}

void Spool::NoteOutcome(const ScrapeTarget& target, const Status& status) {
  const std::string key = StrCat(target.job, " ", RedactUri(target.url));
  if (status.ok()) {
    const auto it = failing_.find(key);
    if (it == failing_.end()) return;
    LogInfo(StrCat("scrape spool: the scrapes of ", key, " are stored again, after ", it->second,
                   " that could not be"));
    failing_.erase(it);
    return;
  }
  ++write_errors_;
  if (failing_[key]++ == 0) {
    LogError(StrCat("scrape spool: cannot store the scrapes of ", key, ": ", status.message(),
                    "; they are dropped until the spool can be written again (logged once, "
                    "counted in gpucost_scrape_spool_write_errors_total)"));
  }
}

Status Spool::Append(const ScrapeTarget& target, Instant scrape_time, std::string_view text) {
  if (text.empty()) return Status::Ok();
  // Compressed before the lock: the targets of a cycle compress in parallel.
  Result<std::string> frame = ZstdFrame(text, zstd_level_);
  const std::string path = (fs::path(dir_) / FileName(target, scrape_time)).string();
  std::unique_lock<std::shared_mutex> lock(mu_);
  const Status status = frame.ok() ? AppendLocked(path, *frame) : frame.status();
  NoteOutcome(target, status);
  return status;
}

Result<std::vector<std::string>> Spool::Files(Window window, Duration staleness) const {
  const Instant from = window.start - staleness;
  std::vector<std::pair<Instant, std::string>> found;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir_, ec)) {
    const std::optional<Window> span = SpanOfName(e.path().filename().string());
    if (!span || !e.is_regular_file(ec)) continue;
    if (span->start < window.end && span->end > from) {
      found.emplace_back(span->start, e.path().string());
    }
  }
  if (ec) return Status::IoError(StrCat("cannot list spool folder ", dir_, ": ", ec.message()));
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  out.reserve(found.size());
  for (auto& [start, path] : found) out.push_back(std::move(path));
  return out;
}

void Spool::Removed(uint64_t size) {
  bytes_ -= std::min<uint64_t>(size, bytes_);
  if (files_ > 0) --files_;
}

Result<PruneStats> Spool::Prune(Instant now, Duration retention, uint64_t max_bytes) {
  const Instant cutoff = now - retention;
  PruneStats stats;
  std::unique_lock<std::shared_mutex> lock(mu_);
  std::error_code ec;
  std::vector<std::pair<Window, fs::path>> files;
  for (const fs::directory_entry& e : fs::directory_iterator(dir_, ec)) {
    const std::optional<Window> span = SpanOfName(e.path().filename().string());
    if (span && e.is_regular_file(ec)) files.emplace_back(*span, e.path());
  }
  if (ec) return Status::IoError(StrCat("cannot list spool folder ", dir_, ": ", ec.message()));
  // Oldest first (by start, then name: a minute's targets in a fixed order).
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) {
    return a.first.start != b.first.start ? a.first.start < b.first.start : a.second < b.second;
  });
  for (const auto& [span, p] : files) {
    const bool expired = span.end <= cutoff;
    if (!expired && (max_bytes == 0 || bytes_ <= max_bytes)) {
      if (span.start >= cutoff) break;  // in time order: nothing later is due
      continue;
    }
    const uintmax_t size = fs::file_size(p, ec);
    if (!fs::remove(p, ec) || ec) {
      return Status::IoError(StrCat("cannot remove ", p.string(), ": ", ec.message()));
    }
    checked_.erase(p.string());
    const uint64_t bytes = size == static_cast<uintmax_t>(-1) ? 0 : size;
    Removed(bytes);
    ++stats.files_removed;
    stats.bytes_removed += bytes;
    if (expired) {
      ++removed_for_age_;
    } else {
      if (stats.files_over_size++ == 0) stats.over_size_from = span.start;
      ++removed_for_size_;
    }
  }
  return stats;
}

SpoolStats Spool::Stats() const {
  SpoolStats s;
  s.bytes = bytes_;
  s.files = files_;
  s.write_errors = write_errors_;
  s.removed_for_age = removed_for_age_;
  s.removed_for_size = removed_for_size_;
  return s;
}

}  // namespace gpucost::scrape
