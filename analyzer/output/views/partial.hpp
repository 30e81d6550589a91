// Mergeable partial aggregates (`clprof kernels|ranks|summary|layers --partial`, read back with
// `--from-partials`): what scripts/clprof-dask's tasks emit for a shard of traces, merges
// exactly (counts, sums, min/max, a value -> count histogram of 1 ns buckets, the per-process
// rows) and hands back to clprof to render, so that its figures are the one-machine ones
// (docs/scale.md, "The partial format").
#pragma once

#include <map>
#include <string>
#include <vector>

#include "analyses/kernels.hpp"
#include "analyses/layers.hpp"
#include "analyses/ranks.hpp"
#include "analyses/summary.hpp"

namespace clprof::output::partial {

// 2: a device's intervals as the histograms of their starts and ends (1: as pairs).
inline constexpr int kVersion = 2;

// `processes`: the shard's process count (the merge numbers the next shard's after them).
// One entry per kernel variant: its name, source hash and options (null: program unknown).
std::string kernels_json(const analyses::VariantKernels& kernels, size_t processes);
// Per layer path (layer_groups): its earliest launch, the histogram of its instances' kernel
// times (an instance is one process's range, so one shard's: complete) and its kernels as
// kernels_json writes them.
std::string layers_json(const analyses::LayerGroups& groups, size_t processes);
// `rows` as rank_table made them (in process order) with their processes' kernel totals.
std::string ranks_json(const analyses::RankTable& table, const analyses::ProcessKernels& kernels);

// `inputs` of a shard (summary_inputs): the counts and sums, each process's host span and
// start, each device's busy time (the union length for a device of the shard, the histograms
// of the intervals' starts and ends for the unknown device 0, which several shards may share)
// and the GEMM terms,
// exactly (hexadecimal floating point). Consumes the intervals.
std::string summary_json(analyses::SummaryInputs& inputs, const model::Run& run);

// Reads the partials `paths` (each one of `command`), merged in the order given: a later
// file's processes come after the earlier ones'. Throws readers::InputError naming the file.
// Kernels per variant (an entry without source_hash and options: program unknown).
analyses::VariantKernels read_kernels(const std::vector<std::string>& paths);
// Layer groups, merged per path and variant (more than kMaxLayerBuckets paths: InputError).
analyses::LayerGroups read_layers(const std::vector<std::string>& paths);
struct RanksPartial {
  std::vector<analyses::RankRow> rows;  // process = index in the merged list
  analyses::ProcessKernels kernels;
};
RanksPartial read_ranks(const std::vector<std::string>& paths);
// A summary partial may hold the shards merged by scripts/clprof-dask ("shards": [...], each
// one shard's), merged here in order (merge_summary_inputs).
analyses::SummaryInputs read_summary(const std::vector<std::string>& paths);

}  // namespace clprof::output::partial
