// Sizes as flags and settings spell them: "500MiB", "20GiB", "1.5TB", "0". Stateless and
// thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"

namespace gpucost {

// A number of bytes with an optional unit: B, KiB, MiB, GiB, TiB (powers of 1024) or kB, KB,
// MB, GB, TB (powers of 1000). A plain number is bytes; a fraction is rounded down to a byte.
Result<uint64_t> ParseByteSize(std::string_view text);

// The shortest of "512B", "1.5KiB", "20GiB" that shows `bytes` to three significant digits.
std::string FormatByteSize(uint64_t bytes);

}  // namespace gpucost
