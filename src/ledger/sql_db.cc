// Which backend a ledger target names, and how to print a target without its password.
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

std::string MaskPassword(std::string_view target) {
  std::string out(target);
  if (!IsPostgresTarget(target)) return out;
  // user:password@ — libpq looks for the '@' before the first '/', and so do we.
  const size_t start = out.find("://") + 3;
  const size_t at = out.find_first_of("@/", start);
  if (at != std::string::npos && out[at] == '@') {
    const size_t colon = out.find(':', start);
    if (colon < at) out.replace(colon + 1, at - colon - 1, "***");
  }
  // ?password=… or &password=… among the parameters.
  for (size_t pos = out.find('?'); pos != std::string::npos;) {
    const size_t key = pos + 1;
    if (out.compare(key, 9, "password=") == 0) {
      const size_t value = key + 9;
      const size_t end = out.find('&', value);
      out.replace(value, (end == std::string::npos ? out.size() : end) - value, "***");
    }
    pos = out.find('&', key);
  }
  return out;
}

Result<std::unique_ptr<Database>> OpenDatabase(const std::string& target) {
  return IsPostgresTarget(target) ? OpenPostgres(target) : OpenSqlite(target);
}

}  // namespace gpucost::ledger
