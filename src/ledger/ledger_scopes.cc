// Many clusters in one ledger (docs/ledger.md, "Many clusters"): per cluster, the source that
// writes it, how far its continuous writer attributed, the pool draws open there, its newest
// step, and the writer lease that lets one writer at a time write it.
#include <nlohmann/json.hpp>
#include <string>

#include "core/strings.h"
#include "ledger/ledger.h"
#include "ledger/sql_db.h"

namespace gpucost::ledger {
namespace {

constexpr const char* kScopeColumns =
    "cluster, source, attributed_through_ms, newest_step_start_ms, newest_step_ms, writer, "
    "lease_until_ms";

ScopeState ScopeFromRow(const Statement& r) {
  ScopeState s;
  s.cluster = r.Text(0);
  s.source = r.Text(1);
  if (!r.IsNull(2)) s.attributed_through = InstantFromUnixMs(r.Int(2));
  if (!r.IsNull(3) && !r.IsNull(4)) {
    const Instant start = InstantFromUnixMs(r.Int(3));
    s.newest_step = Window{start, start + std::chrono::milliseconds(r.Int(4))};
  }
  s.writer = r.Text(5);
  s.lease_until = InstantFromUnixMs(r.Int(6));
  return s;
}

bool OfCluster(const KeyedDraw& d, const std::string& cluster) {
  return d.node.size() > cluster.size() && d.node.starts_with(cluster) &&
         d.node[cluster.size()] == '\x1f';
}

// Whether `row` is another writer's lease that has not run out at `now`.
bool HeldByAnother(const ScopeState& row, const WriteScope& scope) {
  return !row.writer.empty() && row.writer != scope.writer && row.writer != scope.replaces &&
         row.lease_until > scope.now;
}

Status HeldError(const std::string& path, const ScopeState& row) {
  return Status::FailedPrecondition(StrCat(path, ": cluster ", row.cluster, " is written by ",
                                           row.writer, " (its lease runs to ",
                                           FormatRfc3339(row.lease_until), ")"));
}

}  // namespace

Result<std::vector<ScopeState>> Ledger::Scopes() {
  Result<std::unique_ptr<Statement>> q =
      db_->Prepare(StrCat("SELECT ", kScopeColumns, " FROM scopes ORDER BY cluster"));
  if (!q.ok()) return Fail("reading its clusters", q.status());
  std::vector<ScopeState> out;
  for (;;) {
    Result<bool> row = (*q)->Step();
    if (!row.ok()) return Fail("reading its clusters", row.status());
    if (!*row) return out;
    out.push_back(ScopeFromRow(**q));
  }
}

Status Ledger::ClaimScopes(std::span<const std::string> clusters,
                           const std::map<std::string, std::string>& sources,
                           const WriteScope& scope) {
  constexpr std::string_view kWhat = "claiming its clusters";
  Result<std::unique_ptr<Statement>> get =
      db_->Prepare(StrCat("SELECT ", kScopeColumns, " FROM scopes WHERE cluster = $1"));
  if (!get.ok()) return Fail(kWhat, get.status());
  Result<std::unique_ptr<Statement>> add = db_->Prepare(
      "INSERT INTO scopes (cluster, source, attributed_through_ms, open_draws, "
      "newest_step_start_ms, newest_step_ms, writer, lease_until_ms) VALUES "
      "($1, $2, NULL, '[]', NULL, NULL, $3, $4)");
  if (!add.ok()) return Fail(kWhat, add.status());
  Result<std::unique_ptr<Statement>> set = db_->Prepare(
      "UPDATE scopes SET source = $2, writer = $3, lease_until_ms = $4 WHERE cluster = $1");
  if (!set.ok()) return Fail(kWhat, set.status());
  const int64_t until = scope.writer.empty() ? 0 : UnixMs(scope.now + scope.lease);
  for (const std::string& cluster : clusters) {
    const auto named = sources.find(cluster);
    const std::string source = named == sources.end() ? "" : named->second;
    (*get)->Reset();
    (*get)->Bind(1, cluster);
    Result<bool> found = (*get)->Step();
    if (!found.ok()) return Fail(kWhat, found.status());
    if (!*found) {
      (*add)->Reset();
      (*add)->Bind(1, cluster).Bind(2, source).Bind(3, scope.writer).Bind(4, until);
      if (Result<bool> r = (*add)->Step(); !r.ok()) return Fail(kWhat, r.status());
      continue;
    }
    ScopeState row = ScopeFromRow(**get);
    if (!source.empty() && !row.source.empty() && source != row.source) {
      return Status::InvalidArgument(StrCat(
          path_, ": cluster ", cluster, " is written by a ", row.source, " source; a ", source,
          " source cannot write it too: give one of them another cluster name (--cluster, or "
          "the cluster label of its series)"));
    }
    if (!scope.writer.empty() && HeldByAnother(row, scope)) return HeldError(path_, row);
    const bool new_source = !source.empty() && row.source.empty();
    if (!new_source && scope.writer.empty()) continue;
    if (new_source) row.source = source;
    if (!scope.writer.empty()) row.writer = scope.writer;
    (*set)->Reset();
    (*set)
        ->Bind(1, cluster)
        .Bind(2, row.source)
        .Bind(3, row.writer)
        .Bind(4, scope.writer.empty() ? UnixMs(row.lease_until) : until);
    if (Result<bool> r = (*set)->Step(); !r.ok()) return Fail(kWhat, r.status());
  }
  return Status::Ok();
}

Status Ledger::NoteNewestSteps(const std::map<std::string, int64_t>& newest, int64_t step_ms) {
  Result<std::unique_ptr<Statement>> q = db_->Prepare(
      "UPDATE scopes SET newest_step_start_ms = $2, newest_step_ms = $3 WHERE cluster = $1 AND "
      "(newest_step_start_ms IS NULL OR newest_step_start_ms <= $2)");
  if (!q.ok()) return Fail("noting the newest step", q.status());
  for (const auto& [cluster, start_ms] : newest) {
    (*q)->Reset();
    (*q)->Bind(1, cluster).Bind(2, start_ms).Bind(3, step_ms);
    if (Result<bool> r = (*q)->Step(); !r.ok()) return Fail("noting the newest step", r.status());
  }
  return Status::Ok();
}

Result<std::optional<ScopeState>> Ledger::TakeLease(const WriteScope& scope) {
  if (Status s = Begin(); !s.ok()) return Fail("taking the writer lease", s);
  const auto done = [this](Status s) {
    if (s.ok()) {
      if (Status c = db_->Commit(); !c.ok()) s = Fail("committing the writer lease", c);
    }
    if (!s.ok()) (void)db_->Rollback();
    return s;
  };
  Result<std::unique_ptr<Statement>> get =
      db_->Prepare(StrCat("SELECT ", kScopeColumns, " FROM scopes WHERE cluster = $1"));
  if (!get.ok()) return done(Fail("taking the writer lease", get.status()));
  for (const std::string& cluster : scope.clusters) {
    (*get)->Reset();
    (*get)->Bind(1, cluster);
    Result<bool> found = (*get)->Step();
    if (!found.ok()) return done(Fail("taking the writer lease", found.status()));
    if (!*found) continue;
    ScopeState row = ScopeFromRow(**get);
    if (HeldByAnother(row, scope)) {
      (void)db_->Rollback();
      return std::optional<ScopeState>(std::move(row));
    }
  }
  get->reset();
  GPUCOST_RETURN_IF_ERROR(done(ClaimScopes(scope.clusters, {}, scope)));
  return std::optional<ScopeState>();
}

Status Ledger::ReleaseLease(const WriteScope& scope) {
  Result<std::unique_ptr<Statement>> q = db_->Prepare(
      "UPDATE scopes SET writer = '', lease_until_ms = 0 WHERE cluster = $1 AND writer = $2");
  if (!q.ok()) return Fail("giving the writer lease back", q.status());
  for (const std::string& cluster : scope.clusters) {
    (*q)->Reset();
    (*q)->Bind(1, cluster).Bind(2, scope.writer);
    if (Result<bool> r = (*q)->Step(); !r.ok()) {
      return Fail("giving the writer lease back", r.status());
    }
  }
  return Status::Ok();
}

Result<std::vector<KeyedDraw>> Ledger::OpenDraws(std::span<const std::string> clusters) {
  std::vector<KeyedDraw> out;
  Result<std::unique_ptr<Statement>> q =
      db_->Prepare("SELECT open_draws FROM scopes WHERE cluster = $1");
  if (!q.ok()) return Fail("reading the open pool draws", q.status());
  for (const std::string& cluster : clusters) {
    (*q)->Reset();
    (*q)->Bind(1, cluster);
    Result<bool> row = (*q)->Step();
    if (!row.ok()) return Fail("reading the open pool draws", row.status());
    if (!*row) continue;
    const std::string text = (*q)->Text(0);
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    const auto bad = [&] {
      return Status::ParseError(StrCat(path_, ": the open pool draws of cluster ", cluster,
                                       " are not a list of pool draws: ", text));
    };
    if (!j.is_array()) return bad();
    for (const nlohmann::json& d : j) {
      if (!d.is_object() || !d.value("holder", nlohmann::json()).is_string() ||
          !d.value("node", nlohmann::json()).is_string() ||
          !d.value("resource", nlohmann::json()).is_string() ||
          !d.value("units", nlohmann::json()).is_array()) {
        return bad();
      }
      KeyedDraw k;
      k.holder = d["holder"].get<std::string>();
      k.node = d["node"].get<std::string>();
      k.resource = d["resource"].get<std::string>();
      for (const nlohmann::json& u : d["units"]) {
        if (!u.is_string()) return bad();
        k.units.push_back(u.get<std::string>());
      }
      // A ledger from before scopes kept one list for all its clusters.
      if (OfCluster(k, cluster)) out.push_back(std::move(k));
    }
  }
  return out;
}

Status Ledger::SetAttributedThrough(const WriteScope& scope, Instant t,
                                    std::span<const KeyedDraw> open_draws) {
  constexpr std::string_view kWhat = "writing how far it attributed";
  if (Status s = Begin(); !s.ok()) return Fail(kWhat, s);
  Status s = ClaimScopes(scope.clusters, {}, scope);
  Result<std::unique_ptr<Statement>> put =
      s.ok() ? db_->Prepare(
                   "UPDATE scopes SET attributed_through_ms = CASE WHEN attributed_through_ms IS "
                   "NULL OR attributed_through_ms < $2 THEN $2 ELSE attributed_through_ms END, "
                   "open_draws = $3 WHERE cluster = $1")
             : Result<std::unique_ptr<Statement>>(s);
  if (!put.ok()) s = put.status();
  for (size_t i = 0; s.ok() && i < scope.clusters.size(); ++i) {
    const std::string& cluster = scope.clusters[i];
    nlohmann::json j = nlohmann::json::array();
    for (const KeyedDraw& d : open_draws) {
      if (!OfCluster(d, cluster)) continue;
      j.push_back(
          {{"holder", d.holder}, {"node", d.node}, {"resource", d.resource}, {"units", d.units}});
    }
    (*put)->Reset();
    // Replace on an invalid UTF-8 name rather than fail: the draw is then not found again, and
    // the holding is drawn anew, as it would be without this record.
    (*put)
        ->Bind(1, cluster)
        .Bind(2, UnixMs(t))
        .Bind(3, j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    if (Result<bool> r = (*put)->Step(); !r.ok()) s = Fail(kWhat, r.status());
  }
  if (put.ok()) put->reset();
  if (s.ok()) {
    if (Status c = db_->Commit(); !c.ok()) s = Fail(kWhat, c);
  }
  if (!s.ok()) (void)db_->Rollback();
  return s;
}

}  // namespace gpucost::ledger
