// transfer-bound: transfers against kernels (docs/advice.md).
#include "analyses/advice/util.hpp"
#include "analyses/stats.hpp"

namespace clprof::analyses::advice::rules {

void transfers(const model::Run& run, const Thresholds& t, Report& out) {
  if (run.transfers.empty()) return;
  const double ratio = t.get("transfer-bound", "ratio");
  const double small_bytes = t.get("transfer-bound", "small_bytes");
  const double min_small = t.get("transfer-bound", "min_small");
  int64_t transfer_ns = 0, kernel_ns = 0, small_host = 0;
  uint64_t timed = 0, bytes = 0, small = 0;
  std::map<std::string, uint64_t> ops, small_ops;
  for (const auto& x : run.transfers) {
    if (x.op == "unmap") continue;
    if (static_cast<double>(x.bytes) < small_bytes && x.op != "map") {
      ++small;
      ++small_ops[x.api];
      const int64_t h = util::host_duration(x.host_begin_ns, x.host_end_ns);
      if (h > 0) add_to(small_host, h);
    }
    if (x.start_ns == model::kNoTime || x.end_ns == model::kNoTime || x.end_ns < x.start_ns)
      continue;
    ++timed;
    add_to(transfer_ns, sub_ns(x.end_ns, x.start_ns));
    bytes += x.bytes;
    ops[x.op] += x.end_ns - x.start_ns;
  }
  for (const auto& l : run.launches)
    if (auto d = l.duration_ns()) add_to(kernel_ns, *d);
  // Maps of whole buffers where a part would do: the transfer record has the mapped bytes,
  // not the buffer's size.
  for (const auto& x : run.transfers)
    if (x.op == "map") {
      out.not_evaluated.push_back(
          {"transfer-bound",
           "maps of whole buffers: the trace records the bytes mapped, not the buffer's size"});
      break;
    }

  // Transfer time comparable to kernel time. Impact: the transfer device time, an upper
  // bound of what keeping data on the device (or overlapping the copies) saves.
  if (timed == 0) {
    out.not_evaluated.push_back({"transfer-bound", "no transfer has device times"});
  } else if (transfer_ns > 0 && transfer_ns >= ratio * kernel_ns) {
    Finding f;
    f.rule = "transfer-bound";
    f.severity = Severity::Warning;
    f.title =
        "transfers take " +
        (kernel_ns > 0 ? output::format_general(static_cast<double>(transfer_ns) / kernel_ns) + "x"
                       : std::string("more than")) +
        " the kernel time";
    f.evidence = std::to_string(timed) + " timed transfers (" + output::format_bytes(bytes) +
                 ") took " + util::ns(transfer_ns) + " on the device against " +
                 util::ns(kernel_ns) + " of kernels; by operation: " + util::timed(ops, 6);
    f.advice =
        "Keep data on the device between kernels instead of copying it back and forth; on "
        "devices that share memory with the host (integrated GPUs, CPUs) allocate with "
        "CL_MEM_ALLOC_HOST_PTR and map instead of copying; overlap the copies with kernels on "
        "a second queue.";
    f.impact_ns = transfer_ns;
    f.subjects = util::top_names(ops, 4);
    out.findings.push_back(std::move(f));
  }

  // Many small transfers: per-call overhead. No impact estimate (it depends on how far
  // they can be batched).
  if (small > 0 && small >= min_small) {
    Finding f;
    f.rule = "transfer-bound";
    f.severity = Severity::Info;
    f.title = std::to_string(small) + " transfers of under " +
              output::format_bytes(static_cast<uint64_t>(small_bytes));
    f.evidence = std::to_string(small) + " of " + std::to_string(run.transfers.size()) +
                 " transfers move less than " +
                 output::format_bytes(static_cast<uint64_t>(small_bytes)) + " each (" +
                 util::counted(small_ops, 3) + "); the host spent " + util::ns(small_host) +
                 " in them";
    f.advice =
        "Batch small transfers into one buffer and one call (or clEnqueueWriteBufferRect / a "
        "mapped staging buffer); pass small constants as kernel arguments instead of buffers.";
    f.subjects = util::top_names(small_ops, 3);
    out.findings.push_back(std::move(f));
  }
}

}  // namespace clprof::analyses::advice::rules
