// Reading a window back: which parts come as records and which as roll-ups (Plan), the records
// and roll-ups themselves; the units, nodes and holders they name are ledger_inventory.cc's.
#include <algorithm>
#include <cstdlib>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/strings.h"
#include "ledger/ledger.h"
#include "ledger/period_checks.h"
#include "ledger/record_flags.h"
#include "ledger/rollup_cache.h"
#include "ledger/sql_db.h"

namespace gpucost::ledger {
namespace {

int64_t FloorDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

bool AlignedTo(int64_t ms, int64_t period) { return ms % period == 0; }

// The period length under which RollupCache keeps a sum of periods (its key names them all).
constexpr int64_t kMergedPeriods = -1;

}  // namespace

Result<std::vector<Ledger::Segment>> Ledger::Plan(int64_t lo, int64_t hi, int64_t origin,
                                                  const ReadOptions& options,
                                                  std::set<int64_t>& steps) {
  std::vector<Segment> plan;
  const auto records = [&plan](int64_t a, int64_t b) {
    if (a >= b) return;
    if (!plan.empty() && plan.back().period_ms == 0 && plan.back().end_ms == a) {
      plan.back().end_ms = b;
    } else {
      plan.push_back({a, b, 0});
    }
  };
  if (!options.rollups) {
    records(lo, hi);
    return plan;
  }
  struct Marker {
    int64_t step_ms, generation;
  };
  std::map<std::pair<int64_t, int64_t>, Marker> rolled;  // (period, start)
  {
    Result<std::unique_ptr<Statement>> q = db_->Prepare(
        "SELECT period_ms, start_ms, step_ms, generation FROM rollup_periods WHERE start_ms >= "
        "$1 AND start_ms < $2 AND step_ms > 0");
    if (!q.ok()) return Fail("reading the roll-ups", q.status());
    (*q)->Bind(1, lo).Bind(2, hi);
    for (;;) {
      Result<bool> row = (*q)->Step();
      if (!row.ok()) return Fail("reading the roll-ups", row.status());
      if (!*row) break;
      rolled[{(*q)->Int(0), (*q)->Int(1)}] = Marker{(*q)->Int(2), (*q)->Int(3)};
    }
  }
  const int64_t bucket_ms = options.bucket.count();
  // A period is used when it was rolled, lies in the window and in one output bucket.
  const auto use = [&](int64_t period, int64_t start) {
    if (!AlignedTo(start, period) || start < lo || start + period > hi) return false;
    const auto it = rolled.find({period, start});
    if (it == rolled.end()) return false;
    if (!options.accumulate &&
        (bucket_ms <= 0 ||
         FloorDiv(start - origin, bucket_ms) != FloorDiv(start + period - 1 - origin, bucket_ms))) {
      return false;
    }
    steps.insert(it->second.step_ms);
    plan.push_back({start, start + period, period, it->second.generation});
    return true;
  };
  for (int64_t cur = lo; cur < hi;) {
    if (use(kDayMs, cur)) {
      cur += kDayMs;
    } else if (use(kHourMs, cur)) {
      cur += kHourMs;
    } else if (use(kFiveMinutesMs, cur)) {
      cur += kFiveMinutesMs;
    } else {
      const int64_t next = std::min(hi, (FloorDiv(cur, kFiveMinutesMs) + 1) * kFiveMinutesMs);
      records(cur, next);
      cur = next;
    }
  }
  return plan;
}

// A window whose end (or start) falls inside a step would cost all of that step, or none of it:
// a record is one whole step, and a roll-up holds the steps that start in its period. Where the
// ledger holds the step an edge falls in and steps on the window's side of it too, the edge
// must fall on a step boundary. (A write whose window ends off its grid ends in a step cut at
// that end, with none after it: reading that window again is exact.) Found from the records
// themselves, whatever the roll-ups answer.
Status Ledger::CheckEdges(int64_t lo, int64_t hi) {
  for (const bool at_end : {true, false}) {
    const int64_t edge = at_end ? hi : lo;
    Result<std::unique_ptr<Statement>> q = db_->Prepare(
        "SELECT step_start_ms, step_ms FROM cost_records WHERE step_start_ms < $1 "
        "ORDER BY step_start_ms DESC LIMIT 1");
    if (!q.ok()) return Fail("reading", q.status());
    (*q)->Bind(1, edge);
    Result<bool> row = (*q)->Step();
    if (!row.ok()) return Fail("reading", row.status());
    if (!*row || (*q)->Int(0) + (*q)->Int(1) <= edge) continue;
    const int64_t cut = (*q)->Int(0);
    const int64_t cut_ms = (*q)->Int(1);
    // Steps on the far side of the cut one: after it for the end, inside the window for the start.
    Result<std::unique_ptr<Statement>> more = db_->Prepare(
        "SELECT 1 FROM cost_records WHERE step_start_ms >= $1 AND step_start_ms < $2 LIMIT 1");
    if (!more.ok()) return Fail("reading", more.status());
    (*more)->Bind(1, edge).Bind(2, at_end ? std::numeric_limits<int64_t>::max() : hi);
    row = (*more)->Step();
    if (!row.ok()) return Fail("reading", row.status());
    if (!*row) continue;
    return Status::InvalidArgument(
        StrCat(path_, ": the window ", at_end ? "ends" : "starts", " inside the step ",
               FormatRfc3339(InstantFromUnixMs(cut)), " to ",
               FormatRfc3339(InstantFromUnixMs(cut + cut_ms)), " (", cut_ms / 1000,
               " s), which would be costed ", at_end ? "whole" : "not at all", ": ",
               at_end ? "end" : "start", " it on a step boundary"));
  }
  return Status::Ok();
}

Result<LedgerWindow> Ledger::Read(std::optional<Window> window, const ReadOptions& options) {
  // One snapshot, so that a writer's roll-up between two of the read's statements cannot look
  // like damage.
  if (Status s = db_->BeginRead(); !s.ok()) return Fail("reading", s);
  Result<LedgerWindow> out = ReadSnapshot(window, options);
  (void)db_->Rollback();  // nothing to keep
  return out;
}

Result<LedgerWindow> Ledger::ReadSnapshot(std::optional<Window> window,
                                          const ReadOptions& options) {
  LedgerWindow out;
  int64_t lo = 0;
  int64_t hi = 0;
  if (window) {
    lo = UnixMs(window->start);
    hi = UnixMs(window->end);
  } else {
    // The whole ledger: its first step start and its last step end (both from the key's index).
    GPUCOST_ASSIGN_OR_RETURN(std::optional<Window> span, Span());
    if (!span) return Status::NotFound(StrCat(path_, ": ", kNoCostRecords));
    lo = UnixMs(span->start);
    hi = UnixMs(span->end);
  }
  if (window) {
    // A window far beyond what the ledger holds costs what it holds: clipped to the ledger's
    // span by whole steps (and whole output buckets), so that steps and buckets stay where the
    // window puts them.
    GPUCOST_ASSIGN_OR_RETURN(std::optional<Window> span, Span());
    GPUCOST_ASSIGN_OR_RETURN(Duration newest, NewestStep());
    if (span && newest.count() > 0) {
      const int64_t s = UnixMs(span->start);
      const int64_t e = UnixMs(span->end);
      if (hi <= s || lo >= e) {  // nothing of it
        out.window = Window{InstantFromUnixMs(lo), InstantFromUnixMs(hi)};
        return out;
      }
      int64_t unit = newest.count();
      if (!options.accumulate && options.bucket.count() > 0) {
        unit = std::lcm(unit, static_cast<int64_t>(options.bucket.count()));
      }
      if (s > lo) lo += (s - lo) / unit * unit;
      if (hi > e) hi -= (hi - e) / unit * unit;
    }
  }
  const int64_t origin = lo;
  std::set<int64_t> steps;
  GPUCOST_ASSIGN_OR_RETURN(std::vector<Segment> plan, Plan(lo, hi, origin, options, steps));

  // The step lengths of the parts read as records, and where their first step starts.
  int64_t first = INT64_MAX;
  {
    Result<std::unique_ptr<Statement>> q = db_->Prepare(
        "SELECT step_ms, MIN(step_start_ms) FROM cost_records WHERE step_start_ms >= $1 AND "
        "step_start_ms < $2 GROUP BY step_ms");
    if (!q.ok()) return Fail("reading", q.status());
    for (const Segment& seg : plan) {
      if (seg.period_ms != 0) continue;
      (*q)->Reset();
      (*q)->Bind(1, seg.start_ms).Bind(2, seg.end_ms);
      for (;;) {
        Result<bool> row = (*q)->Step();
        if (!row.ok()) return Fail("reading", row.status());
        if (!*row) break;
        steps.insert((*q)->Int(0));
        first = std::min(first, (*q)->Int(1));
      }
    }
  }
  if (steps.size() > 1) {
    std::string list;
    for (int64_t s : steps) list += StrCat(list.empty() ? "" : ", ", s / 1000, " s");
    return Status::InvalidArgument(StrCat(path_, ": the window holds records of steps ", list,
                                          ": read a window written with one step"));
  }
  out.window = Window{InstantFromUnixMs(lo), InstantFromUnixMs(hi)};
  GPUCOST_RETURN_IF_ERROR(CheckEdges(lo, hi));
  if (steps.empty()) return out;
  const int64_t step_ms = *steps.begin();
  out.step = std::chrono::milliseconds(step_ms);
  if (first != INT64_MAX && (first - origin) % step_ms != 0) {
    return Status::InvalidArgument(StrCat(path_, ": the window starts between steps of ",
                                          step_ms / 1000, " s: start it on a step boundary"));
  }
  // With ReadOptions::clusters: which unit ids are theirs.
  std::vector<bool> wanted;
  if (!options.clusters.empty()) {
    Result<std::unique_ptr<Statement>> wq = db_->Prepare(
        StrCat("SELECT u.id FROM units u JOIN nodes n ON n.id = u.node_id WHERE n.cluster IN (",
               Params(1, options.clusters.size()), ")"));
    if (!wq.ok()) return Fail("reading its clusters' units", wq.status());
    BindAll(**wq, 1, options.clusters);
    for (;;) {
      Result<bool> row = (*wq)->Step();
      if (!row.ok()) return Fail("reading its clusters' units", row.status());
      if (!*row) break;
      const auto id = static_cast<size_t>((*wq)->Int(0));
      if (id >= wanted.size()) wanted.resize(id + 1, false);
      wanted[id] = true;
    }
  }
  const auto keep = [&](int64_t unit_id) {
    return options.clusters.empty() ||
           (static_cast<size_t>(unit_id) < wanted.size() && wanted[static_cast<size_t>(unit_id)]);
  };

  std::vector<UnitIndex> units;  // by ledger id (ReadInventory)
  std::vector<HolderIndex> holders;
  const auto name = [&](int64_t unit_id, int64_t holder_id) {
    const auto mark = [](std::vector<uint32_t>& index, int64_t id) {
      const auto i = static_cast<size_t>(id);
      if (i >= index.size()) index.resize(std::max(i + 1, index.size() * 2), kNoIndex);
      if (index[i] == kNoIndex) index[i] = kNamed;
    };
    mark(units, unit_id);
    if (holder_id != 0) mark(holders, holder_id);
  };
  // Records by unit, then step, for the sinks that read a unit's steps in order; a report from
  // roll-ups sums them in any order, and takes them as the key's index gives them (no sort).
  Result<std::unique_ptr<Statement>> rq = db_->Prepare(
      StrCat("SELECT step_start_ms, unit_id, holder_id, ", kRecordValueColumns,
             " FROM cost_records WHERE step_start_ms >= $1 AND step_start_ms < $2",
             options.rollups ? "" : " ORDER BY unit_id, step_start_ms, holder_id"));
  if (!rq.ok()) return Fail("reading cost records", rq.status());
  // Roll-ups keep their ledger ids until the inventory is read.
  std::vector<std::pair<RolledPeriod, int64_t>> periods;  // rows, first step
  size_t rolled_rows = 0;
  for (const Segment& seg : plan) {
    if (seg.period_ms != 0) {
      GPUCOST_ASSIGN_OR_RETURN(RolledPeriod rows, RolledRows(seg, options.cache));
      if (!options.clusters.empty()) {
        auto theirs = std::make_shared<std::vector<StoredRollup>>();
        for (const StoredRollup& r : *rows) {
          if (keep(r.unit_id)) theirs->push_back(r);
        }
        rows = std::move(theirs);
      }
      rolled_rows += rows->size();
      periods.emplace_back(std::move(rows), (seg.start_ms - origin) / step_ms);
      continue;
    }
    Statement& q = **rq;
    q.Reset();
    q.Bind(1, seg.start_ms).Bind(2, seg.end_ms);
    // Every record of the segment, other clusters' too: the checks count them all.
    RecordTally tally(seg.start_ms, seg.end_ms);
    for (;;) {
      Result<bool> row = q.Step();
      if (!row.ok()) return Fail("reading cost records", row.status());
      if (!*row) break;
      if (options.max_records > 0 && out.records.size() >= options.max_records) {
        return Status::InvalidArgument(
            StrCat(path_, ": the window holds more than ", options.max_records,
                   " cost records: read a shorter window, or whole hours and days of it as "
                   "roll-ups"));
      }
      const int64_t start_ms = q.Int(0);
      const int64_t unit_id = q.Int(1);
      const int64_t holder_id = q.Int(2);
      if (!keep(unit_id)) {
        tally.Add(start_ms, (q.Int(3 + kFlagsColumn) & kPriceKnown) != 0, q.Double(4));
        continue;
      }
      name(unit_id, holder_id);
      CostRecord r;
      if ((start_ms - origin) % step_ms != 0) {
        // Steps of two grids (written before writes kept to one grid, off each other): a
        // reader that goes by steps would put two of them in one.
        return Status::InvalidArgument(StrCat(
            path_, ": the window holds steps on two grids (one starts at ",
            FormatRfc3339(InstantFromUnixMs(start_ms)), ", off the grid of its first step at ",
            FormatRfc3339(InstantFromUnixMs(first)),
            "): write the window again on one grid (docs/ledger.md, \"One grid of steps\")"));
      }
      r.step = (start_ms - origin) / step_ms;
      r.unit = static_cast<UnitIndex>(unit_id);  // ledger ids for now, remapped below
      r.holder = holder_id == 0 ? kNoIndex : static_cast<HolderIndex>(holder_id);
      ReadRecordValues(q, 3, r);
      tally.Add(start_ms, r.price_known, r.allocated_usd);
      out.records.push_back(r);
    }
    // What the periods read must hold (period_checks.h).
    GPUCOST_ASSIGN_OR_RETURN(const std::vector<PeriodCheck> checks,
                             Checks(seg.start_ms, seg.end_ms));
    if (const std::vector<std::string> bad = tally.Mismatches(checks); !bad.empty()) {
      return Damaged(StrCat("the records of ", bad.front()));
    }
  }

  if (options.accumulate && periods.size() > 1) {
    // One output bucket: the periods summed per (unit, holder) before the report sees them, so
    // a month is one entry per pair rather than one per pair and day. The sum is cached too: a
    // dashboard asks for the same days (and generations) again and again.
    const int64_t first_step = periods.front().second;
    std::string key;
    RolledPeriod merged;
    if (options.cache != nullptr) {
      key = StrCat(path_, "\x1f", Join(options.clusters, ","));
      for (const Segment& seg : plan) {
        if (seg.period_ms != 0) {
          key += StrCat("\x1f", seg.period_ms, ":", seg.start_ms, ":", seg.generation);
        }
      }
      merged = options.cache->Find(key, kMergedPeriods, 0, 0);
    }
    if (merged == nullptr) {
      merged = MergeRolled(periods);
      if (options.cache != nullptr) options.cache->Put(key, kMergedPeriods, 0, 0, merged);
    }
    periods = {{std::move(merged), first_step}};
    rolled_rows = periods.front().first->size();
  }
  for (const auto& [rows, step] : periods) {
    for (const StoredRollup& r : *rows) name(r.unit_id, r.holder_id);
  }
  GPUCOST_RETURN_IF_ERROR(ReadInventory(units, holders, out));
  for (CostRecord& r : out.records) {
    r.unit = units[r.unit];
    if (!r.is_idle()) r.holder = holders[r.holder];
  }
  out.rolled.reserve(rolled_rows);
  for (const auto& [rows, step] : periods) {
    for (const StoredRollup& s : *rows) {
      RolledRecord& r = out.rolled.emplace_back(s.rolled);
      r.step = step;
      r.unit = units[static_cast<size_t>(s.unit_id)];
      r.holder = s.holder_id == 0 ? kNoIndex : holders[static_cast<size_t>(s.holder_id)];
    }
  }
  return out;
}

// The periods' roll-ups summed per (unit, holder, price source), in the order first seen: a pair
// whose price changed source between periods keeps one entry per source, so that the report's
// hours by source stay exact.
RolledPeriod Ledger::MergeRolled(const std::vector<std::pair<RolledPeriod, int64_t>>& periods) {
  struct Merged {
    RowAccumulator acc;
    int64_t records = 0;
    int64_t unpriced_records = 0;
  };
  std::vector<StoredRollup> ids;  // ids of each merged pair
  std::vector<Merged> merged;
  // Per unit id, its pairs (a unit has one holder or a few): (holder id, price source, index in
  // `merged`).
  std::vector<std::vector<std::tuple<int64_t, int, size_t>>> by_unit;
  // Oversubscribed steps are the unit's, on each of its rows of a period: counted once a period.
  std::vector<int64_t> over;
  std::vector<size_t> over_period;
  for (size_t p = 0; p < periods.size(); ++p) {
    for (const StoredRollup& s : *periods[p].first) {
      const auto u = static_cast<size_t>(s.unit_id);
      if (u >= by_unit.size()) {
        by_unit.resize(u + 1);
        over.resize(u + 1, 0);
        over_period.resize(u + 1, SIZE_MAX);
      }
      // Without priced hours its source is no matter: it joins the pair's first entry.
      const int source = s.rolled.sums.priced_hours > 0 ? s.rolled.price_source : -2;
      size_t i = SIZE_MAX;
      for (const auto& [holder, src, index] : by_unit[u]) {
        if (holder == s.holder_id && (src == source || source == -2 || src == -2)) {
          i = index;
          break;
        }
      }
      if (i == SIZE_MAX) {
        i = merged.size();
        by_unit[u].emplace_back(s.holder_id, source, i);
        merged.emplace_back();
        ids.push_back({s.unit_id, s.holder_id, {}});
        ids.back().rolled.price_source = source == -2 ? 0 : source;
      } else if (source != -2) {
        for (auto& [holder, src, index] : by_unit[u]) {
          if (index == i && src == -2) {  // the entry had no priced hours so far
            src = source;
            ids[i].rolled.price_source = source;
          }
        }
      }
      Merged& m = merged[i];
      m.acc.AddSums(s.rolled.sums);
      m.records += s.rolled.records;
      m.unpriced_records += s.rolled.unpriced_records;
      if (s.rolled.unit_oversubscribed_steps > 0 && over_period[u] != p) {
        over_period[u] = p;
        over[u] += s.rolled.unit_oversubscribed_steps;
      }
    }
  }
  for (size_t i = 0; i < merged.size(); ++i) {
    RolledRecord& r = ids[i].rolled;
    r.records = merged[i].records;
    r.unpriced_records = merged[i].unpriced_records;
    r.unit_oversubscribed_steps = over[static_cast<size_t>(ids[i].unit_id)];
    r.sums = merged[i].acc.Sums();
  }
  return std::make_shared<const std::vector<StoredRollup>>(std::move(ids));
}

Result<RolledPeriod> Ledger::RolledRows(const Segment& seg, RollupCache* cache) {
  if (cache != nullptr) {
    if (RolledPeriod hit = cache->Find(path_, seg.period_ms, seg.start_ms, seg.generation)) {
      return hit;
    }
  }
  Result<std::unique_ptr<Statement>> sq = db_->Prepare(
      "SELECT unit_id, holder_id, records, unpriced_records, unit_oversubscribed_steps, "
      "priced_hours, unpriced_hours, unmeasured_hours, measured_hours, used_hours, "
      "activity_hours, allocated_usd, measured_allocated_usd, effective_usd, idle_usd, flags "
      "FROM rollups WHERE period_ms = $1 AND start_ms = $2");
  if (!sq.ok()) return Fail("reading the roll-ups", sq.status());
  Statement& q = **sq;
  q.Bind(1, seg.period_ms).Bind(2, seg.start_ms);
  auto rows = std::make_shared<std::vector<StoredRollup>>();
  for (;;) {
    Result<bool> row = q.Step();
    if (!row.ok()) return Fail("reading the roll-ups", row.status());
    if (!*row) break;
    rows->push_back({q.Int(0), q.Int(1), RolledFromRow(q, 0)});
  }
  // Checked once when read from the database, not at each use from the cache.
  int64_t records = 0;
  double usd = 0;
  for (const StoredRollup& r : *rows) {
    records += r.rolled.records;
    usd += r.rolled.sums.allocated_usd + r.rolled.sums.idle_usd;
  }
  GPUCOST_ASSIGN_OR_RETURN(const std::vector<PeriodCheck> check,
                           Checks(seg.start_ms, seg.end_ms, seg.period_ms));
  GPUCOST_RETURN_IF_ERROR(CheckRolled(check.empty() ? nullptr : &check.front(), seg.period_ms,
                                      seg.start_ms, records, usd));
  RolledPeriod out = std::move(rows);
  if (cache != nullptr) cache->Put(path_, seg.period_ms, seg.start_ms, seg.generation, out);
  return out;
}

}  // namespace gpucost::ledger
