// The ledger's schema as one ordered list of migrations, applied by the same code to SQLite and
// PostgreSQL: a ledger at version N gets the steps after N in one transaction, and `meta` records
// the version reached. A ledger newer than the list is refused, never misread. A schema change
// is one more entry in migrations.cc's list (and kLatestSchemaVersion and Ledger::kSchemaVersion
// follow it).
#pragma once

#include "core/result.h"
#include "ledger/sql_db.h"

namespace gpucost::ledger {

// The newest schema version: the last migration's (migrations.cc checks that they agree).
inline constexpr int kLatestSchemaVersion = 9;

// The schema version `db` holds: 0 for a new, empty one.
Result<int> SchemaVersion(Database& db);

// Brings `db` to kLatestSchemaVersion, or refuses one that is newer. Errors name db.target().
Status Migrate(Database& db);

}  // namespace gpucost::ledger
