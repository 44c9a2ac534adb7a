// A fake /proc tree in a temporary directory for the agent's tests and benchmarks: per PID a
// `cgroup` file with given text and a `stat` line with a given start time (field 22) and command
// name. Removed with everything in it when the FakeProc goes away. Not thread-safe. Throws
// std::filesystem_error when the temporary directory cannot be written (test setup only).
#pragma once

#include <stdlib.h>

#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

namespace gpucost::testing_util {

// A /proc/<pid>/stat line as Linux writes it, with `start_time_ticks` as field 22.
inline std::string FakeStatLine(uint32_t pid, std::string_view comm, uint64_t start_time_ticks) {
  // Fields 3..21: state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime
  // stime cutime cstime priority nice num_threads itrealvalue; then 22 starttime and a few more.
  return std::to_string(pid) + " (" + std::string(comm) + ") S 1 " + std::to_string(pid) + " " +
         std::to_string(pid) + " 0 -1 4194560 1520 0 0 0 12 3 0 0 20 0 4 0 " +
         std::to_string(start_time_ticks) + " 2147483648 5000 18446744073709551615 1 1 0 0 0 0 0 " +
         "16781312 17642 0 0 0 17 3 0 0 0 0 0\n";
}

class FakeProc {
 public:
  FakeProc() {
    std::string pattern = (std::filesystem::temp_directory_path() / "gpucost-proc-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw std::filesystem::filesystem_error("mkdtemp", pattern,
                                              std::error_code(errno, std::generic_category()));
    }
    root_ = pattern;
  }
  ~FakeProc() {
    std::error_code ignored;
    std::filesystem::remove_all(root_, ignored);
  }
  FakeProc(const FakeProc&) = delete;
  FakeProc& operator=(const FakeProc&) = delete;

  // The directory to give ProcTable as its proc root.
  const std::filesystem::path& root() const { return root_; }

  // Creates or replaces <root>/<pid>/{cgroup,stat}. A new start time with the same PID is how a
  // reused PID looks.
  void Add(uint32_t pid, std::string_view cgroup_text, uint64_t start_time_ticks,
           std::string_view comm = "python3") const {
    const std::filesystem::path dir = root_ / std::to_string(pid);
    std::filesystem::create_directories(dir);
    Write(dir / "cgroup", cgroup_text);
    Write(dir / "stat", FakeStatLine(pid, comm, start_time_ticks));
  }

  // Replaces one file of a PID, for malformed-input cases.
  void WriteFile(uint32_t pid, std::string_view name, std::string_view text) const {
    const std::filesystem::path dir = root_ / std::to_string(pid);
    std::filesystem::create_directories(dir);
    Write(dir / name, text);
  }

  // The process exits: its directory disappears.
  void Remove(uint32_t pid) const { std::filesystem::remove_all(root_ / std::to_string(pid)); }

 private:
  static void Write(const std::filesystem::path& path, std::string_view text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!out) throw std::runtime_error("cannot write " + path.string());
  }

  std::filesystem::path root_;
};

}  // namespace gpucost::testing_util
