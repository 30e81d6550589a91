// The text sinks of `clprof export`: CSV (a directory, <table>.csv each, header = the column
// keys, the values as `--format csv` writes them) and JSON Lines (one object per row, its
// table first: {"table":"launches","process":0,...}, typed values, null when unknown).
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "output/render.hpp"
#include "output/views/export.hpp"
#include "output/views/json_text.hpp"
#include "output/views/out_file.hpp"

namespace clprof::output::views {

namespace {

class CsvSink : public ExportSink {
 public:
  explicit CsvSink(const std::string& dir) {
    if (::mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST)
      throw std::runtime_error("'" + dir +
                               "': cannot create the directory: " + std::strerror(errno));
    struct stat st;
    if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      throw std::runtime_error("'" + dir +
                               "': not a directory (CSV export writes one file per table into it)");
    for (const auto& t : export_tables()) {
      files_.push_back(std::make_unique<OutFile>(dir + "/" + t.schema->name + ".csv"));
      std::string header;
      for (const auto& c : t.schema->columns)
        header += (header.empty() ? "" : ",") + csv_field(c.key);
      files_.back()->write(header + "\n");
    }
    marks_.resize(files_.size());
  }

  void row(ExportTable table, const Row& row) override {
    const size_t t = static_cast<size_t>(table);
    const Schema& s = *export_tables()[t].schema;
    line_.clear();
    for (size_t i = 0; i < row.size(); ++i) {
      if (i) line_ += ',';
      line_ += csv_field(csv_text(s.columns[i], row[i]));
    }
    line_ += '\n';
    files_[t]->write(line_);
  }

  void begin_records(uint32_t) override {
    for (size_t t = 0; t < files_.size(); ++t)
      if (export_tables()[t].streamed) marks_[t] = files_[t]->position();
  }

  void restart_records(uint32_t) override {
    for (size_t t = 0; t < files_.size(); ++t)
      if (export_tables()[t].streamed) files_[t]->cut_back(marks_[t]);
  }

  void finish() override {
    for (auto& f : files_) f->finish();
  }

 private:
  std::vector<std::unique_ptr<OutFile>> files_;
  std::vector<uint64_t> marks_;
  std::string line_;
};

class JsonlSink : public ExportSink {
 public:
  explicit JsonlSink(const std::string& path) : out_(path) {}

  void row(ExportTable table, const Row& row) override {
    const Schema& s = *export_table(table).schema;
    line_ = "{\"table\":";
    append_json_string(line_, s.name);
    for (size_t i = 0; i < row.size(); ++i) {
      line_ += ',';
      append_json_string(line_, s.columns[i].key);
      line_ += ':';
      const Value& v = row[i];
      switch (v.kind()) {
        case Value::Kind::Bool:
          line_ += v.as_bool() ? "true" : "false";
          break;
        case Value::Kind::Int:
          line_ += std::to_string(v.as_int());
          break;
        case Value::Kind::Uint:
          line_ += std::to_string(v.as_uint());
          break;
        case Value::Kind::Real:
          append_json_real(line_, v.as_real());
          break;
        case Value::Kind::Text:
          append_json_string(line_, v.as_text());
          break;
        default:
          line_ += "null";
      }
    }
    line_ += "}\n";
    out_.write(line_);
  }

  void begin_records(uint32_t) override { mark_ = out_.position(); }
  void restart_records(uint32_t) override { out_.cut_back(mark_); }
  void finish() override { out_.finish(); }

 private:
  OutFile out_;
  uint64_t mark_ = 0;
  std::string line_;
};

}  // namespace

std::unique_ptr<ExportSink> make_csv_sink(const std::string& directory) {
  return std::make_unique<CsvSink>(directory);
}
std::unique_ptr<ExportSink> make_jsonl_sink(const std::string& path) {
  return std::make_unique<JsonlSink>(path);
}

}  // namespace clprof::output::views
