// The field tables of docs/trace-format.md, made from the trace schema
// (include/clprof/trace_schema.hpp): the doc holds each table between the markers
//   <!-- schema:NAME -->  ...  <!-- /schema -->
// and tests/analyzer/readers/clprof_trace/schema_doc_test.cpp checks (or, with
// CLPROF_UPDATE_DOCS=1, rewrites) them. Pure functions; any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace clprof::readers {

// The names of the tables: "top", "header", every record type ("device", ...), and
// "types", "statuses", "transfer_ops", "arg_kinds".
std::vector<std::string> schema_table_names();

// The Markdown table `name` (rows end with "\n"); "" for an unknown name.
std::string schema_table(std::string_view name);

// `doc` with every table between markers replaced by schema_table(NAME) (unknown names
// left as they are).
std::string with_schema_tables(std::string_view doc);

}  // namespace clprof::readers
