// Text dumps of a model::Run, one fact per line. dump_v1_fields: every field the reader
// of trace version 1 filled (data/vector_add_v1.expected was made with it by that reader,
// at cf25d0f); dump_run: every field the reader fills now (the parity tests compare the
// dumps of the same file read by different paths).
#pragma once

#include <sstream>
#include <string>

#include "model.hpp"

namespace clprof::test {

inline std::string dump_v1_fields(const model::Run& run) {
  std::ostringstream o;
  auto ns = [](int64_t v) { return v == model::kNoTime ? std::string("none") : std::to_string(v); };
  auto list = [](const auto& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
    return s + "]";
  };
  auto strs = [](const std::vector<std::string>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? "|" : "") + v[i];
    return s + "]";
  };
  for (const auto& p : run.processes) {
    std::vector<std::string> warnings;
    for (const auto& w : p.warnings) warnings.push_back(w.message);
    o << "process pid=" << p.pid << " cmd=" << strs(p.command_line)
      << " start_unix=" << ns(p.start_unix_ns) << " host_start=" << ns(p.host_start_ns)
      << " host=" << p.host_name << " format=" << p.source_format << " version=" << p.trace_version
      << " truncated=" << p.truncated << " incomplete=" << p.incomplete_events
      << " dropped=" << p.dropped_records << " warnings=" << strs(warnings) << "\n";
  }
  for (const auto& d : run.devices)
    o << "device id=" << d.id << " name=" << d.name << " vendor=" << d.vendor
      << " platform=" << d.platform << " platform_version=" << d.platform_version
      << " version=" << d.version << " driver=" << d.driver_version << " type=" << d.type
      << " cu=" << d.compute_units << " mhz=" << d.max_clock_mhz << " global=" << d.global_mem_bytes
      << " local=" << d.local_mem_bytes << " has_offset=" << d.has_clock_offset
      << " offset=" << d.device_to_host_offset_ns << " method=" << d.clock_method << "\n";
  for (const auto& r : run.ranges)
    o << "range id=" << r.id << " parent=" << r.parent << " name=" << r.name
      << " process=" << r.process << " tid=" << r.tid << " begin=" << ns(r.host_begin_ns)
      << " end=" << ns(r.host_end_ns) << " open=" << r.left_open << "\n";
  for (const auto& p : run.programs)
    o << "program id=" << p.id << " process=" << p.process << " origin=" << p.origin
      << " hash=" << p.source_hash << " bytes=" << p.source_bytes << " source=" << p.source.size()
      << " options=" << p.options << "\n";
  for (const auto& b : run.builds)
    o << "build process=" << b.process << " program=" << b.program_id << " api=" << b.api
      << " options=" << b.options << " devices=" << list(b.devices)
      << " begin=" << ns(b.host_begin_ns) << " end=" << ns(b.host_end_ns) << " rc=" << b.rc
      << " kernels=" << strs(b.kernels) << "\n";
  for (const auto& l : run.launches) {
    o << "launch seq=" << l.seq << " process=" << l.process << " tid=" << l.tid
      << " name=" << l.name << " api=" << l.api << " ids=" << l.kernel_id << "," << l.program_id
      << "," << l.queue_id << "," << l.context_id << " device=" << l.device
      << " gwo=" << list(l.gwo) << " gws=" << list(l.gws)
      << " lws=" << (l.lws ? list(*l.lws) : std::string("null")) << " host=" << ns(l.host_begin_ns)
      << "," << ns(l.host_end_ns) << " dev=" << ns(l.queued_ns) << "," << ns(l.submit_ns) << ","
      << ns(l.start_ns) << "," << ns(l.end_ns) << " status=" << l.status << " rc=" << l.rc
      << " ranges=" << list(l.ranges) << " args=";
    for (const auto& a : l.args)
      o << "(" << static_cast<int>(a.kind) << "," << a.size << "," << a.hex << "," << a.has_value
        << "," << a.value << "," << a.object_id << "," << a.object_bytes << "," << a.svm_pointer
        << ")";
    o << "\n";
  }
  for (const auto& t : run.transfers)
    o << "transfer seq=" << t.seq << " process=" << t.process << " tid=" << t.tid
      << " api=" << t.api << " op=" << t.op << " queue=" << t.queue_id << " device=" << t.device
      << " bytes=" << t.bytes << " blocking=" << t.blocking << " host=" << ns(t.host_begin_ns)
      << "," << ns(t.host_end_ns) << " dev=" << ns(t.queued_ns) << "," << ns(t.submit_ns) << ","
      << ns(t.start_ns) << "," << ns(t.end_ns) << " status=" << t.status << " rc=" << t.rc
      << " ranges=" << list(t.ranges) << "\n";
  for (const auto& s : run.syncs)
    o << "sync seq=" << s.seq << " process=" << s.process << " tid=" << s.tid << " api=" << s.api
      << " queue=" << s.queue_id << " host=" << ns(s.host_begin_ns) << "," << ns(s.host_end_ns)
      << " rc=" << s.rc << "\n";
  for (const auto& m : run.marks)
    o << "mark process=" << m.process << " tid=" << m.tid << " name=" << m.name
      << " host=" << ns(m.host_ns) << "\n";
  return o.str();
}

inline std::string dump_run(const model::Run& run) {
  std::ostringstream o;
  o << dump_v1_fields(run);
  auto ns = [](int64_t v) { return v == model::kNoTime ? std::string("none") : std::to_string(v); };
  for (const auto& p : run.processes) {
    o << "process+ ppid=" << p.ppid << " host_clock=" << p.host_clock
      << " clprof_version=" << p.clprof_version << " session=" << p.session_id
      << " end=" << ns(p.end_host_ns) << " settings=";
    for (const auto& [k, v] : p.settings) o << k << "=" << v << ";";
    o << " counts=";
    for (const auto& [k, v] : p.record_counts) o << k << "=" << v << ";";
    o << " warning_times=";
    for (const auto& w : p.warnings) o << ns(w.host_ns) << ";";
    o << "\n";
  }
  for (const auto& d : run.devices)
    o << "device+ " << d.id << " timer=" << d.timer_resolution_ns
      << " uncertainty=" << d.clock_uncertainty_ns << "\n";
  for (const auto& p : run.programs)
    o << "program+ " << p.id << " context=" << p.context_id << "\n";
  for (const auto& b : run.builds) {
    o << "build+ status=";
    for (int32_t s : b.build_status) o << s << ";";
    o << " hash=" << b.source_hash << "\n";
  }
  for (const auto& q : run.queues)
    o << "queue " << q.id << " process=" << q.process << " context=" << q.context_id
      << " device=" << q.device << " properties=" << q.properties << " added=" << q.profiling_added
      << "\n";
  for (const auto& k : run.kernels)
    o << "kernel " << k.id << " process=" << k.process << " program=" << k.program_id
      << " context=" << k.context_id << " name=" << k.name << " args=" << k.num_args << "\n";
  for (const auto& l : run.launches)
    o << "launch+ " << l.seq << " exec_status=" << l.exec_status << " args_total=" << l.args_total
      << "\n";
  for (const auto& t : run.transfers)
    o << "transfer+ " << t.seq << " exec_status=" << t.exec_status << "\n";
  return o.str();
}

}  // namespace clprof::test
