// The --by columns of kernels, launches, layers, transfers and api: one per grouping, first
// in the row, present only with its --by value (Column::option "--by queue").
#pragma once

#include <string>
#include <vector>

#include "analyses/grouping.hpp"
#include "output/columns.hpp"
#include "output/value.hpp"

namespace clprof::output::tables {

// The columns of the groupings `which`, in that order.
std::vector<Column> group_columns(const std::vector<analyses::GroupBy>& which);
// A schema whose rows begin with the columns of the groupings `which`, then `own`; the first
// of `own` names a row (the label).
Schema grouped_schema(std::string name, std::string title,
                      const std::vector<analyses::GroupBy>& which, const std::vector<Column>& own);
// "--by queue" (what Result::options holds); "" for None.
std::string by_option(analyses::GroupBy by);
// Appends to `row` one value per grouping of `which`: `label` in the column of `by`, null in
// the others.
void push_group_values(Row& row, const std::vector<analyses::GroupBy>& which, analyses::GroupBy by,
                       const std::string& label);

}  // namespace clprof::output::tables
