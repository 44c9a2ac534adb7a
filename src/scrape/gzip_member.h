// Gzip members, the unit the scrape spool appends: one member per scrape, so that a file is a
// run of members (one gzip stream to any reader) and a torn last one can be found and cut.
// Stateless and thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"

namespace gpucost::scrape {

// `text` as one gzip member, compressed at zlib `level` (1 fastest .. 9 smallest).
Result<std::string> GzipMember(std::string_view text, int level);

// The length of the whole gzip members at the start of the open file `fd` (read with pread, so
// the file offset is left alone): its size when every member is whole, less when the last one
// is torn or what follows the members is not one. `path` names the file in errors.
Result<uint64_t> WholeMembersLength(int fd, const std::string& path);

}  // namespace gpucost::scrape
