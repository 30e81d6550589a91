// The rows of `clprof export`'s tables, built from the model (the tables' columns are
// declared in export_tables.cpp; the header says what each key and clock means).
#include <string>
#include <utility>
#include <vector>

#include "format.hpp"
#include "output/command_fields.hpp"
#include "output/tables/gemm.hpp"
#include "output/views/export_tables.hpp"
#include "output/views/json_text.hpp"

namespace clprof::output::views {

namespace {

using model::kNoTime;

Value span(int64_t b, int64_t e) {
  if (b == kNoTime || e == kNoTime || e < b) return Value::null();
  return Value::integer(e - b);
}
Value opt_id(uint64_t v) {
  return v == 0 ? Value::null() : Value::uint(v);
}
Value dim(const std::vector<uint64_t>& v, size_t i) {
  return i < v.size() ? Value::uint(v[i]) : Value::null();
}
// The first columns of the launches and transfers rows: process, pid, seq, tid.
Row command_key(uint32_t process, Value pid, uint64_t seq, uint64_t tid) {
  return {Value::uint(process), std::move(pid), Value::uint(seq), opt_id(tid)};
}
uint64_t innermost(const std::vector<uint64_t>& ranges) {
  return ranges.empty() ? 0 : ranges.back();
}

}  // namespace

ExportRows::ExportRows(const model::Run& run, const std::vector<gemm::Rule>& rules)
    : run_(run), clocks_(run), ranges_(run), gemm_(rules) {
  for (const auto& p : run.programs) program_options_[{p.process, p.id}] = &p.options;
}

Value ExportRows::pid(uint32_t process) const {
  return process < run_.processes.size() ? Value::integer(run_.processes[process].pid)
                                         : Value::null();
}

void ExportRows::metadata(const RowOut& out) const {
  for (uint32_t i = 0; i < run_.processes.size(); ++i) {
    const auto& p = run_.processes[i];
    std::string argv = "[";
    for (size_t k = 0; k < p.command_line.size(); ++k) {
      if (k) argv += ',';
      append_json_string(argv, p.command_line[k]);
    }
    std::string counts = "{";
    for (const auto& [type, n] : p.record_counts) {
      if (counts.size() > 1) counts += ',';
      append_json_string(counts, type);
      counts += ':' + std::to_string(n);
    }
    out(ExportTable::Processes,
        {Value::uint(i), pid(i), p.ppid ? Value::integer(p.ppid) : Value::null(),
         Value::text(p.host_name), Value::text(argv + "]"), Value::text(p.session_id),
         Value::text(p.clprof_version), Value::text(p.host_clock), time_or_null(p.start_unix_ns),
         time_or_null(p.host_start_ns), Value::text(p.source), Value::text(p.source_format),
         Value::integer(p.trace_version), Value::boolean(p.truncated),
         Value::uint(p.incomplete_events), Value::uint(p.dropped_records),
         time_or_null(p.end_host_ns), Value::text(counts + "}")});
    for (const auto& [name, value] : p.settings)
      out(ExportTable::Settings, {Value::uint(i), pid(i), Value::text(name), Value::text(value)});
    for (const auto& w : p.warnings)
      out(ExportTable::Warnings,
          {Value::uint(i), pid(i), Value::text(w.message), time_or_null(w.host_ns)});
  }
  // Importers do not say which process a device belongs to: the process of a command on it.
  std::map<uint32_t, uint32_t> device_process;
  for (const auto& l : run_.launches) device_process.emplace(l.device, l.process);
  for (const auto& t : run_.transfers) device_process.emplace(t.device, t.process);
  for (const auto& d : run_.devices) {
    const bool s = d.has_clock_offset;
    auto guess = device_process.find(d.id);
    const Value process = d.process != UINT32_MAX         ? Value::uint(d.process)
                          : guess != device_process.end() ? Value::uint(guess->second)
                                                          : Value::null();
    out(ExportTable::Devices,
        {Value::uint(d.id), process, Value::text(d.name), Value::text(d.vendor),
         Value::text(d.platform), Value::text(d.platform_version), Value::text(d.version),
         Value::text(d.driver_version), Value::text(d.type), Value::uint(d.compute_units),
         Value::uint(d.max_clock_mhz), Value::uint(d.global_mem_bytes),
         Value::uint(d.local_mem_bytes), Value::uint(d.timer_resolution_ns),
         s ? Value::text(d.clock_method) : Value::null(),
         s ? Value::integer(d.device_to_host_offset_ns) : Value::null(),
         s ? Value::uint(d.clock_uncertainty_ns) : Value::null()});
  }
  for (const auto& q : run_.queues)
    out(ExportTable::Queues,
        {Value::uint(q.process), pid(q.process), Value::uint(q.id), opt_id(q.context_id),
         opt_id(q.device), Value::uint(q.properties), Value::boolean(q.profiling_added)});
  for (const auto& p : run_.programs)
    out(ExportTable::Programs,
        {Value::uint(p.process), pid(p.process), Value::uint(p.id), opt_id(p.context_id),
         Value::text(p.origin), Value::text(p.source_hash), Value::uint(p.source_bytes),
         Value::text(p.options)});
  for (const auto& k : run_.kernels)
    out(ExportTable::Kernels,
        {Value::uint(k.process), pid(k.process), Value::uint(k.id), opt_id(k.program_id),
         opt_id(k.context_id), Value::text(k.name), Value::uint(k.num_args)});
  for (const auto& b : run_.builds) {
    std::string devices, status;
    for (uint32_t d : b.devices) devices += (devices.empty() ? "" : ",") + std::to_string(d);
    for (int32_t v : b.build_status) status += (status.empty() ? "" : ",") + std::to_string(v);
    out(ExportTable::Builds,
        {Value::uint(b.process), pid(b.process), Value::uint(b.program_id), Value::text(b.api),
         Value::text(b.options), Value::text(devices), time_or_null(b.host_begin_ns),
         time_or_null(b.host_end_ns), span(b.host_begin_ns, b.host_end_ns), Value::integer(b.rc),
         Value::text(status), Value::text(joined(b.kernels, ",")), Value::text(b.source_hash)});
  }
  for (const auto& r : run_.ranges) {
    int64_t depth = 0;
    for (const model::Range* up = ranges_.find(r.parent); up && depth < 1000;
         up = ranges_.find(up->parent))
      ++depth;
    out(ExportTable::Ranges,
        {Value::uint(r.process), pid(r.process), Value::uint(r.id), opt_id(r.parent),
         Value::text(r.name), Value::text(ranges_.path(r.id)), Value::integer(depth),
         Value::uint(r.tid), time_or_null(r.host_begin_ns), time_or_null(r.host_end_ns),
         span(r.host_begin_ns, r.host_end_ns), Value::boolean(r.left_open)});
  }
  for (const auto& y : run_.syncs)
    out(ExportTable::ApiCalls,
        {Value::uint(y.process), pid(y.process), Value::uint(y.seq), Value::uint(y.tid),
         Value::text(y.api), opt_id(y.queue_id), time_or_null(y.host_begin_ns),
         time_or_null(y.host_end_ns), span(y.host_begin_ns, y.host_end_ns), Value::integer(y.rc)});
  for (const auto& m : run_.marks)
    out(ExportTable::Marks, {Value::uint(m.process), pid(m.process), Value::uint(m.tid),
                             Value::text(m.name), time_or_null(m.host_ns)});
  for (const auto& t : run_.layer_timings)
    out(ExportTable::LayerTimings, {Value::uint(t.iteration), Value::text(t.layer),
                                    Value::text(t.direction), Value::integer(t.time_ns)});
}

void ExportRows::launch(const model::Launch& l, const RowOut& out) {
  use_.note(l.device, l.has_device_times());
  const model::AlignedTimes h = clocks_.times(l);
  const uint64_t range = innermost(l.ranges);
  auto prog = program_options_.find({l.process, l.program_id});
  const auto g = gemm_.decode(l, prog == program_options_.end() ? nullptr : prog->second);
  std::string extra;
  if (!l.extra.empty()) {
    for (const auto& [k, v] : l.extra) {
      extra += extra.empty() ? "{" : ",";
      append_json_string(extra, k);
      extra += ':';
      append_json_string(extra, v);
    }
    extra += '}';
  }
  const std::vector<uint64_t> no_lws;
  const std::vector<uint64_t>& lws = l.lws ? *l.lws : no_lws;
  Row row = command_key(l.process, pid(l.process), l.seq, l.tid);
  row.insert(row.end(), {Value::text(l.name),
                         Value::text(l.api),
                         opt_id(l.kernel_id),
                         opt_id(l.program_id),
                         opt_id(l.queue_id),
                         opt_id(l.context_id),
                         opt_id(l.device),
                         Value::uint(l.gws.size()),
                         dim(l.gws, 0),
                         dim(l.gws, 1),
                         dim(l.gws, 2),
                         dim(lws, 0),
                         dim(lws, 1),
                         dim(lws, 2),
                         dim(l.gwo, 0),
                         dim(l.gwo, 1),
                         dim(l.gwo, 2),
                         Value::uint(l.args.size()),
                         time_or_null(l.host_begin_ns),
                         time_or_null(l.host_end_ns)});
  append_device_times(row, l, h);
  row.insert(
      row.end(),
      {Value::integer(l.duration_ns()), Value::text(l.status), Value::integer(l.rc),
       l.exec_status ? Value::integer(l.exec_status) : Value::null(), Value::uint(l.args_total),
       opt_id(range), Value::text(ranges_.path(range)), opt_id(l.call),
       g ? Value::text(g->rule->id) : Value::null(), g ? Value::integer(g->m) : Value::null(),
       g ? Value::integer(g->n) : Value::null(), g ? Value::integer(g->k) : Value::null(),
       g ? Value::integer(g->batch) : Value::null(), g ? Value::real(g->flops) : Value::null(),
       extra.empty() ? Value::null() : Value::text(extra)});
  out(ExportTable::Launches, row);
  for (size_t i = 0; i < l.args.size(); ++i) {
    using K = model::KernelArg::Kind;
    const auto& a = l.args[i];
    const bool mem = a.kind == K::Buffer || a.kind == K::Image || a.kind == K::Pipe;
    out(ExportTable::Args,
        {Value::uint(l.process), pid(l.process), Value::uint(l.seq), Value::uint(i),
         Value::text(kernel_arg_kind(a.kind)), Value::uint(a.size),
         a.kind == K::Scalar && a.has_value ? Value::uint(a.value) : Value::null(),
         a.kind == K::Scalar ? Value::text(a.hex) : Value::null(),
         mem || a.kind == K::Sampler ? Value::uint(a.object_id) : Value::null(),
         mem ? Value::uint(a.object_bytes) : Value::null(),
         a.kind == K::Svm ? Value::text(a.svm_pointer) : Value::null()});
  }
}

void ExportRows::transfer(const model::Transfer& t, const RowOut& out) const {
  use_.note(t.device, t.start_ns != kNoTime && t.end_ns != kNoTime);
  const model::AlignedTimes h = clocks_.times(t);
  Row row = command_key(t.process, pid(t.process), t.seq, t.tid);
  row.insert(row.end(), {Value::text(t.api), Value::text(t.op), opt_id(t.queue_id),
                         opt_id(t.device), Value::uint(t.bytes), Value::boolean(t.blocking),
                         time_or_null(t.host_begin_ns), time_or_null(t.host_end_ns)});
  append_device_times(row, t, h);
  row.insert(row.end(),
             {span(t.start_ns, t.end_ns), Value::text(t.status), Value::integer(t.rc),
              t.exec_status ? Value::integer(t.exec_status) : Value::null(),
              opt_id(innermost(t.ranges)), Value::text(ranges_.path(innermost(t.ranges)))});
  out(ExportTable::Transfers, row);
}

void ExportRows::gemm_calls(const analyses::GemmResult& result, const RowOut& out) const {
  std::map<std::pair<uint32_t, uint64_t>, const model::BlasCall*> calls;
  for (const auto& c : run_.blas_calls) calls[{c.process, c.id}] = &c;
  const Result rows = tables::gemm_result(result, false);
  Row gemm_row;
  for (size_t i = 0; i < result.records.size(); ++i) {
    const auto& rec = result.records[i];
    const auto& shape = result.shape(rec);
    rows.source.fill(i, gemm_row);
    Row row = {Value::uint(shape.process), pid(shape.process), opt_id(rec.call)};
    for (size_t j : gemm_call_columns()) row.push_back(gemm_row.at(j));
    auto it = calls.find({shape.process, rec.call});
    const model::BlasCall* c = rec.call && it != calls.end() ? it->second : nullptr;
    const auto text = [c](const std::string model::BlasCall::*field) {
      return c && !(c->*field).empty() ? Value::text(c->*field) : Value::null();
    };
    row.insert(row.end(), {text(&model::BlasCall::library), text(&model::BlasCall::routine),
                           text(&model::BlasCall::trans_a), text(&model::BlasCall::trans_b),
                           shape.flops ? Value::real(*shape.flops) : Value::null(),
                           c ? time_or_null(c->host_begin_ns) : Value::null(),
                           c ? time_or_null(c->host_end_ns) : Value::null(), opt_id(rec.range),
                           opt_id(shape.device)});
    out(ExportTable::GemmCalls, row);
  }
}

}  // namespace clprof::output::views
