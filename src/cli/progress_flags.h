// --progress / --no-progress: whether a long command draws its progress line on stderr
// (core/progress.h). Without either, it does when stderr is a terminal, never in a pipe or a
// file. Stateless.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>

namespace gpucost::cli {

struct ProgressFlags {
  bool on = false;          // --progress
  bool off = false;         // --no-progress
  bool registered = false;  // AddProgressFlags ran: a command without the flags draws nothing
  std::optional<bool> forced() const {
    if (on) return true;
    if (off) return false;
    return std::nullopt;
  }
  // Whether to draw: never for a command without the flags (serve), else the flag given, else
  // whether stderr is a terminal.
  bool wanted() const;
};

void AddProgressFlags(CLI::App& cmd, ProgressFlags& flags);

}  // namespace gpucost::cli
