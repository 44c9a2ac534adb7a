// A prepared SQLite statement that finalizes itself: binds by position (NaN binds NULL, so
// unknown money stays unknown), steps, and reads columns. Internal to the ledger.
#pragma once

#include <sqlite3.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

namespace gpucost::ledger {

class Statement {
 public:
  Statement(sqlite3* db, const char* sql) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) stmt_ = nullptr;
  }
  ~Statement() { Finalize(); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  bool ok() const { return stmt_ != nullptr; }
  sqlite3_stmt* get() const { return stmt_; }

  Statement& Bind(int i, int64_t v) {
    if (stmt_ != nullptr) sqlite3_bind_int64(stmt_, i, v);
    return *this;
  }
  Statement& Bind(int i, int v) { return Bind(i, static_cast<int64_t>(v)); }
  Statement& Bind(int i, double v) {
    if (stmt_ == nullptr) return *this;
    if (std::isfinite(v)) {
      sqlite3_bind_double(stmt_, i, v);
    } else {
      sqlite3_bind_null(stmt_, i);
    }
    return *this;
  }
  Statement& Bind(int i, std::string_view v) {
    if (stmt_ != nullptr) {
      sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    }
    return *this;
  }
  Statement& Bind(int i, const std::string& v) { return Bind(i, std::string_view(v)); }
  Statement& Bind(int i, const char* v) { return Bind(i, std::string_view(v)); }

  // SQLITE_ROW, SQLITE_DONE or an error code.
  int Step() { return stmt_ != nullptr ? sqlite3_step(stmt_) : SQLITE_MISUSE; }
  void Reset() {
    if (stmt_ == nullptr) return;
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  void Finalize() {
    if (stmt_ != nullptr) sqlite3_finalize(stmt_);
    stmt_ = nullptr;
  }

  int64_t Int(int col) const { return sqlite3_column_int64(stmt_, col); }
  std::string Text(int col) const {
    const unsigned char* t = sqlite3_column_text(stmt_, col);
    return t != nullptr ? std::string(reinterpret_cast<const char*>(t),
                                      static_cast<size_t>(sqlite3_column_bytes(stmt_, col)))
                        : std::string();
  }

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace gpucost::ledger
