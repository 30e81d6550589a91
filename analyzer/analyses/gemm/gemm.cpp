// GemmAnalysis: the streaming part (launches in any order, several instances merged).
// Building the calls is finish_gemm's (gemm_finish.cpp).
#include "analyses/gemm/gemm.hpp"
#include "analyses/stats.hpp"

#include <algorithm>

#include "intern.hpp"

namespace clprof::analyses {

bool GemmAnalysis::Shape::operator==(const Shape& o) const {
  return name_id == o.name_id && rule == o.rule && process == o.process && device == o.device &&
         program_id == o.program_id && dims[0] == o.dims[0] && dims[1] == o.dims[1] &&
         dims[2] == o.dims[2] && dims[3] == o.dims[3];
}

size_t GemmAnalysis::ShapeHash::operator()(const Shape& s) const {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](uint64_t v) { h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2); };
  mix(s.name_id);
  mix(static_cast<uint64_t>(s.rule));
  mix(s.process);
  mix(s.device);
  mix(s.program_id);
  for (int64_t d : s.dims) mix(static_cast<uint64_t>(d));
  return static_cast<size_t>(h);
}

GemmAnalysis::GemmAnalysis(std::shared_ptr<const std::vector<gemm::Rule>> rules,
                           LaunchPredicate keep, bool group, bool group_rows)
    : rules_(std::move(rules)), keep_(std::move(keep)), group_(group), group_rows_(group_rows) {}

uint32_t GemmAnalysis::intern(const std::string& name) {
  return clprof::intern(name, name_ids_, names_);
}

uint32_t GemmAnalysis::intern(const Shape& shape) {
  auto [it, fresh] = shape_ids_.try_emplace(shape, static_cast<uint32_t>(shapes_.size()));
  if (fresh) {
    shapes_.push_back(shape);
    if (group_) {
      standalone_.emplace_back();
      if (group_rows_) shape_durations_.emplace_back();
    }
  }
  return it->second;
}

GemmAnalysis::NameMatch& GemmAnalysis::match(const std::string& name) {
  // One regex search per distinct kernel name, not per launch.
  auto it = match_cache_.find(name);
  if (it != match_cache_.end()) return it->second;
  NameMatch found;
  for (size_t i = 0; i < rules_->size(); ++i) {
    if ((*rules_)[i].regex.search(name)) {
      found.rule = static_cast<int>(i);
      break;
    }
  }
  found.kind = gemm::match_group_kernel(name);
  return match_cache_.emplace(name, found).first->second;
}

uint32_t GemmAnalysis::shape_of(const model::Launch& launch, NameMatch& names) {
  const gemm::Rule& r = (*rules_)[static_cast<size_t>(names.rule)];
  Shape shape;
  if (names.name_id == kNoShape) names.name_id = intern(launch.name);
  shape.name_id = names.name_id;
  shape.rule = names.rule;
  shape.process = launch.process;
  shape.device = launch.device;
  const gemm::DimSource* sources[4] = {&r.m, &r.n, &r.k, &r.batch};
  bool pending = false;
  std::string problem;
  for (int d = 0; d < 4; ++d) {
    if (sources[d]->kind == gemm::DimSource::Kind::Option) {
      shape.dims[d] = kPending;
      pending = true;
      continue;
    }
    auto v = gemm::evaluate(*sources[d], launch, nullptr);
    if (v.value) {
      shape.dims[d] = *v.value;
    } else if (problem.empty()) {
      problem = v.problem;  // one problem per launch: the counts are launches
    }
  }
  // The program only matters for resolving build options: do not split shapes by it.
  if (pending) shape.program_id = launch.program_id;
  if (!problem.empty()) ++problems_[launch.name + ": " + problem];
  return intern(shape);
}

