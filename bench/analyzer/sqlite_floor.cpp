// The SQLite floor of `clprof export` (docs/performance.md): how fast SQLite itself stores
// the rows an export holds, with the export's own settings and nothing else.
//
//   clprof_sqlite_floor TEMPLATE.db OUT.db [TRACE_BYTES]
//
// TEMPLATE.db is a database `clprof export` wrote. For each of its tables the program reads
// the CREATE TABLE statement, the row count and up to the first 4,096 rows (kept in memory),
// then builds OUT.db as the export's SQLite sink does (output/views/export_sqlite.cpp):
// journal_mode=OFF, synchronous=OFF, locking_mode=EXCLUSIVE, one transaction, one prepared
// INSERT per table, values bound with SQLITE_STATIC, the template's indexes made after the
// rows, COMMIT. Each table gets its template's row count, its sampled rows inserted over and
// over in order (so the column types, the value sizes and the row count are the export's;
// the index keys repeat every 4,096 rows). Prints rows, seconds (wall and this process's
// CPU), rows per CPU-second and, with TRACE_BYTES (the size of the trace the template was
// exported from), the MB of trace per CPU-second that this floor implies.
// Single-threaded; a benchmark, not a test.
#include <sqlite3.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

struct Cell {
  int type = SQLITE_NULL;
  int64_t i = 0;
  double d = 0;
  std::string text;
};

struct Table {
  std::string name, create;
  std::vector<std::string> indexes;
  int columns = 0;
  int64_t count = 0;
  std::vector<std::vector<Cell>> sample;
};

constexpr int kSampleRows = 4096;

[[noreturn]] void die(sqlite3* db, const std::string& what) {
  std::fprintf(stderr, "clprof_sqlite_floor: %s: %s\n", what.c_str(),
               db ? sqlite3_errmsg(db) : "sqlite");
  std::exit(1);
}

void exec(sqlite3* db, const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    std::fprintf(stderr, "clprof_sqlite_floor: %s: %s\n", sql.substr(0, 60).c_str(),
                 message ? message : "?");
    std::exit(1);
  }
}

sqlite3_stmt* prepare(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) != SQLITE_OK) die(db, "prepare");
  return s;
}

std::string text_of(sqlite3_stmt* s, int i) {
  const unsigned char* t = sqlite3_column_text(s, i);
  return t ? std::string(reinterpret_cast<const char*>(t),
                         static_cast<size_t>(sqlite3_column_bytes(s, i)))
           : std::string();
}

std::vector<Table> read_template(const char* path) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
    die(db, std::string("cannot open ") + path);
  std::vector<Table> tables;
  sqlite3_stmt* s =
      prepare(db, "SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY rowid");
  while (sqlite3_step(s) == SQLITE_ROW) {
    Table t;
    t.name = text_of(s, 0);
    t.create = text_of(s, 1);
    tables.push_back(std::move(t));
  }
  sqlite3_finalize(s);
  for (Table& t : tables) {
    s = prepare(db, "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = '" + t.name +
                        "' AND sql IS NOT NULL ORDER BY rowid");
    while (sqlite3_step(s) == SQLITE_ROW) t.indexes.push_back(text_of(s, 0));
    sqlite3_finalize(s);
    s = prepare(db, "SELECT count(*) FROM " + t.name);
    if (sqlite3_step(s) == SQLITE_ROW) t.count = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    s = prepare(db, "SELECT * FROM " + t.name + " LIMIT " + std::to_string(kSampleRows));
    t.columns = sqlite3_column_count(s);
    while (sqlite3_step(s) == SQLITE_ROW) {
      std::vector<Cell> row(static_cast<size_t>(t.columns));
      for (int i = 0; i < t.columns; ++i) {
        Cell& c = row[static_cast<size_t>(i)];
        c.type = sqlite3_column_type(s, i);
        if (c.type == SQLITE_INTEGER) c.i = sqlite3_column_int64(s, i);
        if (c.type == SQLITE_FLOAT) c.d = sqlite3_column_double(s, i);
        if (c.type == SQLITE_TEXT || c.type == SQLITE_BLOB) c.text = text_of(s, i);
      }
      t.sample.push_back(std::move(row));
    }
    sqlite3_finalize(s);
  }
  sqlite3_close(db);
  return tables;
}

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: clprof_sqlite_floor TEMPLATE.db OUT.db [TRACE_BYTES]\n");
    return 2;
  }
  const std::vector<Table> tables = read_template(argv[1]);
  const double trace_bytes = argc > 3 ? std::strtod(argv[3], nullptr) : 0;
  ::unlink(argv[2]);

  const double cpu0 = cpu_seconds();
  const auto wall0 = std::chrono::steady_clock::now();
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(argv[2], &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
      SQLITE_OK)
    die(db, "cannot create");
  exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA locking_mode=EXCLUSIVE; BEGIN");
  int64_t rows = 0;
  for (const Table& t : tables) {
    exec(db, t.create);
    if (t.sample.empty()) continue;
    std::string insert = "INSERT INTO " + t.name + " VALUES (";
    for (int i = 0; i < t.columns; ++i) insert += i ? ", ?" : "?";
    sqlite3_stmt* s = prepare(db, insert + ")");
    for (int64_t n = 0; n < t.count; ++n) {
      const auto& row = t.sample[static_cast<size_t>(n) % t.sample.size()];
      for (int i = 0; i < t.columns; ++i) {
        const Cell& c = row[static_cast<size_t>(i)];
        int rc = SQLITE_OK;
        switch (c.type) {
          case SQLITE_INTEGER:
            rc = sqlite3_bind_int64(s, i + 1, c.i);
            break;
          case SQLITE_FLOAT:
            rc = sqlite3_bind_double(s, i + 1, c.d);
            break;
          case SQLITE_TEXT:
          case SQLITE_BLOB:
            rc = sqlite3_bind_text(s, i + 1, c.text.data(), static_cast<int>(c.text.size()),
                                   SQLITE_STATIC);
            break;
          default:
            rc = sqlite3_bind_null(s, i + 1);
        }
        if (rc != SQLITE_OK) die(db, "bind");
      }
      if (sqlite3_step(s) != SQLITE_DONE) die(db, "insert into " + t.name);
      sqlite3_reset(s);
      ++rows;
    }
    sqlite3_finalize(s);
  }
  const double insert_cpu = cpu_seconds() - cpu0;
  for (const Table& t : tables)
    for (const std::string& ix : t.indexes) exec(db, ix);
  exec(db, "COMMIT");
  sqlite3_close(db);
  const double cpu = cpu_seconds() - cpu0;
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();

  for (const Table& t : tables)
    std::printf("%-14s %10lld rows, %d columns\n", t.name.c_str(), static_cast<long long>(t.count),
                t.columns);
  std::printf(
      "rows %lld; wall %.2f s; CPU %.2f s (inserts %.2f, indexes and commit %.2f); %.0f rows "
      "per CPU-s\n",
      static_cast<long long>(rows), wall, cpu, insert_cpu, cpu - insert_cpu,
      cpu > 0 ? static_cast<double>(rows) / cpu : 0.0);
  if (trace_bytes > 0)
    std::printf("trace %.1f MB: the floor is %.1f MB of trace per CPU-s (%.2f CPU-s per GB)\n",
                trace_bytes / 1e6, cpu > 0 ? trace_bytes / 1e6 / cpu : 0.0,
                trace_bytes > 0 ? cpu / (trace_bytes / 1e9) : 0.0);
  return 0;
}
