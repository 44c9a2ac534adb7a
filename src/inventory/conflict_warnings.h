// Warnings for conflicting samples: two samples of one series at one instant with different
// values, of which the first one in input order is kept, as Prometheus keeps it (docs/inputs.md
// "conflicting duplicates"). A sample that repeats the instant added just before it is told at
// once, at its file:line. A series whose samples go back in time is noted where they first do, and
// the conflicts its Finish() finds when sorting are told then, once per series, at that place.
// Series are known by address (map nodes do not move). Not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "ingest/exposition.h"
#include "inventory/diagnostics.h"
#include "inventory/series_timeline.h"

namespace gpucost {

class ConflictWarnings {
 public:
  // After series->Add(t_ms, value) returned `added` for the sample `s`. In time order and
  // without conflict, as nearly every sample is, this is one comparison.
  void OnAdd(const void* series, const Added& added, const SampleView& s, int64_t t_ms,
             double value, const std::string& source, Diagnostics& diag) {
    if (added.what != Added::kInOrder) Tell(series, added, s, t_ms, value, source, diag);
  }
  // After series->Finish() returned `found`.
  void OnFinish(const void* series, const SampleConflicts& found, Diagnostics& diag) const;

 private:
  struct Where {
    std::string series;  // name{labels} as written
    std::string source;
    uint64_t line = 0;
  };
  void Tell(const void* series, const Added& added, const SampleView& s, int64_t t_ms, double value,
            const std::string& source, Diagnostics& diag);

  std::map<const void*, Where> went_back_;  // where each series' samples first went back in time
};

}  // namespace gpucost