void GemmAnalysis::add_launch(const model::Launch& launch) {
  NameMatch& names = match(launch.name);
  const int rule = names.rule;
  const int kind = names.kind;
  const int64_t duration = launch.duration_ns().value_or(kUnknown);
  if (launch.call != 0) {
    // Inside a recorded library call: every kernel counts, whatever its name.
    CallPart& c = calls_[launch.call];
    c.process = launch.process;
    ++c.kernels;
    c.first_seq = std::min(c.first_seq, launch.seq);
    if (duration >= 0) {
      add_to(c.total_ns, duration);
    } else {
      c.untimed = true;
    }
    if (!c.kept) c.kept = !keep_ || keep_(launch);
    if (rule >= 0) {
      const uint32_t shape = shape_of(launch, names);
      if (launch.seq < c.main_seq) {
        c.main_seq = launch.seq;
        c.main_shape = shape;
        c.device = launch.device;
      }
      if (duration >= 0) {
        add_to(c.main_ns, duration);
      } else {
        c.main_untimed = true;
      }
    }
    return;
  }
  if (kind >= 0) {
    const bool main =
        gemm::group_kernels()[static_cast<size_t>(kind)].role == gemm::GroupKernel::Role::Main;
    Member m;
    m.group = gemm::group_launch(launch, kind);
    if (main) {
      // A main kernel takes part in grouping only with its padded sizes decoded.
      if (rule < 0) return;
      m.shape = shape_of(launch, names);
      const Shape& s = shapes_[m.shape];
      bool known = true;
      for (int d = 0; d < 4; ++d) {
        m.group.dims[d] = s.dims[d];
        known &= s.dims[d] >= 0;
      }
      if (!known) m.group.kind = -1;  // a call by itself, undecoded
    }
    m.process = launch.process;
    m.range = innermost_range(launch);
    m.host_begin_ns = launch.host_begin_ns;
    m.duration_ns = duration;
    m.kept = !keep_ || keep_(launch);
    members_.push_back(m);
    return;
  }
  if (rule < 0) return;
  if (keep_ && !keep_(launch)) return;
  const uint32_t id = shape_of(launch, names);
  if (group_) {
    Standalone& s = standalone_[id];
    if (duration >= 0) {
      if (group_rows_) shape_durations_[id].push_back(duration);
    } else {
      s.untimed_at.push_back(s.launches);
    }
    ++s.launches;
  } else {
    Record rec;
    rec.seq = launch.seq;
    rec.range = innermost_range(launch);
    rec.host_begin_ns = launch.host_begin_ns;
    rec.time_ns = duration;
    rec.main_ns = duration;
    rec.kernels = 1;
    rec.shape = id;
    records_.push_back(rec);
  }
}

void GemmAnalysis::merge(Analysis&& other) {
  auto& o = dynamic_cast<GemmAnalysis&>(other);
  std::vector<uint32_t> names(o.names_.size());
  for (size_t i = 0; i < o.names_.size(); ++i) names[i] = intern(o.names_[i]);
  std::vector<uint32_t> shapes(o.shapes_.size());
  for (size_t i = 0; i < o.shapes_.size(); ++i) {
    Shape s = o.shapes_[i];
    s.name_id = names[s.name_id];
    shapes[i] = intern(s);
  }
  // Block by block: the memory of `other`'s records is released as they are moved.
  while (!o.records_.empty()) {
    Record rec = o.records_.front();
    o.records_.pop_front();
    rec.shape = shapes[rec.shape];
    records_.push_back(rec);
  }
  // `other` is the later part of the file: its launches follow ours in each shape.
  for (size_t i = 0; i < o.standalone_.size(); ++i) {
    Standalone& dst = standalone_[shapes[i]];
    for (uint64_t at : o.standalone_[i].untimed_at) dst.untimed_at.push_back(dst.launches + at);
    dst.launches += o.standalone_[i].launches;
  }
  o.standalone_.clear();
  for (size_t i = 0; i < o.shape_durations_.size(); ++i) {
    auto& dst = shape_durations_[shapes[i]];
    auto& src = o.shape_durations_[i];
    if (dst.empty()) {
      dst.swap(src);
    } else {
      dst.insert(dst.end(), src.begin(), src.end());
    }
    std::vector<int64_t>().swap(src);
  }
  o.shape_durations_.clear();
  for (auto& [id, part] : o.calls_) {
    auto [it, fresh] = calls_.try_emplace(id, part);
    CallPart& c = it->second;
    if (fresh) {
      if (c.main_shape != kNoShape) c.main_shape = shapes[c.main_shape];
      continue;
    }
    c.kernels += part.kernels;
    c.first_seq = std::min(c.first_seq, part.first_seq);
    add_to(c.total_ns, part.total_ns);
    c.untimed |= part.untimed;
    c.kept |= part.kept;
    add_to(c.main_ns, part.main_ns);
    c.main_untimed |= part.main_untimed;
    if (part.main_shape != kNoShape && part.main_seq < c.main_seq) {
      c.main_seq = part.main_seq;
      c.main_shape = shapes[part.main_shape];
      c.device = part.device;
    }
  }
  o.calls_.clear();
  while (!o.members_.empty()) {
    Member m = o.members_.front();
    o.members_.pop_front();
    if (m.shape != kNoShape) m.shape = shapes[m.shape];
    members_.push_back(m);
  }
  for (const auto& [p, n] : o.problems_) problems_[p] += n;
}

}  // namespace clprof::analyses
