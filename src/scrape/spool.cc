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
#include "core/strings.h"

namespace gpucost::scrape {
namespace {

namespace fs = std::filesystem;
using std::chrono::hours;

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
  if (!name.ends_with(kSuffix) || name.size() <= 8 || name[8] != 'T') return std::nullopt;
  size_t len = 0;
  if (name.size() > kMinuteStampLen + 1 + kSuffix.size() && name[kMinuteStampLen - 1] == 'Z' &&
      name[kMinuteStampLen] == '_') {
    len = kMinuteStampLen;
  } else if (name.size() > kHourStampLen + 1 + kSuffix.size() && name[kHourStampLen - 1] == 'Z' &&
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

// Cuts a tail without a final newline (a write torn by a crash) back to the last newline.
Status RepairTail(int fd, const std::string& path) {
  const off_t size = ::lseek(fd, 0, SEEK_END);
  if (size < 0) return Errno("seek in", path);
  if (size == 0) return Status::Ok();
  char block[64 * 1024];
  off_t end = size;
  bool last = true;
  while (end > 0) {
    const off_t begin = std::max<off_t>(0, end - static_cast<off_t>(sizeof block));
    const auto want = static_cast<size_t>(end - begin);
    const ssize_t got = ::pread(fd, block, want, begin);
    if (got != static_cast<ssize_t>(want)) return Errno("read", path);
    if (last && block[want - 1] == '\n') return Status::Ok();
    last = false;
    for (size_t i = want; i > 0; --i) {
      if (block[i - 1] == '\n') {
        end = begin + static_cast<off_t>(i);
        if (::ftruncate(fd, end) != 0) return Errno("truncate", path);
        LogWarn(StrCat("spool file ", path, ": cut a torn last line (", size - end, " bytes)"));
        return Status::Ok();
      }
    }
    end = begin;
  }
  if (::ftruncate(fd, 0) != 0) return Errno("truncate", path);
  LogWarn(StrCat("spool file ", path, ": cut a torn last line (", size, " bytes)"));
  return Status::Ok();
}

Status FsyncDir(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Errno("open", dir);
  const int rc = ::fsync(fd);
  ::close(fd);
  return rc == 0 ? Status::Ok() : Errno("sync", dir);
}

}  // namespace

Spool::Spool(std::string dir) : dir_(std::move(dir)) {}

std::string Spool::FileName(const ScrapeTarget& target, Instant t) {
  return StrCat(MinuteStamp(t), "_", TargetFileKey(target), kSuffix);
}

Status Spool::Open() {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) return Status::IoError(StrCat("cannot create spool folder ", dir_, ": ", ec.message()));
  if (!fs::is_directory(dir_, ec)) {
    return Status::IoError(StrCat("spool path ", dir_, " is not a folder"));
  }
  return Status::Ok();
}

Status Spool::Append(const ScrapeTarget& target, Instant scrape_time, std::string_view text) {
  if (text.empty()) return Status::Ok();
  const std::string path = (fs::path(dir_) / FileName(target, scrape_time)).string();
  std::unique_lock<std::shared_mutex> lock(mu_);
  struct stat st {};
  const bool created = ::stat(path.c_str(), &st) != 0;
  // Read as well as write: the torn-tail check reads the end of the file.
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return Errno("open", path);
  Status status;
  if (checked_.insert(path).second && !created) status = RepairTail(fd, path);
  const off_t before = status.ok() ? ::lseek(fd, 0, SEEK_END) : -1;
  if (status.ok() && before < 0) status = Errno("seek in", path);
  size_t done = 0;
  while (status.ok() && done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      status = Errno("append to", path);
      // Leave no partial scrape behind: back to where this one began.
      if (::ftruncate(fd, before) != 0) LogWarn(StrCat("cannot truncate ", path));
      break;
    }
    done += static_cast<size_t>(n);
  }
  if (status.ok() && ::fsync(fd) != 0) status = Errno("sync", path);
  ::close(fd);
  if (status.ok() && created) status = FsyncDir(dir_);
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

Result<PruneStats> Spool::Prune(Instant now, Duration retention) {
  const Instant cutoff = now - retention;
  PruneStats stats;
  std::unique_lock<std::shared_mutex> lock(mu_);
  std::error_code ec;
  std::vector<fs::path> old;
  for (const fs::directory_entry& e : fs::directory_iterator(dir_, ec)) {
    const std::optional<Window> span = SpanOfName(e.path().filename().string());
    if (span && span->end <= cutoff && e.is_regular_file(ec)) old.push_back(e.path());
  }
  if (ec) return Status::IoError(StrCat("cannot list spool folder ", dir_, ": ", ec.message()));
  for (const fs::path& p : old) {
    const uintmax_t size = fs::file_size(p, ec);
    if (!fs::remove(p, ec) || ec) {
      return Status::IoError(StrCat("cannot remove ", p.string(), ": ", ec.message()));
    }
    checked_.erase(p.string());
    ++stats.files_removed;
    stats.bytes_removed += size == static_cast<uintmax_t>(-1) ? 0 : size;
  }
  return stats;
}

}  // namespace gpucost::scrape
