// Retention (docs/ledger.md, "Guarantees"): the records before a time go with their roll-ups,
// then the holders, units and nodes that no record names any more. Which ones those are comes
// from a last step kept per holder and unit (schema v7) by every write, not from a scan of the
// records, which have no index by holder or unit: at 1,000 nodes a scan would read days of
// records every minute. Retention removing rows that another Ledger (another serve of a shared
// ledger) has cached the ids of moves a generation in meta, which each write checks first.
#include <optional>
#include <span>
#include <string_view>
#include <tuple>
#include <utility>

#include "core/strings.h"
#include "ledger/ledger.h"
#include "ledger/sql_db.h"

namespace gpucost::ledger {
namespace {

constexpr std::string_view kIdsGenerationKey = "retention_generation";

// Rows at a time in one upsert of last steps (then 16, then 1): one round trip per batch.
constexpr size_t kLastStepBatches[] = {256, 16, 1};

// Moves the last step of `count` rows of `table` up to $2k (where lower), their ids in $2k-1.
std::string UpsertLastStepsSql(std::string_view table, std::string_view id, size_t count) {
  std::string sql = StrCat("INSERT INTO ", table, " (", id, ", last_step_ms) VALUES ");
  for (size_t i = 0; i < count; ++i) {
    sql += StrCat(i == 0 ? "($" : ",($", 2 * i + 1, ",$", 2 * i + 2, ")");
  }
  return StrCat(sql, " ON CONFLICT (", id, ") DO UPDATE SET last_step_ms = CASE WHEN ",
                "excluded.last_step_ms > ", table, ".last_step_ms THEN excluded.last_step_ms ",
                "ELSE ", table, ".last_step_ms END");
}

}  // namespace

void Ledger::ForgetCachedIds() {
  unit_ids_.clear();
  holder_ids_.clear();
  unit_last_steps_.clear();
  holder_last_steps_.clear();
  ids_generation_.reset();
}

Status Ledger::CheckCachedIds() {
  Result<std::optional<int64_t>> generation = MetaInt(kIdsGenerationKey);
  if (!generation.ok()) return generation.status();
  const int64_t now = generation->value_or(0);
  if (ids_generation_ && *ids_generation_ == now) return Status::Ok();
  ForgetCachedIds();
  ids_generation_ = now;
  return Status::Ok();
}

Status Ledger::KeepLastSteps(std::span<const int64_t> units, std::span<const int64_t> holders,
                             int64_t last_step_ms) {
  constexpr std::string_view kWhat = "keeping what records name";
  for (const auto& [table, id, ids] : {std::tuple{"unit_last_steps", "unit_id", units},
                                       std::tuple{"holder_last_steps", "holder_id", holders}}) {
    size_t done = 0;
    for (const size_t rows : kLastStepBatches) {
      if (ids.size() - done < rows) continue;
      Result<std::unique_ptr<Statement>> put = db_->Prepare(UpsertLastStepsSql(table, id, rows));
      if (!put.ok()) return Fail(kWhat, put.status());
      while (ids.size() - done >= rows) {
        (*put)->Reset();
        for (size_t i = 0; i < rows; ++i) {
          (*put)
              ->Bind(static_cast<int>(2 * i + 1), ids[done + i])
              .Bind(static_cast<int>(2 * i + 2), last_step_ms);
        }
        if (Result<bool> r = (*put)->Step(); !r.ok()) return Fail(kWhat, r.status());
        done += rows;
      }
    }
  }
  return Status::Ok();
}

Status Ledger::KeepCarriedLastSteps(int64_t step_start_ms) {
  constexpr std::string_view kWhat = "keeping what carried records name";
  for (const auto& [table, id] :
       {std::pair{"unit_last_steps", "unit_id"}, std::pair{"holder_last_steps", "holder_id"}}) {
    Result<std::unique_ptr<Statement>> put = db_->Prepare(StrCat(
        "INSERT INTO ", table, " (", id, ", last_step_ms) SELECT DISTINCT ", id,
        ", step_start_ms FROM cost_records WHERE step_start_ms = $1 AND ", id, " <> 0 ",
        "ON CONFLICT (", id, ") DO UPDATE SET last_step_ms = CASE WHEN excluded.last_step_ms > ",
        table, ".last_step_ms THEN excluded.last_step_ms ELSE ", table, ".last_step_ms END"));
    if (!put.ok()) return Fail(kWhat, put.status());
    if (Result<bool> r = (*put)->Bind(1, step_start_ms).Step(); !r.ok()) {
      return Fail(kWhat, r.status());
    }
  }
  return Status::Ok();
}

Result<int64_t> Ledger::RemoveUnnamed(int64_t t_ms) {
  constexpr std::string_view kWhat = "removing what no record names";
  // Units and holders by their last step, then what they leave: nodes without units, and those
  // nodes' usage marks (the gauges read them through the records only).
  static constexpr const char* kSql[] = {
      "DELETE FROM holders WHERE id IN (SELECT holder_id FROM holder_last_steps WHERE "
      "last_step_ms < $1) RETURNING id",
      "DELETE FROM holder_last_steps WHERE last_step_ms < $1",
      "DELETE FROM units WHERE id IN (SELECT unit_id FROM unit_last_steps WHERE "
      "last_step_ms < $1) RETURNING id",
      "DELETE FROM unit_last_steps WHERE last_step_ms < $1",
      "DELETE FROM node_usage WHERE NOT EXISTS (SELECT 1 FROM units u WHERE u.node_id = "
      "node_usage.node_id)",
      "DELETE FROM nodes WHERE NOT EXISTS (SELECT 1 FROM units u WHERE u.node_id = nodes.id) "
      "RETURNING id",
  };
  int64_t removed = 0;
  for (const char* sql : kSql) {
    Result<std::unique_ptr<Statement>> q = db_->Prepare(sql);
    if (!q.ok()) return Fail(kWhat, q.status());
    if (std::string_view(sql).find("$1") != std::string_view::npos) (*q)->Bind(1, t_ms);
    for (Result<bool> row = (*q)->Step();; row = (*q)->Step()) {
      if (!row.ok()) return Fail(kWhat, row.status());
      if (!*row) break;
      ++removed;
    }
  }
  if (removed > 0) {
    // Ids cached by any Ledger of this ledger may be gone: each write checks this first.
    GPUCOST_ASSIGN_OR_RETURN(std::optional<int64_t> generation, MetaInt(kIdsGenerationKey));
    GPUCOST_RETURN_IF_ERROR(SetMetaInt(kIdsGenerationKey, generation.value_or(0) + 1));
  }
  return removed;
}

Result<int64_t> Ledger::DeleteBefore(Instant t) {
  constexpr std::string_view kWhat = "removing records past retention";
  const int64_t t_ms = UnixMs(t);
  const auto first = [&](const char* sql) -> Result<int64_t> {
    Result<std::unique_ptr<Statement>> q = db_->Prepare(sql);
    if (!q.ok()) return Fail(kWhat, q.status());
    Result<bool> row = (*q)->Bind(1, t_ms).Step();
    if (!row.ok()) return Fail(kWhat, row.status());
    return *row ? (*q)->Int(0) : 0;
  };
  GPUCOST_ASSIGN_OR_RETURN(const int64_t n,
                           first("SELECT COUNT(*) FROM cost_records WHERE step_start_ms < $1"));
  // Nothing to do unless records go or a holder or unit is past its last step (from an index).
  if (n == 0) {
    GPUCOST_ASSIGN_OR_RETURN(
        const int64_t due,
        first("SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM holder_last_steps WHERE last_step_ms "
              "< $1 LIMIT 1) h) + (SELECT COUNT(*) FROM (SELECT 1 FROM unit_last_steps WHERE "
              "last_step_ms < $1 LIMIT 1) u)"));
    if (due == 0) return n;
  }
  // Roll-ups go with their records (one that began before `t` sums records no longer kept), in
  // one transaction.
  if (Status s = Begin(); !s.ok()) return Fail(kWhat, s);
  const auto fail = [this](Status s) {
    (void)db_->Rollback();
    return s;
  };
  // PostgreSQL: the days it passes whole go at once; the rest row by row.
  if (Status s = DropPartitionsBefore(t_ms); !s.ok()) return fail(s);
  for (const char* sql :
       {"DELETE FROM cost_records WHERE step_start_ms < $1",
        "DELETE FROM rollups WHERE start_ms < $1", "DELETE FROM rollup_periods WHERE start_ms < $1",
        "DELETE FROM period_checks WHERE start_ms < $1"}) {
    Result<std::unique_ptr<Statement>> drop = db_->Prepare(sql);
    Result<bool> done = drop.ok() ? (*drop)->Bind(1, t_ms).Step() : drop.status();
    if (!done.ok()) return fail(Fail(kWhat, done.status()));
  }
  Result<int64_t> unnamed = RemoveUnnamed(t_ms);
  if (!unnamed.ok()) return fail(unnamed.status());
  if (Status s = db_->Commit(); !s.ok()) return fail(Fail(kWhat, s));
  if (*unnamed > 0) ForgetCachedIds();
  return n;
}

}  // namespace gpucost::ledger
