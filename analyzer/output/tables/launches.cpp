#include "output/tables/launches.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <tuple>

#include "output/command_fields.hpp"
#include "output/tables/common_columns.hpp"
#include "output/tables/grouping.hpp"

#include "analyses/stats.hpp"
#include "clock_alignment.hpp"

namespace clprof::output::tables {

const Schema& launches_schema() {
  static const Schema s = [] {
    std::vector<Column> own = {
        column("seq", "Seq", Type::Int, "", "sequence number of the launch in its process")
            .ascending(),
        kernel_name_column(),
        pid_column().allow_null(),
        layer_column().wide(),
        column("gws", "GWS", Type::Dims, "", "global work size per dimension"),
        column("lws", "LWS", Type::Dims, "", "local work size (null: left to the driver)")
            .allow_null(),
        column("gwo", "GWO", Type::Dims, "", "global work offset (null: none)").allow_null().wide(),
        column("args", "Args", Type::Args, "",
               "kernel arguments at launch: scalar value (or 0x hex), buf#id, local:size, ...")
            .wide()
            .shrink()};
    for (const auto& f : kDeviceClockFields)
      own.push_back(column(f.key, f.header, Type::Int, "ns", f.meaning).allow_null().wide());
    const std::vector<Column> after_device_clock = {
        column("host_start_ns", "Host start", Type::Int, "ns",
               "start on the host clock (ns since the process's trace start): start + the device's "
               "clock_sync "
               "offset; null without a sync")
            .allow_null()
            .wide(),
        column("host_end_ns", "Host end", Type::Int, "ns",
               "end on the host clock, as host_start_ns")
            .allow_null()
            .wide(),
        column("duration_ns", "Duration", Type::Duration, "ns", "kernel time: end - start")
            .allow_null(),
        column("queued_to_submit_ns", "Q>Sub", Type::Duration, "ns", "submit - queued")
            .allow_null(),
        column("submit_to_start_ns", "Sub>Start", Type::Duration, "ns", "start - submit")
            .allow_null(),
        column("host_enqueue_ns", "Enqueue", Type::Duration, "ns",
               "host time inside the enqueue call")
            .allow_null(),
        column("status", "Status", Type::Text, "",
               "complete, or why there is no kernel time (failed, incomplete, ...)")
            .wide(),
    };
    own.insert(own.end(), after_device_clock.begin(), after_device_clock.end());
    std::vector<Column> columns = group_columns(analyses::launch_groupings());
    columns.insert(columns.end(), own.begin(), own.end());
    return schema("launches", "one row per kernel launch", std::move(columns))
        .ordered_by(
            "process, then sequence number (with --by: per group, groups in order of their ids)");
  }();
  return s;
}

namespace {

// IEEE 754 binary16 to double (subnormals, infinities and NaN included).
double half_value(uint16_t h) {
  const int exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (exp == 0) return sign * std::ldexp(frac, -24);
  if (exp == 31)
    return frac ? std::numeric_limits<double>::quiet_NaN()
                : sign * std::numeric_limits<double>::infinity();
  return sign * std::ldexp(frac + 1024, exp - 25);
}

// The scalar's bytes as the real its type says, when the size fits the type.
std::optional<double> real_value(const model::KernelArg& a, analyses::ScalarType type) {
  using T = analyses::ScalarType;
  if (!a.has_value) return std::nullopt;
  if (type == T::Float && a.size == 4) {
    float f;
    const uint32_t bits = static_cast<uint32_t>(a.value);
    std::memcpy(&f, &bits, sizeof f);
    return f;
  }
  if (type == T::Double && a.size == 8) {
    double d;
    std::memcpy(&d, &a.value, sizeof d);
    return d;
  }
  if (type == T::Half && a.size == 2) return half_value(static_cast<uint16_t>(a.value));
  return std::nullopt;
}

}  // namespace

Value kernel_arg(const model::KernelArg& a, analyses::ScalarType type) {
  using K = model::KernelArg::Kind;
  auto size = Value::uint(a.size);
  switch (a.kind) {
    case K::Unset:
      return Value::list({Value::text(kernel_arg_kind(a.kind))});
    case K::Scalar: {
      std::vector<Value> v = {Value::text(kernel_arg_kind(a.kind)), size, Value::text(a.hex)};
      // The bytes as an unsigned integer, or as a real where the source says the argument is
      // a float, double or half (a non-finite one stays its bits: JSON has no NaN).
      const auto real = real_value(a, type);
      if (real && std::isfinite(*real))
        v.push_back(Value::real(*real));
      else if (a.has_value)
        v.push_back(Value::uint(a.value));
      return Value::list(std::move(v));
    }
    case K::Buffer:
    case K::Image:
    case K::Pipe:
      return Value::list({Value::text(kernel_arg_kind(a.kind)), size, Value::uint(a.object_id),
                          Value::uint(a.object_bytes)});
    case K::Local:
      return Value::list({Value::text(kernel_arg_kind(a.kind)), size});
    case K::Svm:
      return Value::list(
          {Value::text(kernel_arg_kind(a.kind)), Value::uint(0), Value::text(a.svm_pointer)});
    case K::Sampler:
      return Value::list({Value::text(kernel_arg_kind(a.kind)), size, Value::uint(a.object_id)});
  }
  return Value::null();
}

namespace {

Value phase(int64_t a, int64_t b) {
  if (a == model::kNoTime || b == model::kNoTime) return Value::null();
  return Value::integer(analyses::sub_ns(b, a));
}

Value dims(const std::vector<uint64_t>& v) {
  std::vector<Value> out;
  for (uint64_t d : v) out.push_back(Value::uint(d));
  return Value::list(std::move(out));
}

}  // namespace

Result launches_result(const std::vector<const model::Launch*>& launches, const model::Run& run,
                       analyses::GroupBy by, std::shared_ptr<const analyses::GroupLabels> labels) {
  Result out(launches_schema());
  if (by != analyses::GroupBy::None) out.options.push_back(by_option(by));
  auto index = std::make_shared<analyses::RangeIndex>(run);
  // Argument types per (process, program, kernel): the recorded ones (kernel.arg_types),
  // then, for arguments they leave unknown, the program's captured source.
  using SigKey = std::tuple<uint32_t, uint64_t, std::string>;
  auto sources = std::make_shared<std::map<std::pair<uint32_t, uint64_t>, const model::Program*>>();
  for (const auto& p : run.programs)
    if (!p.source.empty()) (*sources)[{p.process, p.id}] = &p;
  auto recorded = std::make_shared<std::map<SigKey, const std::vector<std::string>*>>();
  for (const auto& k : run.kernels)
    if (!k.arg_types.empty())
      recorded->emplace(SigKey{k.process, k.program_id, k.name}, &k.arg_types);
  auto signatures = std::make_shared<std::map<SigKey, std::vector<analyses::ScalarType>>>();
  auto clocks = std::make_shared<model::ClockAlignment>(run);
  out.source.count = launches.size();
  out.source.fill = [&launches, &run, index, by, labels, sources, recorded, signatures, clocks](
                        size_t i, Row& row) {
    const model::Launch& l = *launches[i];
    const model::AlignedTimes host = clocks->times(l);
    SigKey key{l.process, l.program_id, l.name};
    auto sig = signatures->find(key);
    if (sig == signatures->end()) {
      std::vector<analyses::ScalarType> types;
      if (auto r = recorded->find(key); r != recorded->end())
        types = analyses::arg_type_name_types(*r->second);
      if (auto p = sources->find({l.process, l.program_id}); p != sources->end()) {
        const auto from_source = analyses::kernel_param_types(p->second->source, l.name);
        if (types.size() < from_source.size()) types.resize(from_source.size());
        for (size_t a = 0; a < from_source.size(); ++a)
          if (types[a] == analyses::ScalarType::Unknown) types[a] = from_source[a];
      }
      sig = signatures->emplace(std::move(key), std::move(types)).first;
    }
    const std::vector<analyses::ScalarType>* types = &sig->second;
    std::vector<Value> args;
    for (size_t a = 0; a < l.args.size(); ++a)
      args.push_back(kernel_arg(
          l.args[a], types && a < types->size() ? (*types)[a] : analyses::ScalarType::Unknown));
    row.clear();
    push_group_values(row, analyses::launch_groupings(), by,
                      labels ? (*labels)(analyses::group_key(by, l)) : "");
    const Row own = {Value::uint(l.seq),
                     Value::text(l.name),
                     l.process < run.processes.size() ? Value::integer(run.processes[l.process].pid)
                                                      : Value::null(),
                     Value::text(index->path(analyses::innermost_range(l))),
                     dims(l.gws),
                     l.lws ? dims(*l.lws) : Value::null(),
                     l.gwo.empty() ? Value::null() : dims(l.gwo),
                     Value::list(std::move(args))};
    row.insert(row.end(), own.begin(), own.end());
    append_device_times(row, l, host);
    const Row after_device_times = {Value::integer(l.duration_ns()),
                                    phase(l.queued_ns, l.submit_ns), phase(l.submit_ns, l.start_ns),
                                    phase(l.host_begin_ns, l.host_end_ns), Value::text(l.status)};
    row.insert(row.end(), after_device_times.begin(), after_device_times.end());
  };
  return out;
}

}  // namespace clprof::output::tables
