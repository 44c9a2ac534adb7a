// --progress / --no-progress: whether a long command draws its progress line on stderr
// (core/progress.h). Without either, it does when stderr is a terminal, never in a pipe or a
// file. Stateless.
#pragma once

#include <CLI/CLI.hpp>

#include "core/progress.h"

namespace gpucost::cli {

using ProgressFlags = gpucost::ProgressFlags;

void AddProgressFlags(CLI::App& cmd, ProgressFlags& flags);

}  // namespace gpucost::cli
