// Internal to the Slurm module: the smallest window covering two windows (an empty one adds
// nothing). Stateless.
#pragma once

#include <algorithm>

#include "core/time.h"

namespace gpucost::slurm {

inline Window Hull(const Window& a, const Window& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return {std::min(a.start, b.start), std::max(a.end, b.end)};
}

}  // namespace gpucost::slurm
