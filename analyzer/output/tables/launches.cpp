#include "output/tables/launches.hpp"

#include <memory>

#include "analyses/clock_alignment.hpp"
#include "analyses/stats.hpp"

namespace clprof::output::tables {

const Schema& launches_schema() {
  static const Schema s = [] {
    Schema l;
    l.name = "launches";
    l.title = "one row per kernel launch";
    l.default_order = "process, then sequence number";
    l.columns = {
        column("seq", "Seq", Type::Int, "", "sequence number of the launch in its process").ascending(),
        column("name", "Kernel", Type::Text, "", "kernel function name").shrink(),
        column("pid", "Pid", Type::Int, "", "process id").allow_null().wide(),
        column("layer", "Layer", Type::Text, "", "path of the innermost range").wide().shrink(Shorten::Head, 12),
        column("gws", "GWS", Type::Dims, "", "global work size per dimension"),
        column("lws", "LWS", Type::Dims, "", "local work size (null: left to the driver)").allow_null(),
        column("gwo", "GWO", Type::Dims, "", "global work offset (null: none)").allow_null().wide(),
        column("args", "Args", Type::Args, "",
               "kernel arguments at launch: scalar value (or 0x hex), buf#id, local:size, ...")
            .wide()
            .shrink(),
        column("queued_ns", "Queued", Type::Int, "ns", "device clock: CL_PROFILING_COMMAND_QUEUED")
            .allow_null()
            .wide(),
        column("submit_ns", "Submit", Type::Int, "ns", "device clock: CL_PROFILING_COMMAND_SUBMIT")
            .allow_null()
            .wide(),
        column("start_ns", "Start", Type::Int, "ns", "device clock: CL_PROFILING_COMMAND_START")
            .allow_null()
            .wide(),
        column("end_ns", "End", Type::Int, "ns", "device clock: CL_PROFILING_COMMAND_END").allow_null().wide(),
        column("host_start_ns", "Host start", Type::Int, "ns",
               "start on the host clock (ns since the process's trace start): start + the device's clock_sync "
               "offset; null without a sync")
            .allow_null()
            .wide(),
        column("host_end_ns", "Host end", Type::Int, "ns", "end on the host clock, as host_start_ns")
            .allow_null()
            .wide(),
        column("duration_ns", "Duration", Type::Duration, "ns", "kernel time: end - start").allow_null(),
        column("queued_to_submit_ns", "Q>Sub", Type::Duration, "ns", "submit - queued").allow_null(),
        column("submit_to_start_ns", "Sub>Start", Type::Duration, "ns", "start - submit").allow_null(),
        column("host_enqueue_ns", "Enqueue", Type::Duration, "ns", "host time inside the enqueue call")
            .allow_null(),
        column("status", "Status", Type::Text, "",
               "complete, or why there is no kernel time (failed, incomplete, ...)")
            .wide(),
    };
    return l;
  }();
  return s;
}

Value kernel_arg(const model::KernelArg& a) {
  using K = model::KernelArg::Kind;
  auto size = Value::uint(a.size);
  switch (a.kind) {
    case K::Unset: return Value::list({Value::text("unset")});
    case K::Scalar: {
      std::vector<Value> v = {Value::text("scalar"), size, Value::text(a.hex)};
      // The bytes as an unsigned integer; a float argument becomes a real once the trace
      // carries argument types.
      if (a.has_value) v.push_back(Value::uint(a.value));
      return Value::list(std::move(v));
    }
    case K::Buffer:
    case K::Image:
    case K::Pipe:
      return Value::list({Value::text(a.kind == K::Buffer ? "buffer" : a.kind == K::Image ? "image" : "pipe"), size,
                          Value::uint(a.object_id), Value::uint(a.object_bytes)});
    case K::Local: return Value::list({Value::text("local"), size});
    case K::Svm: return Value::list({Value::text("svm"), Value::uint(0), Value::text(a.svm_pointer)});
    case K::Sampler: return Value::list({Value::text("sampler"), size, Value::uint(a.object_id)});
  }
  return Value::null();
}

namespace {

Value time_value(int64_t v) { return v == model::kNoTime ? Value::null() : Value::integer(v); }

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

Result launches_result(const std::vector<const model::Launch*>& launches, const model::Run& run) {
  Result out(launches_schema());
  auto index = std::make_shared<analyses::RangeIndex>(run);
  auto clocks = std::make_shared<analyses::ClockAlignment>(run);
  out.source.count = launches.size();
  out.source.fill = [&launches, &run, index, clocks](size_t i, Row& row) {
    const model::Launch& l = *launches[i];
    const analyses::AlignedTimes host = clocks->times(l);
    std::vector<Value> args;
    for (const auto& a : l.args) args.push_back(kernel_arg(a));
    row = {Value::uint(l.seq),
           Value::text(l.name),
           l.process < run.processes.size() ? Value::integer(run.processes[l.process].pid) : Value::null(),
           Value::text(index->path(analyses::innermost_range(l))),
           dims(l.gws),
           l.lws ? dims(*l.lws) : Value::null(),
           l.gwo.empty() ? Value::null() : dims(l.gwo),
           Value::list(std::move(args)),
           time_value(l.queued_ns),
           time_value(l.submit_ns),
           time_value(l.start_ns),
           time_value(l.end_ns),
           Value::integer(host.start_ns),
           Value::integer(host.end_ns),
           Value::integer(l.duration_ns()),
           phase(l.queued_ns, l.submit_ns),
           phase(l.submit_ns, l.start_ns),
           phase(l.host_begin_ns, l.host_end_ns),
           Value::text(l.status)};
  };
  return out;
}

}  // namespace clprof::output::tables
