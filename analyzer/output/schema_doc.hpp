// Documentation derived from the column model: the field list of `CMD --help`, the column
// tables of docs/cli.md and the JSON Schemas of docs/schema/ (draft-04, which RapidJSON's
// validator reads). Tests check that the committed docs are what this derives.
#pragma once

#include <string>
#include <vector>

#include "output/columns.hpp"

namespace clprof::output {

// One command's outputs: its schema per view (default first).
struct CommandViews {
  std::string command;
  std::vector<const Schema*> views;
};

// For `CMD --help`: each view's fields (key, unit, meaning, where the table shows it) and
// its --sort names.
std::string help_fields(const CommandViews& command);
// For docs/cli.md: a markdown table per view (and per nested schema) of its columns.
std::string markdown_columns(const CommandViews& command);
// docs/schema/<command>.schema.json: the JSON output of every view (anyOf).
std::string json_schema(const CommandViews& command);

}  // namespace clprof::output
