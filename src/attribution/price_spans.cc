#include "attribution/price_spans.h"

#include <algorithm>
#include <cmath>

#include "core/strings.h"

namespace gpucost::attribution {

Result<std::vector<PriceSpan>> BuildPriceSpans(const Node& node, Span window,
                                               const std::vector<PricePeriod>& periods) {
  std::vector<PriceSpan> out;
  int64_t cursor = window.start;
  for (size_t i = 0; i < periods.size(); ++i) {
    const PricePeriod& p = periods[i];
    Span s = ToSpan(p.interval.start, p.interval.end);
    if (s.end < s.start) {
      return Status::InvalidArgument(
          StrCat("node ", node.name, ": price period ", i, " ends before it starts"));
    }
    if (p.known() && (!std::isfinite(p.usd_per_gpu_hour) || p.usd_per_gpu_hour < 0 ||
                      p.usd_per_gpu_hour > kMaxUsdPerHour)) {
      return Status::InvalidArgument(StrCat("node ", node.name, ": price period ", i, " has price ",
                                            p.usd_per_gpu_hour, " USD/GPU-hour (", p.why, ")"));
    }
    s.start = std::max(s.start, window.start);
    s.end = std::min(s.end, window.end);
    if (s.empty()) continue;
    if (s.start < cursor) {
      return Status::InvalidArgument(StrCat("node ", node.name, ": price period ", i,
                                            " overlaps the one before it or is out of order"));
    }
    if (s.start > cursor) out.push_back({{cursor, s.start}, 0, 0, PriceSource::kUnknown, false});
    if (p.known()) {
      const double list = p.list_or_price();
      if (!std::isfinite(list) || list < 0 || list > kMaxUsdPerHour) {
        return Status::InvalidArgument(StrCat("node ", node.name, ": price period ", i,
                                              " has list price ", list, " USD/GPU-hour (", p.why,
                                              ")"));
      }
      out.push_back({s, p.usd_per_gpu_hour, list, p.source, true});
    } else {
      out.push_back({s, 0, 0, PriceSource::kUnknown, false});
    }
    cursor = s.end;
  }
  if (cursor < window.end) out.push_back({{cursor, window.end}, 0, 0, PriceSource::kUnknown, false});
  return out;
}

}  // namespace gpucost::attribution
