// transfer-bound: transfers against kernels (docs/advice.md).
#include "analyses/advice/commands.hpp"
#include "analyses/advice/util.hpp"
#include "analyses/stats.hpp"

namespace clprof::analyses::advice::rules {

void transfers(const model::Run& run, const Commands& c, const Thresholds& t, Report& out) {
  // Tallied as the transfers streamed (Commands::add_transfer, small_bytes applied there).
  const auto& tl = c.tallies;
  if (tl.transfers == 0) return;
  const double ratio = t.get("transfer-bound", "ratio");
  const double small_bytes = t.get("transfer-bound", "small_bytes");
  const double min_small = t.get("transfer-bound", "min_small");
  const int64_t transfer_ns = tl.transfer_ns, kernel_ns = tl.kernel_ns, small_host = tl.small_host;
  const uint64_t timed = tl.timed_transfers, bytes = tl.transfer_bytes, small = tl.small;
  const auto& ops = tl.ops;
  const auto& small_ops = tl.small_ops;
  // Maps of whole buffers where a part would do: the transfer record has the mapped bytes,
  // not the buffer's size.
  if (tl.any_map)
    out.not_evaluated.push_back(
        {"transfer-bound",
         "maps of whole buffers: the trace records the bytes mapped, not the buffer's size"});

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
    f.evidence = std::to_string(small) + " of " + std::to_string(tl.transfers) +
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
