// The SQLite sink of `clprof export`: the database is built under OUT.partial in one
// transaction (no journal: a failed export leaves no database, not a half one), with one
// prepared INSERT per table; indexes are made after the rows, then the file is renamed to OUT.
#include <sqlite3.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "output/views/export.hpp"

namespace clprof::output::views {

namespace {

class SqliteSink : public ExportSink {
 public:
  explicit SqliteSink(const std::string& path) : path_(path), partial_(path + ".partial") {
    ::unlink(partial_.c_str());
    if (sqlite3_open_v2(partial_.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                        nullptr) != SQLITE_OK)
      fail("cannot create");
    exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA locking_mode=EXCLUSIVE; BEGIN");
    for (const auto& t : export_tables()) {
      std::string create = "CREATE TABLE " + t.schema->name + " (";
      std::string insert = "INSERT INTO " + t.schema->name + " VALUES (";
      for (size_t i = 0; i < t.schema->columns.size(); ++i) {
        const Column& c = t.schema->columns[i];
        create += (i ? ", " : "") + c.key + " " + sql_type(c) + (c.nullable ? "" : " NOT NULL");
        insert += i ? ", ?" : "?";
      }
      exec(create + ")");
      sqlite3_stmt* s = nullptr;
      if (sqlite3_prepare_v2(db_, (insert + ")").c_str(), -1, &s, nullptr) != SQLITE_OK)
        fail("cannot prepare");
      inserts_.push_back(s);
    }
  }

  ~SqliteSink() override {
    close();
    if (!finished_) ::unlink(partial_.c_str());
  }

  void row(ExportTable table, const Row& row) override {
    sqlite3_stmt* s = inserts_.at(static_cast<size_t>(table));
    for (size_t i = 0; i < row.size(); ++i) {
      const int at = static_cast<int>(i + 1);
      const Value& v = row[i];
      int rc = SQLITE_OK;
      switch (v.kind()) {
        case Value::Kind::Bool:
          rc = sqlite3_bind_int(s, at, v.as_bool() ? 1 : 0);
          break;
        case Value::Kind::Int:
          rc = sqlite3_bind_int64(s, at, v.as_int());
          break;
        case Value::Kind::Uint:
          // SQLite integers are signed 64-bit: a larger value (a scalar argument's bytes) is
          // null here; args.hex keeps it.
          if (v.as_uint() > static_cast<uint64_t>(INT64_MAX))
            rc = sqlite3_bind_null(s, at);
          else
            rc = sqlite3_bind_int64(s, at, static_cast<int64_t>(v.as_uint()));
          break;
        case Value::Kind::Real:
          rc = std::isfinite(v.as_real()) ? sqlite3_bind_double(s, at, v.as_real())
                                          : sqlite3_bind_null(s, at);
          break;
        case Value::Kind::Text:
          rc = sqlite3_bind_text(s, at, v.as_text().data(), static_cast<int>(v.as_text().size()),
                                 SQLITE_STATIC);
          break;
        default:
          rc = sqlite3_bind_null(s, at);
      }
      if (rc != SQLITE_OK) fail("cannot bind");
    }
    if (sqlite3_step(s) != SQLITE_DONE)
      fail("cannot insert into " + export_table(table).schema->name);
    sqlite3_reset(s);
  }

  void begin_records(uint32_t) override {}

  void restart_records(uint32_t process) override {
    for (const auto& t : export_tables())
      if (t.streamed)
        exec("DELETE FROM " + t.schema->name + " WHERE process = " + std::to_string(process));
  }

  void finish() override {
    for (const auto& t : export_tables())
      for (const auto& ix : t.indexes) {
        std::string name = t.schema->name, cols;
        for (const auto& c : ix) {
          name += "_" + c;
          cols += (cols.empty() ? "" : ", ") + c;
        }
        exec("CREATE INDEX " + name + " ON " + t.schema->name + " (" + cols + ")");
      }
    exec("COMMIT");
    close();
    if (std::rename(partial_.c_str(), path_.c_str()) != 0)
      throw std::runtime_error("cannot rename '" + partial_ + "' to '" + path_ + "'");
    finished_ = true;
  }

 private:
  void exec(const std::string& sql) {
    char* message = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
      const std::string m = message ? message : "?";
      sqlite3_free(message);
      throw std::runtime_error("'" + path_ + "': sqlite: " + m + " (" + sql.substr(0, 60) + ")");
    }
  }

  [[noreturn]] void fail(const std::string& what) {
    throw std::runtime_error("'" + path_ + "': " + what + ": " +
                             (db_ ? sqlite3_errmsg(db_) : "sqlite"));
  }

  void close() {
    for (sqlite3_stmt* s : inserts_) sqlite3_finalize(s);
    inserts_.clear();
    if (db_) sqlite3_close(db_);
    db_ = nullptr;
  }

  std::string path_, partial_;
  sqlite3* db_ = nullptr;
  std::vector<sqlite3_stmt*> inserts_;
  bool finished_ = false;
};

}  // namespace

std::unique_ptr<ExportSink> make_sqlite_sink(const std::string& path) {
  return std::make_unique<SqliteSink>(path);
}

}  // namespace clprof::output::views
