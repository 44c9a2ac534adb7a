// The values the ledger's calls take and give: a window read back (LedgerWindow) and how to read
// it (ReadOptions), the gaps and scope of a write (WriteGaps, WriteScope), and what the ledger
// keeps per cluster for its writer (ScopeState). Plain values; see ledger/ledger.h.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attribution/attributor.h"
#include "core/status.h"
#include "core/time.h"
#include "model/inventory.h"
#include "report/row_accumulator.h"

namespace gpucost::ledger {

class RollupCache;

// A ledger without a single cost record (a new one: nothing attributed yet) answers a read of
// its whole span NotFound with this message after its path; IsEmptyLedger tells it from others.
inline constexpr std::string_view kNoCostRecords = "the ledger holds no cost records";
inline bool IsEmptyLedger(const Status& s) {
  return s.code() == StatusCode::kNotFound && s.message().ends_with(kNoCostRecords);
}

// What a window of the ledger holds.
struct LedgerWindow {
  Window window;        // the window asked for, or the ledger's span when none was given
  Duration step{0};     // the records' step (one step per window)
  Inventory inventory;  // the units, their nodes and the holders the records mention
  std::vector<CostRecord> records;  // step indexes relative to window.start
  // With ReadOptions::rollups: whole hours and days of the window as roll-ups instead of records
  // (step indexes relative to window.start, each inside one output bucket).
  std::vector<RolledRecord> rolled;
};

// How Read may answer.
struct ReadOptions {
  // Whole sealed hours and days of the window come as roll-ups (LedgerWindow::rolled) where each
  // lies inside one output bucket; for a report, not for sinks that want every record.
  bool rollups = false;
  bool accumulate = true;  // the output is one bucket, the whole window
  Duration bucket{0};      // otherwise the output step, from the window's start
  // Decoded roll-up periods kept between reads (a long-running reader); none when null.
  RollupCache* cache = nullptr;
  // Only the records of these clusters (their units'); every cluster's when empty.
  std::vector<std::string> clusters;
  // A window of more records than this is refused (InvalidArgument); 0: no bound.
  size_t max_records = 0;
};

// Steps of a write that its source had no data for (docs/ledger.md, "Gaps"). The records such a
// step already holds are kept, not replaced: the source no longer has what they came from. With
// `carry` (steps the writer did not watch as they closed), a step that holds none is given the
// records of the step before it, carried over unmeasured.
struct GapRun {
  Window window;  // inside the write's window, on its steps
  bool carry = false;
};
struct WriteGaps {
  std::vector<GapRun> runs;   // in time order, not overlapping
  int64_t carried_steps = 0;  // set by Write: the steps that were given records
};

// Whose records a write replaces (docs/ledger.md, "Many clusters"). A ledger holds many
// clusters; a write replaces, in its window, the records of its clusters only: those of the
// inventory's nodes and those named here.
struct WriteScope {
  // Clusters the write replaces besides the inventory's (a carry-over writes no inventory).
  std::vector<std::string> clusters;
  // A continuous writer's name; non-empty: the write takes or renews its clusters' writer lease
  // until `now + lease`, and where another writer holds one that has not run out it fails
  // (FailedPrecondition) and writes nothing. Empty: a one-shot write, which takes no lease.
  std::string writer;
  Duration lease{0};
  Instant now{};
  // A writer known to have stopped (a process of this host that is gone): its lease is taken
  // without waiting for it to run out.
  std::string replaces;
};

// What the ledger keeps per cluster for its writer.
struct ScopeState {
  std::string cluster;
  std::string source;  // "kubernetes", "slurm"; "" until a write names holders
  std::optional<Instant> attributed_through;
  std::optional<Window> newest_step;  // the newest step written for the cluster
  std::string writer;                 // the lease's holder; "" none
  Instant lease_until{};
};

}  // namespace gpucost::ledger
