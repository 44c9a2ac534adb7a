// Zstandard frames, the unit the scrape spool appends: one frame per scrape, so that a file is a
// run of frames (one zstd stream to any reader, `zstd -dc` included) and a torn last one can be
// found and cut. Stateless and thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"

namespace gpucost::scrape {

// `text` as one zstd frame with a content checksum, at zstd `level` with a window of up to
// 16 MiB: a scrape repeats each pod's identities (UID, name, GPU UUID) in families megabytes
// apart, which a smaller window cannot reach (docs/perf.md, "The scrape spool").
Result<std::string> ZstdFrame(std::string_view text, int level);

// The length of the whole frames at the start of the open file `fd` (read with pread, so the
// file offset is left alone): its size when every frame is whole, less when the last one is torn
// or what follows the frames is not one. `path` names the file in errors.
Result<uint64_t> WholeFramesLength(int fd, const std::string& path);

}  // namespace gpucost::scrape
