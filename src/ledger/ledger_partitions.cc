// PostgreSQL keeps cost records in a partition per UTC day of their step's start (schema
// version 5): a write makes its days' partitions, and retention drops the days it passes whole
// rather than deleting their rows one by one. SQLite keeps one table; both are no-ops there.
#include <cctype>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "core/strings.h"
#include "ledger/ledger.h"
#include "ledger/sql_db.h"

namespace gpucost::ledger {
namespace {

constexpr int64_t kPartitionMs = Ledger::kDayMs;

int64_t DayOf(int64_t ms) {
  const int64_t q = ms / kPartitionMs;
  return (ms % kPartitionMs != 0 && ms < 0 ? q - 1 : q) * kPartitionMs;
}

// cost_records_2026_10_01 for the day that starts at `day_ms`.
std::string PartitionName(int64_t day_ms) {
  std::string date = FormatRfc3339(InstantFromUnixMs(day_ms)).substr(0, 10);
  bool plain = date.size() == 10;
  for (char& c : date) {
    if (c == '-') c = '_';
    plain = plain && (std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '_');
  }
  // Days outside the years 0000 to 9999 are named by their milliseconds.
  if (!plain) return StrCat("cost_records_ms", day_ms < 0 ? "m" : "", std::llabs(day_ms));
  return StrCat("cost_records_", date);
}

// The upper bound of a partition, from pg_get_expr's "FOR VALUES FROM ('a') TO ('b')".
std::optional<int64_t> UpperBound(const std::string& bound) {
  const size_t to = bound.find(" TO (");
  if (to == std::string::npos) return std::nullopt;
  size_t i = to + 5;
  while (i < bound.size() && bound[i] == '\'') ++i;
  char* end = nullptr;
  const long long v = std::strtoll(bound.c_str() + i, &end, 10);
  if (end == bound.c_str() + i) return std::nullopt;  // MAXVALUE: never passed
  return static_cast<int64_t>(v);
}

std::string QuotedName(const std::string& name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

Status Ledger::MakePartitions(int64_t start_ms, int64_t end_ms) {
  if (!IsPostgresTarget(path_) || start_ms >= end_ms) return Status::Ok();
  Result<std::unique_ptr<Statement>> exists =
      db_->Prepare("SELECT CASE WHEN to_regclass($1) IS NULL THEN 0 ELSE 1 END");
  if (!exists.ok()) return Fail("making the partitions of a write", exists.status());
  for (int64_t day = DayOf(start_ms); day < end_ms; day += kPartitionMs) {
    const std::string name = PartitionName(day);
    (*exists)->Reset();
    (*exists)->Bind(1, name);
    Result<bool> row = (*exists)->Step();
    if (!row.ok()) return Fail("making the partitions of a write", row.status());
    if (*row && (*exists)->Int(0) != 0) continue;
    const Status made = db_->Exec(StrCat("CREATE TABLE IF NOT EXISTS ", name,
                                         " PARTITION OF cost_records FOR VALUES FROM (", day,
                                         ") TO (", day + kPartitionMs, ")"));
    if (!made.ok()) return Fail(StrCat("making the partition ", name), made);
  }
  return Status::Ok();
}

Status Ledger::DropPartitionsBefore(int64_t t_ms) {
  if (!IsPostgresTarget(path_)) return Status::Ok();
  constexpr std::string_view kWhat = "dropping partitions past retention";
  Result<std::unique_ptr<Statement>> list = db_->Prepare(
      "SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) FROM pg_inherits i JOIN pg_class c "
      "ON c.oid = i.inhrelid WHERE i.inhparent = to_regclass('cost_records')");
  if (!list.ok()) return Fail(kWhat, list.status());
  std::vector<std::string> passed;
  for (;;) {
    Result<bool> row = (*list)->Step();
    if (!row.ok()) return Fail(kWhat, row.status());
    if (!*row) break;
    const std::optional<int64_t> upper = UpperBound((*list)->Text(1));
    if (upper && *upper <= t_ms) passed.push_back((*list)->Text(0));
  }
  for (const std::string& name : passed) {
    if (Status s = db_->Exec(StrCat("DROP TABLE ", QuotedName(name))); !s.ok()) {
      return Fail(kWhat, s);
    }
  }
  return Status::Ok();
}

}  // namespace gpucost::ledger
