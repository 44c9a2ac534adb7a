#include "agent/proc_table.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <optional>
#include <utility>

#include "core/strings.h"

namespace gpucost::agent {
namespace {

constexpr int kStartTimeField = 22;
// Reads of a process that is replaced between them (its PID reused) are retried this often.
constexpr int kReadAttempts = 3;

// The whole of a /proc file (their stat size is 0, so read to EOF). nullopt when the process is
// gone: ENOENT on open, ESRCH on read.
Result<std::optional<std::string>> ReadProcFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == ESRCH) return std::optional<std::string>();
    return Status::IoError(StrCat("cannot open ", path, ": ", std::strerror(errno)));
  }
  std::string text;
  char buf[4096];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      text.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n == 0) break;
    if (errno == EINTR) continue;
    const int err = errno;
    ::close(fd);
    if (err == ESRCH) return std::optional<std::string>();
    return Status::IoError(StrCat("cannot read ", path, ": ", std::strerror(err)));
  }
  ::close(fd);
  return std::optional<std::string>(std::move(text));
}

}  // namespace

Result<uint64_t> StartTimeFromStat(std::string_view stat_text, std::string_view source) {
  const size_t close = stat_text.rfind(')');
  if (close == std::string_view::npos || stat_text.find('(') > close) {
    return Status::ParseError(StrCat(source, ": no command name in parentheses"));
  }
  // Fields after the command name are single-space separated, starting with field 3 (state).
  std::string_view rest = stat_text.substr(close + 1);
  int field = 2;
  while (!rest.empty()) {
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\n')) rest.remove_prefix(1);
    if (rest.empty()) break;
    size_t end = 0;
    while (end < rest.size() && rest[end] != ' ' && rest[end] != '\n') ++end;
    const std::string_view token = rest.substr(0, end);
    rest.remove_prefix(end);
    if (++field != kStartTimeField) continue;
    uint64_t ticks = 0;
    const auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), ticks);
    if (ec != std::errc() || ptr != token.data() + token.size()) {
      return Status::ParseError(
          StrCat(source, ": field 22 (starttime) is not a number: \"", token, "\""));
    }
    return ticks;
  }
  return Status::ParseError(StrCat(source, ": has ", field, " fields, field 22 (starttime) missing"));
}

ProcTable::ProcTable(std::string proc_root) : root_(std::move(proc_root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
}

Result<ProcessInfo> ProcTable::Identify(uint32_t pid) {
  const std::string dir = StrCat(root_, "/", pid);
  const std::string stat_path = dir + "/stat";
  const std::string cgroup_path = dir + "/cgroup";

  // A missing process is normal, a missing proc root is a misconfigured mount that would
  // otherwise make every process look gone.
  auto gone = [&]() -> Result<ProcessInfo> {
    struct stat st {};
    if (::stat(root_.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      return Status::IoError(StrCat("proc root ", root_, " is not a readable directory"));
    }
    cache_.erase(pid);
    return ProcessInfo{};
  };

  for (int attempt = 0; attempt < kReadAttempts; ++attempt) {
    GPUCOST_ASSIGN_OR_RETURN(std::optional<std::string> stat_before, ReadProcFile(stat_path));
    if (!stat_before) return gone();
    GPUCOST_ASSIGN_OR_RETURN(const uint64_t start, StartTimeFromStat(*stat_before, stat_path));
    if (auto it = cache_.find(pid); it != cache_.end()) {
      if (it->second.start_time_ticks == start) {
        return ProcessInfo{.exists = true, .start_time_ticks = start, .identity = it->second.identity};
      }
      cache_.erase(it);  // the PID was reused
    }

    GPUCOST_ASSIGN_OR_RETURN(std::optional<std::string> cgroup, ReadProcFile(cgroup_path));
    if (!cgroup) return gone();
    // Read the start time again: if the PID changed hands between the two reads, the cgroup
    // read may belong to either process.
    GPUCOST_ASSIGN_OR_RETURN(std::optional<std::string> stat_after, ReadProcFile(stat_path));
    if (!stat_after) return gone();
    GPUCOST_ASSIGN_OR_RETURN(const uint64_t start_after, StartTimeFromStat(*stat_after, stat_path));
    if (start_after != start) continue;

    ProcessInfo info{.exists = true, .start_time_ticks = start, .identity = ParseCgroup(*cgroup)};
    if (!info.identity.container_id.empty() || !info.identity.slurm_step.empty()) {
      cache_[pid] = Entry{.start_time_ticks = start, .identity = info.identity};
    }
    return info;
  }
  return Status::Unavailable(
      StrCat(dir, ": process replaced ", kReadAttempts, " times while its cgroup was read"));
}

void ProcTable::Prune(const std::vector<uint32_t>& live_pids) {
  std::vector<uint32_t> live = live_pids;
  std::sort(live.begin(), live.end());
  std::erase_if(cache_, [&live](const auto& entry) {
    return !std::binary_search(live.begin(), live.end(), entry.first);
  });
}

}  // namespace gpucost::agent
