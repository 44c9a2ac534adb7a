// Helpers of the SQL seam: parameter lists, and which backend a ledger target names.
#include "ledger/sql_db.h"

#include "core/strings.h"

namespace gpucost::ledger {

std::string Params(int first, size_t count) {
  std::string out;
  for (size_t i = 0; i < count; ++i) {
    out += StrCat(i == 0 ? "$" : ",$", first + static_cast<int>(i));
  }
  return out;
}

void BindAll(Statement& s, int first, std::span<const std::string> values) {
  for (size_t i = 0; i < values.size(); ++i) s.Bind(first + static_cast<int>(i), values[i]);
}

std::string UnitsOfClusters(std::string_view unit_column, int first, size_t count) {
  if (count == 0) return "";
  return StrCat(" AND ", unit_column,
                " IN (SELECT u.id FROM units u JOIN nodes n ON n.id = u.node_id WHERE "
                "n.cluster IN (",
                Params(first, count), "))");
}

bool IsPostgresTarget(std::string_view target) {
  return target.starts_with("postgresql://") || target.starts_with("postgres://");
}

Result<std::unique_ptr<Database>> OpenDatabase(const std::string& target) {
  return IsPostgresTarget(target) ? OpenPostgres(target) : OpenSqlite(target);
}

}  // namespace gpucost::ledger
