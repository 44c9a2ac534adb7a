// Feeds arbitrary bytes to the CUR import, whole and again in chunks of a few bytes, checking that
// both agree, that a good bill accounts for every row, and that errors name a location.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "billing/cur.h"

namespace {

gpucost::billing::ChunkSource Chunked(std::string_view data) {
  return [data, pos = size_t{0}, calls = size_t{0}]() mutable
         -> gpucost::Result<std::string_view> {
    const size_t n = std::min(data.size() - pos, size_t{1} + (calls++ % 5));
    std::string_view out = data.substr(pos, n);
    pos += n;
    return out;
  };
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const bool net : {false, true}) {
    const gpucost::billing::CurOptions options{.net = net};
    auto whole = gpucost::billing::ParseCur(text, "fuzz.csv", options);
    auto pieces = gpucost::billing::ReadCur(Chunked(text), "fuzz.csv", options);
    if (whole.ok() != pieces.ok()) std::abort();
    if (!whole.ok()) {
      if (whole.status().message() != pieces.status().message()) std::abort();
      if (whole.status().message().find("fuzz.csv") == std::string_view::npos) std::abort();
      continue;
    }
    const auto& d = whole->diagnostics;
    if (d.rows_read != d.instances.rows + d.other_usage.rows + d.commitment_fees.rows +
                           d.adjustments.rows + d.split_cost_skipped.rows) {
      std::abort();
    }
    if (whole->charges.size() != pieces->charges.size()) std::abort();
    int64_t lines = 0;
    for (size_t i = 0; i < whole->charges.size(); ++i) {
      const auto& a = whole->charges[i];
      const auto& b = pieces->charges[i];
      if (a.resource_id != b.resource_id || a.start != b.start || !(a.end > a.start)) std::abort();
      if (a.effective_usd != b.effective_usd || a.source_lines != b.source_lines) std::abort();
      if (!std::isfinite(a.billed_usd)) std::abort();
      if (i > 0) {
        const auto& p = whole->charges[i - 1];
        if (p.resource_id > a.resource_id || (p.resource_id == a.resource_id && p.start >= a.start)) {
          std::abort();
        }
      }
      lines += static_cast<int64_t>(a.source_lines.size());
    }
    if (lines != d.rows_used) std::abort();
  }
  return 0;
}
