#include "inventory/conflict_warnings.h"

#include "core/strings.h"
#include "core/time.h"
#include "inventory/sample_labels.h"

namespace gpucost {

void ConflictWarnings::Tell(const void* series, const Added& added, const SampleView& s,
                            int64_t t_ms, double value, const std::string& source,
                            Diagnostics& diag) {
  if (added.what == Added::kEarlier) {
    if (!went_back_.contains(series)) {
      went_back_.emplace(series, Where{SeriesText(s), source, s.line});
    }
    return;
  }
  diag.Warn("conflicting-sample", source, s.line,
            StrCat(SeriesText(s), " has two different values at ",
                   FormatRfc3339(InstantFromUnixMs(t_ms)), " (", added.kept, ", then ", value,
                   "); the first one (", added.kept, ") is used, as Prometheus keeps it"));
}

void ConflictWarnings::OnFinish(const void* series, const SampleConflicts& found,
                                Diagnostics& diag) const {
  if (found.instants == 0) return;
  const auto it = went_back_.find(series);
  const Where where = it != went_back_.end() ? it->second : Where{"a series", "", 0};
  std::string more;
  if (found.instants > 1) {
    more = StrCat(" (likewise at ", found.instants - 1, " more instant",
                  found.instants > 2 ? "s" : "", ")");
  }
  diag.Warn("conflicting-sample", where.source, where.line,
            StrCat(where.series, " goes back in time here; sorted, it has two different values at ",
                   FormatRfc3339(InstantFromUnixMs(found.first_t_ms)), " (", found.kept, ", then ",
                   found.dropped, "); the first one in input order (", found.kept,
                   ") is used, as Prometheus keeps it", more));
}

}  // namespace gpucost
