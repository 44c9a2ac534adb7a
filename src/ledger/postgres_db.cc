// The PostgreSQL side of the SQL seam, on libpqxx: one connection, statements prepared once per
// connection by their SQL, values sent as text (doubles in their shortest exact form, read back
// exactly since the session asks for extra_float_digits). Statements outside Begin()..Commit()
// run on their own (autocommit). libpqxx's exceptions end here, as Status values.
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <pqxx/pqxx>
#include <utility>
#include <vector>

#include "core/redact.h"
#include "core/strings.h"
#include "ledger/sql_db.h"

namespace gpucost::ledger {
namespace {

// libpq's messages run over several lines; a Status is one.
std::string OneLine(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\n' || c == '\t') {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

class PostgresDatabase;

class PostgresStatement final : public Statement {
 public:
  PostgresStatement(PostgresDatabase* db, std::string name) : db_(db), name_(std::move(name)) {}

  void BindInt(int index, int64_t value) override {
    char buf[24];
    const auto end = std::to_chars(buf, buf + sizeof buf, value).ptr;
    Set(index, std::string(buf, end));
  }
  void BindDouble(int index, double value) override {
    if (!std::isfinite(value)) return BindNull(index);
    char buf[32];
    const auto end = std::to_chars(buf, buf + sizeof buf, value).ptr;  // shortest exact
    Set(index, std::string(buf, end));
  }
  void BindText(int index, std::string_view value) override { Set(index, std::string(value)); }
  void BindNull(int index) override { Set(index, std::nullopt); }

  Result<bool> Step() override;
  void Reset() override {
    params_.clear();
    cursor_.reset();
    rows_.reset();
    row_ = 0;
  }

  bool IsNull(int col) const override { return Field(col).is_null(); }
  int64_t Int(int col) const override {
    const pqxx::field& f = Field(col);
    int64_t value = 0;
    if (!f.is_null()) std::from_chars(f.c_str(), f.c_str() + f.size(), value);
    return value;
  }
  double Double(int col) const override {
    const pqxx::field& f = Field(col);
    if (f.is_null()) return NAN;
    double value = NAN;
    std::from_chars(f.c_str(), f.c_str() + f.size(), value);  // also Infinity and NaN
    return value;
  }
  std::string Text(int col) const override {
    const pqxx::field& f = Field(col);
    return f.is_null() ? std::string() : std::string(f.c_str(), f.size());
  }

 private:
  void Set(int index, std::optional<std::string> value) {
    if (index < 1) return;
    if (params_.size() < static_cast<size_t>(index)) params_.resize(static_cast<size_t>(index));
    params_[static_cast<size_t>(index) - 1] = std::move(value);
  }
  // The current row's field `col`: one cursor per row moved between its columns, since each
  // pqxx::row or pqxx::field made copies the result's shared pointers (a fifth of the time of
  // reading a fleet's inventory went to that).
  const pqxx::field& Field(int col) const {
    *cursor_ += col - static_cast<int>(cursor_->num());
    return *cursor_;
  }
  void Point() {
    cursor_.reset();
    if (row_ < rows_->size())
      cursor_.emplace((*rows_)[static_cast<pqxx::result::size_type>(row_)], 0);
  }

  PostgresDatabase* db_;
  std::string name_;
  std::vector<std::optional<std::string>> params_;  // unbound ones are NULL
  std::optional<pqxx::result> rows_;                // set once run
  size_t row_ = 0;
  mutable std::optional<pqxx::const_row_iterator> cursor_;  // at row_
};

class PostgresDatabase final : public Database {
 public:
  PostgresDatabase(std::unique_ptr<pqxx::connection> conn, std::string target)
      : conn_(std::move(conn)), target_(std::move(target)) {}
  ~PostgresDatabase() override {
    try {
      work_.reset();  // an open transaction rolls back
    } catch (...) {
    }
  }
  PostgresDatabase(const PostgresDatabase&) = delete;
  PostgresDatabase& operator=(const PostgresDatabase&) = delete;

  // Runs `f` in the open transaction, else in one of its own; exceptions become a Status.
  template <typename F>
  Result<pqxx::result> Run(F&& f) {
    last_sqlstate_.clear();
    try {
      if (work_ != nullptr) return f(*work_);
      pqxx::nontransaction tx(*conn_);
      return f(tx);
    } catch (const pqxx::sql_error& e) {
      last_sqlstate_ = e.sqlstate();
      // Class XX001 data_corrupted, XX002 index_corrupted: the server found its pages damaged.
      if (last_sqlstate_ == "XX001" || last_sqlstate_ == "XX002") {
        return Status::DataLoss(OneLine(e.what()));
      }
      return Status::Unavailable(OneLine(e.what()));
    } catch (const std::exception& e) {
      return Status::Unavailable(OneLine(e.what()));
    }
  }

  // PostgreSQL checks its own pages (data checksums, amcheck): nothing more to do here.
  Result<std::vector<std::string>> QuickCheck() override { return std::vector<std::string>(); }

  Status Exec(std::string_view sql) override {
    const std::string text(sql);
    Result<pqxx::result> r = Run([&](pqxx::transaction_base& tx) { return tx.exec(text); });
    return r.ok() ? Status::Ok() : r.status();
  }

  Result<std::unique_ptr<Statement>> Prepare(std::string_view sql) override {
    // Each distinct SQL is prepared once per connection under a name of its own.
    auto [it, fresh] = prepared_.try_emplace(std::string(sql), "");
    if (fresh) {
      it->second = StrCat("gpucost_", prepared_.size());
      try {
        conn_->prepare(it->second, it->first);
      } catch (const std::exception& e) {
        prepared_.erase(it);
        return Status::Unavailable(OneLine(e.what()));
      }
    }
    return std::unique_ptr<Statement>(new PostgresStatement(this, it->second));
  }

  Result<pqxx::result> ExecPrepared(const std::string& name,
                                    const std::vector<std::optional<std::string>>& params) {
    std::vector<const char*> values;
    values.reserve(params.size());
    for (const auto& p : params) values.push_back(p ? p->c_str() : nullptr);
    return Run([&](pqxx::transaction_base& tx) {
      return tx.exec_prepared(name, pqxx::prepare::make_dynamic_params(values));
    });
  }

  // Writers of one ledger take turns, as SQLite's BEGIN IMMEDIATE makes them: every write
  // updates the same running totals, whose rows two writers would otherwise lock in different
  // orders (a deadlock the server breaks by aborting one). Readers are not held up. The key is
  // "gpuw" in ASCII with the ledger's schema, so that ledgers in other schemas of the database
  // do not wait on each other; it is released when the transaction ends.
  Status Begin() override {
    return Open("SELECT pg_advisory_xact_lock(1735423351, hashtext(current_schema()))");
  }
  Status BeginRead() override {
    return Open("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
  }
  // A transaction whose first statement is `first`.
  Status Open(std::string_view first) {
    last_sqlstate_.clear();
    if (work_ != nullptr) return Status::FailedPrecondition("a transaction is open already");
    try {
      work_ = std::make_unique<pqxx::work>(*conn_);
    } catch (const std::exception& e) {
      return Status::Unavailable(OneLine(e.what()));
    }
    if (Status s = Exec(first); !s.ok()) {
      (void)Rollback();
      return s;
    }
    return Status::Ok();
  }
  Status Commit() override {
    last_sqlstate_.clear();
    if (work_ == nullptr) return Status::FailedPrecondition("no transaction is open");
    std::unique_ptr<pqxx::work> work = std::move(work_);
    try {
      work->commit();
    } catch (const pqxx::sql_error& e) {
      last_sqlstate_ = e.sqlstate();
      return Status::Unavailable(OneLine(e.what()));
    } catch (const std::exception& e) {
      return Status::Unavailable(OneLine(e.what()));
    }
    return Status::Ok();
  }
  Status Rollback() override {
    std::unique_ptr<pqxx::work> work = std::move(work_);
    if (work == nullptr) return Status::Ok();
    try {
      work->abort();
    } catch (const std::exception& e) {
      return Status::Unavailable(OneLine(e.what()));
    }
    return Status::Ok();
  }
  Status LockSchema() override {
    // Held to the end of the transaction; one key per schema, as Begin's.
    return Exec("SELECT pg_advisory_xact_lock(1735424355, hashtext(current_schema()))");
  }
  // deadlock_detected, serialization_failure.
  bool LastErrorRetryable() const override {
    return last_sqlstate_ == "40P01" || last_sqlstate_ == "40001";
  }

  Result<bool> HasTable(std::string_view name) override {
    GPUCOST_ASSIGN_OR_RETURN(std::unique_ptr<Statement> q,
                             Prepare("SELECT to_regclass($1) IS NOT NULL"));
    q->Bind(1, name);
    GPUCOST_ASSIGN_OR_RETURN(bool row, q->Step());
    return row && q->Text(0) == "t";
  }

  Result<int64_t> Size() override {
    GPUCOST_ASSIGN_OR_RETURN(
        std::unique_ptr<Statement> q,
        Prepare("SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0)::BIGINT FROM pg_class c "
                "WHERE c.relkind = 'r' AND c.relnamespace = (SELECT oid FROM pg_namespace WHERE "
                "nspname = current_schema())"));
    GPUCOST_ASSIGN_OR_RETURN(bool row, q->Step());
    return row ? q->Int(0) : 0;
  }

  std::string_view AutoIdType() const override {
    return "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY";
  }
  std::string_view KeyedTableSuffix() const override { return ""; }
  const std::string& target() const override { return target_; }

 private:
  std::unique_ptr<pqxx::connection> conn_;
  std::unique_ptr<pqxx::work> work_;             // the open transaction, if any
  std::string target_;                           // as RedactUri shows it
  std::map<std::string, std::string> prepared_;  // SQL → statement name
  std::string last_sqlstate_;
};

Result<bool> PostgresStatement::Step() {
  if (!rows_) {
    GPUCOST_ASSIGN_OR_RETURN(pqxx::result r, db_->ExecPrepared(name_, params_));
    rows_ = std::move(r);
    row_ = 0;
  } else {
    ++row_;
  }
  Point();
  return row_ < rows_->size();
}

}  // namespace

Result<std::unique_ptr<Database>> OpenPostgres(const std::string& uri) {
  const std::string target = RedactUri(uri);
  std::unique_ptr<pqxx::connection> conn;
  try {
    conn = std::make_unique<pqxx::connection>(uri);
  } catch (const std::exception& e) {
    return Status::Unavailable(StrCat(
        target, ": cannot connect to the ledger: ", RedactSecretsOf(uri, OneLine(e.what()))));
  }
  auto db = std::make_unique<PostgresDatabase>(std::move(conn), target);
  // Quiet notices ("relation already exists, skipping"); doubles in their exact form.
  const Status set = db->Exec("SET client_min_messages = warning; SET extra_float_digits = 3");
  if (!set.ok()) return Status::Unavailable(StrCat(target, ": ", set.message()));
  return std::unique_ptr<Database>(std::move(db));
}

}  // namespace gpucost::ledger
