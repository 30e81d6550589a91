#include "analyses/kernel_variants.hpp"

#include <algorithm>
#include <iterator>
#include <vector>

namespace clprof::analyses {

ProgramVariants::ProgramVariants(const model::Run& run) {
  for (const auto& p : run.programs) programs_.emplace(std::make_pair(p.process, p.id), &p);
}

KernelVariant ProgramVariants::of(const ProgramKernel& k) const {
  KernelVariant v;
  v.name = k.name;
  if (k.program_id == 0) return v;
  const auto it = programs_.find({k.process, k.program_id});
  if (it == programs_.end()) return v;
  v.known = true;
  v.source_hash = it->second->source_hash;
  v.options = it->second->options;
  return v;
}

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// The words of build options: whitespace-separated, with "-D X" and "-I X" one word.
std::vector<std::string> option_words(const std::string& options) {
  std::vector<std::string> words;
  size_t i = 0;
  bool join = false;  // the previous word was a bare -D or -I
  while (i < options.size()) {
    while (i < options.size() && is_space(options[i])) ++i;
    size_t e = i;
    while (e < options.size() && !is_space(options[e])) ++e;
    if (e == i) break;
    std::string w = options.substr(i, e - i);
    if (join) {
      words.back() += ' ' + w;
      join = false;
    } else {
      join = w == "-D" || w == "-I";
      words.push_back(std::move(w));
    }
    i = e;
  }
  return words;
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

// At most kMaxVariantTagBytes, cut at a UTF-8 character boundary and ending "...".
std::string bounded(std::string text) {
  if (text.size() <= kMaxVariantTagBytes) return text;
  size_t cut = kMaxVariantTagBytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  text.resize(cut);
  return text + "...";
}

std::string whole_options(const KernelVariant& v) {
  const std::string w = joined(option_words(v.options));
  return w.empty() ? "no options" : w;
}

std::string source_tag(const KernelVariant& v) {
  if (v.source_hash.empty()) return "no source hash";
  const size_t colon = v.source_hash.find(':');
  const std::string hex =
      colon == std::string::npos ? v.source_hash : v.source_hash.substr(colon + 1);
  return "source " + hex.substr(0, 8);
}

// The tags of the variants of one name (two or more, in variant order).
std::vector<std::string> tags_of(const std::vector<const KernelVariant*>& vs) {
  std::set<std::string> hashes, options;
  std::vector<const KernelVariant*> known;
  for (const auto* v : vs)
    if (v->known) {
      known.push_back(v);
      hashes.insert(v->source_hash);
      options.insert(v->options);
    }
  // The words of every known variant's options, and those in all of them.
  std::vector<std::vector<std::string>> words;
  std::set<std::string> common;
  for (size_t i = 0; i < known.size(); ++i) {
    words.push_back(option_words(known[i]->options));
    std::set<std::string> mine(words.back().begin(), words.back().end());
    if (i == 0) {
      common = std::move(mine);
    } else {
      std::set<std::string> both;
      std::set_intersection(common.begin(), common.end(), mine.begin(), mine.end(),
                            std::inserter(both, both.end()));
      common = std::move(both);
    }
  }
  std::vector<std::string> distinct(known.size());
  bool all_distinct = true;
  for (size_t i = 0; i < known.size(); ++i) {
    std::vector<std::string> own;
    for (const auto& w : words[i])
      if (!common.count(w) && std::find(own.begin(), own.end(), w) == own.end()) own.push_back(w);
    distinct[i] = joined(own);
    all_distinct &= !distinct[i].empty();
  }
  std::vector<std::string> tags;
  size_t k = 0;  // index into known
  for (const auto* v : vs) {
    if (!v->known) {
      tags.push_back("unknown program");
      continue;
    }
    std::string tag;
    if (options.size() > 1) tag = all_distinct ? distinct[k] : whole_options(*v);
    if (hashes.size() > 1) tag += (tag.empty() ? "" : ", ") + source_tag(*v);
    if (tag.empty()) tag = whole_options(*v);  // the one known variant among unknown ones
    tags.push_back(bounded(std::move(tag)));
    ++k;
  }
  return tags;
}

}  // namespace

std::map<KernelVariant, std::string> variant_labels(const std::set<KernelVariant>& variants) {
  std::map<KernelVariant, std::string> out;
  std::set<std::string> used;
  // A name's variants are adjacent in the set (ordered by name first).
  for (auto it = variants.begin(); it != variants.end();) {
    std::vector<const KernelVariant*> same;
    auto e = it;
    while (e != variants.end() && e->name == it->name) same.push_back(&*e++);
    std::vector<std::string> labels;
    if (same.size() == 1) {
      labels.push_back(it->name);
    } else {
      for (const auto& tag : tags_of(same)) labels.push_back(it->name + " [" + tag + "]");
    }
    for (size_t i = 0; i < same.size(); ++i) {
      std::string label = labels[i];
      for (uint64_t n = 2; used.count(label); ++n) label = labels[i] + " #" + std::to_string(n);
      used.insert(label);
      out.emplace(*same[i], std::move(label));
    }
    it = e;
  }
  return out;
}

}  // namespace clprof::analyses
