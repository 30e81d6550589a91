#include "output/tables/grouping.hpp"

#include "output/tables/common_columns.hpp"

namespace clprof::output::tables {

using analyses::GroupBy;

std::string by_option(GroupBy by) {
  return by == GroupBy::None ? "" : "--by " + std::string(analyses::group_by_name(by));
}

std::vector<Column> group_columns(const std::vector<GroupBy>& which) {
  std::vector<Column> out;
  for (GroupBy by : which) {
    switch (by) {
      case GroupBy::Queue:
        out.push_back(column("queue", "Queue", Type::Text, "",
                             "the command queue: clprof's queue id and its device (the pid too "
                             "with several processes)")
                          .shrink(Shorten::Tail, 20));
        break;
      case GroupBy::Thread:
        out.push_back(
            column("thread", "Thread", Type::Text, "",
                   "the host thread that made the call (the pid too with several processes)"));
        break;
      case GroupBy::Process:
        out.push_back(
            column("process", "Process", Type::Text, "", "the process: pid and program name")
                .shrink(Shorten::Tail, 16));
        break;
      case GroupBy::Device:
        out.push_back(
            column("device", "Device", Type::Text, "", "the device's name (#id when names repeat)")
                .shrink(Shorten::Middle, 12));
        break;
      case GroupBy::Layer:
        out.push_back(layer_column("path of the innermost range; \"(no layer)\" outside ranges"));
        break;
      case GroupBy::None:
        continue;
    }
    out.back().only_with(by_option(by));
  }
  return out;
}

Schema grouped_schema(std::string name, std::string title, const std::vector<GroupBy>& which,
                      const std::vector<Column>& own) {
  std::vector<Column> columns = group_columns(which);
  const size_t label = columns.size();
  columns.insert(columns.end(), own.begin(), own.end());
  return schema(std::move(name), std::move(title), std::move(columns)).labelled_at(label);
}

void push_group_values(Row& row, const std::vector<GroupBy>& which, GroupBy by,
                       const std::string& label) {
  for (GroupBy w : which) row.push_back(w == by ? Value::text(label) : Value::null());
}

}  // namespace clprof::output::tables
