// GPUs a Slurm job holds, read from its AllocTRES ("billing=11,cpu=8,gres/gpu:a100=1,gres/gpu=1,
// mem=64G,node=1"). Slurm records one GPU under the untyped key and again under each typed key
// the site tracks, so the untyped count wins and typed counts are only summed without it. GRES
// types whose name holds a MIG profile ("1g.5gb", "a100_1g.5gb") are MIG slices. Stateless and
// thread-safe.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "core/result.h"

namespace gpucost::slurm {

// The most GPUs (and MIG slices) one job's AllocTRES may hold: far above the largest clusters; a
// larger count is a corrupt row.
inline constexpr int kMaxJobGpus = 1 << 20;

struct GpuTres {
  int whole = 0;                    // whole GPUs (untyped, or typed with a non-MIG type)
  std::map<std::string, int> mig;   // canonical MIG profile ("1g.5gb") -> slices
  std::string whole_type;           // the non-MIG GRES type when exactly one was named ("a100")
  std::string mig_model_hint;       // text before the profile in a MIG type ("a100" of "a100_1g.5gb")
  std::string note;                 // why the typed and untyped counts disagreed, when they did

  int total() const;
  bool empty() const { return total() == 0; }
};

// The canonical MIG profile named inside a GRES type: "1g.5gb" -> "1g.5gb",
// "a100_1g.5gb" -> "1g.5gb", "nvidia_a100_3g.20gb" -> "3g.20gb", "1g.10gb+me" -> "1g.10gb+me";
// "" when the type names no profile ("a100", "h100_80gb"). `prefix` receives the text before it.
std::string MigProfileInGresType(std::string_view type, std::string* prefix = nullptr);

// Parses the GPU part of an AllocTRES string; other TRES (cpu, mem, billing, gres/gpumem, ...)
// are ignored. Errors name the malformed item.
Result<GpuTres> ParseGpuTres(std::string_view alloc_tres);

}  // namespace gpucost::slurm
