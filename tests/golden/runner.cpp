// The golden-test runner (the idea of Perfetto's diff tests): each case is a directory
// tests/golden/<case>/ holding
//   cmd              the clprof command line (without "clprof"); lines starting with '#'
//                    are comments (why the expected values are right); words are split like
//                    a shell's ('...' and "..." quote, no expansion); leading NAME=VALUE words
//                    set the environment (COLUMNS is 80 unless a case sets it; NAME= unsets);
//                    $TMP is a fresh empty directory, shown as $TMP in the outputs
//                    A comment "# figures: WORD..." names key figures derived independently
//                    (by hand from the input, or by the input's other tool) that must appear
//                    in stdout (or stderr with its "[exit N]"), each as written: a blessed
//                    output that lost them
//                    fails even when `expected` was rewritten to match it. A case of a view
//                    (summary kernels layers launches gemm compare transfers api builds, the
//                    first word after the NAME=VALUE words) must have one, except error-* and
//                    help-* cases and --help
//   expected         what clprof prints on stdout
//   expected_stderr  stderr and "[exit N]" when clprof writes to stderr or exits non-zero
//                    (absent otherwise)
//   input files      any files of the case itself (most cases name the shared fixtures of
//                    tests/analyzer/data and tests/analyzer/readers/<format>/data by a relative
//                    path)
// clprof runs in the case directory. JSON output (--format json, and `timeline`; exit 0) is
// also validated against docs/schema/<command>.schema.json.
//
// Usage: golden_runner --clprof BIN --schemas DIR [--update] CASE_DIR...
// --update rewrites `expected` and `expected_stderr` from what clprof prints now, and prints
// per changed case the lines it removed (-) and added (+), to be read before a commit.
#include <sys/stat.h>
#include <unistd.h>

#include "run_child.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/schema.h>
#include <rapidjson/stringbuffer.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

bool read_file(const std::string& path, std::string& out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::ostringstream ss;
  ss << f.rdbuf();
  out = ss.str();
  return true;
}

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << text;
  return static_cast<bool>(f);
}

// Shell-like words: whitespace separates, '...' and "..." quote (no escapes inside '...';
// \" and \\ inside "..."), nothing is expanded.
bool split_words(const std::string& line, std::vector<std::string>& words, std::string& error) {
  std::string word;
  bool in_word = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == ' ' || c == '\t') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else if (c == '\'' || c == '"') {
      // The closing quote: in "..." the first one not escaped by a backslash.
      size_t end = line.find(c, i + 1);
      while (c == '"' && end != std::string::npos) {
        size_t backslashes = 0;
        for (size_t k = end; k > i + 1 && line[k - 1] == '\\'; --k) ++backslashes;
        if (backslashes % 2 == 0) break;
        end = line.find(c, end + 1);
      }
      if (end == std::string::npos) {
        error = "unterminated quote";
        return false;
      }
      std::string quoted = line.substr(i + 1, end - i - 1);
      if (c == '"') {
        std::string unescaped;
        for (size_t k = 0; k < quoted.size(); ++k) {
          if (quoted[k] == '\\' && k + 1 < quoted.size()) ++k;
          unescaped += quoted[k];
        }
        quoted = unescaped;
      }
      word += quoted;
      in_word = true;
      i = end;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return true;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

// Validates `json` against `schema_path`; "" when valid, else why not.
std::string validate(const std::string& json, const std::string& schema_path) {
  std::string schema_text;
  if (!read_file(schema_path, schema_text)) return "cannot read " + schema_path;
  rapidjson::Document sd;
  sd.Parse(schema_text.c_str());
  if (sd.HasParseError()) return schema_path + ": not JSON";
  rapidjson::SchemaDocument schema(sd);
  rapidjson::Document d;
  d.Parse(json.c_str());
  if (d.HasParseError())
    return std::string("output is not JSON: ") + rapidjson::GetParseError_En(d.GetParseError()) +
           " at offset " + std::to_string(d.GetErrorOffset());
  rapidjson::SchemaValidator v(schema);
  if (d.Accept(v)) return "";
  rapidjson::StringBuffer where, rule;
  v.GetInvalidSchemaPointer().StringifyUriFragment(rule);
  v.GetInvalidDocumentPointer().StringifyUriFragment(where);
  return std::string("does not match ") + schema_path + ": value " + where.GetString() +
         " breaks " + rule.GetString() + " (" + v.GetInvalidSchemaKeyword() + ")";
}

// Prints where `expected` and `actual` first differ, with a little context.
void show_difference(const std::string& what, const std::string& expected,
                     const std::string& actual) {
  std::istringstream e(expected), a(actual);
  std::string le, la;
  std::vector<std::string> before;
  for (size_t line = 1;; ++line) {
    const bool he = static_cast<bool>(std::getline(e, le));
    const bool ha = static_cast<bool>(std::getline(a, la));
    if (!he && !ha) break;
    if (he && ha && le == la) {
      before.push_back(le);
      if (before.size() > 3) before.erase(before.begin());
      continue;
    }
    std::cout << "  " << what << " differs at line " << line << ":\n";
    for (const auto& b : before) std::cout << "     " << b << "\n";
    std::cout << "   - " << (he ? le : "<end>") << "\n   + " << (ha ? la : "<end>") << "\n";
    return;
  }
  std::cout << "  " << what << " differs (line ends or final newline)\n";
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// Prints the lines `update` removes from `before` (-) and adds (+), in order: a longest
// common subsequence of lines, or (past 4 M line pairs) every line not in the other side.
void print_changes(const std::string& file, const std::string& before, const std::string& after) {
  if (before == after) return;
  const auto a = lines_of(before), b = lines_of(after);
  std::cout << "  changed " << file << ":\n";
  if (a.size() * b.size() > 4'000'000) {
    for (const auto& l : a)
      if (std::find(b.begin(), b.end(), l) == b.end()) std::cout << "   - " << l << "\n";
    for (const auto& l : b)
      if (std::find(a.begin(), a.end(), l) == a.end()) std::cout << "   + " << l << "\n";
    return;
  }
  std::vector<std::vector<uint32_t>> common(a.size() + 1, std::vector<uint32_t>(b.size() + 1));
  for (size_t i = a.size(); i-- > 0;)
    for (size_t j = b.size(); j-- > 0;)
      common[i][j] =
          a[i] == b[j] ? common[i + 1][j + 1] + 1 : std::max(common[i + 1][j], common[i][j + 1]);
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (i < a.size() && j < b.size() && a[i] == b[j]) {
      ++i, ++j;
    } else if (j < b.size() && (i == a.size() || common[i][j + 1] >= common[i + 1][j])) {
      std::cout << "   + " << b[j++] << "\n";
    } else {
      std::cout << "   - " << a[i++] << "\n";
    }
  }
}

// Issue 34: a case of a view (summary, kernels, layers, launches, gemm, compare, transfers, api,
// builds) states its key figures derived by hand in a "# figures:" line; refusals (error-*) and
// help texts (help-*, --help) need none.
bool needs_figures(const std::string& dir, const std::vector<std::string>& args) {
  if (args.empty() || std::find(args.begin(), args.end(), "--help") != args.end()) return false;
  std::string name = dir;
  while (name.size() > 1 && name.back() == '/') name.pop_back();
  const size_t slash = name.find_last_of('/');
  if (slash != std::string::npos) name = name.substr(slash + 1);
  if (name.compare(0, 6, "error-") == 0 || name.compare(0, 5, "help-") == 0) return false;
  for (const char* view : {"summary", "kernels", "layers", "launches", "gemm", "compare",
                           "transfers", "api", "builds"})
    if (args[0] == view) return true;
  return false;
}

struct Options {
  std::string clprof, schemas;
  bool update = false;
  std::vector<std::string> cases;
};

// Runs one case; true when it passes (or was updated).
bool run_case(const Options& o, const std::string& dir) {
  std::string cmd_text;
  if (!read_file(dir + "/cmd", cmd_text)) {
    std::cout << "FAIL " << dir << ": no cmd file\n";
    return false;
  }
  std::string line;
  std::vector<std::string> figures;
  std::string error;
  {
    std::istringstream in(cmd_text);
    std::string l;
    const std::string figures_tag = "# figures:";
    while (std::getline(in, l)) {
      if (l.compare(0, figures_tag.size(), figures_tag) == 0) {
        if (!split_words(l.substr(figures_tag.size()), figures, error)) {
          std::cout << "FAIL " << dir << ": bad figures line: " << error << "\n";
          return false;
        }
        continue;
      }
      if (l.empty() || l[0] == '#') continue;
      if (line.empty()) line = l;
    }
  }
  std::vector<std::string> words;
  if (line.empty() || !split_words(line, words, error)) {
    std::cout << "FAIL " << dir << ": bad cmd: " << (error.empty() ? "empty" : error) << "\n";
    return false;
  }
  const char* base = std::getenv("TMPDIR");
  std::string tmp = std::string(base && *base ? base : "/tmp") + "/clprof-golden-XXXXXX";
  if (!mkdtemp(tmp.data())) {
    std::cout << "FAIL " << dir << ": mkdtemp: " << std::strerror(errno) << "\n";
    return false;
  }
  std::vector<std::pair<std::string, std::string>> env = {{"COLUMNS", "80"}};
  std::vector<std::string> args;
  bool leading = true;
  for (auto& w : words) {
    w = replace_all(w, "$TMP", tmp);
    const size_t eq = w.find('=');
    if (leading && eq != std::string::npos && eq > 0 && w[0] != '-' &&
        w.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789") == eq) {
      env.emplace_back(w.substr(0, eq), w.substr(eq + 1));
      continue;
    }
    leading = false;
    args.push_back(w);
  }
  if (figures.empty() && needs_figures(dir, args)) {
    (void)!rmdir(tmp.c_str());
    std::cout << "FAIL " << dir
              << ": no '# figures:' line: state the key figures derived by hand\n";
    return false;
  }
  std::vector<std::string> argv = {o.clprof};
  argv.insert(argv.end(), args.begin(), args.end());
  clprof::test::ChildResult r = clprof::test::run_child(argv, env, dir, tmp);
  (void)!std::system(("rm -rf '" + tmp + "'").c_str());
  r.out = replace_all(r.out, tmp, "$TMP");
  r.err = replace_all(r.err, tmp, "$TMP");
  std::string err_expected_now = r.err;
  if (r.status != 0) err_expected_now += "[exit " + std::to_string(r.status) + "]\n";

  bool json = false;
  for (size_t i = 0; i + 1 < args.size(); ++i)
    json |= args[i] == "--format" && args[i + 1] == "json";
  for (const auto& a : args) json |= a == "--format=json";
  // `timeline` always writes JSON (docs/schema/timeline.schema.json), except its --help.
  const bool help = std::find(args.begin(), args.end(), "--help") != args.end();
  json |= !args.empty() && args[0] == "timeline" && !help;
  std::string schema_problem;
  if (json && r.status == 0 && !args.empty()) {
    const std::string schema = o.schemas + "/" + args[0] + ".schema.json";
    struct stat st;
    if (stat(schema.c_str(), &st) == 0) schema_problem = validate(r.out, schema);
  }

  std::string missing_figures;
  for (const auto& f : figures)
    if (r.out.find(f) == std::string::npos && err_expected_now.find(f) == std::string::npos)
      missing_figures += " '" + f + "'";

  if (o.update) {
    std::string old_out, old_err;
    read_file(dir + "/expected", old_out);
    read_file(dir + "/expected_stderr", old_err);
    print_changes(dir + "/expected", old_out, r.out);
    print_changes(dir + "/expected_stderr", old_err, err_expected_now);
    write_file(dir + "/expected", r.out);
    if (err_expected_now.empty())
      unlink((dir + "/expected_stderr").c_str());
    else
      write_file(dir + "/expected_stderr", err_expected_now);
    std::cout << (schema_problem.empty() ? "updated " : "updated (SCHEMA MISMATCH) ") << dir
              << "\n";
    if (!schema_problem.empty()) std::cout << "  " << schema_problem << "\n";
    if (!missing_figures.empty())
      std::cout << "  FIGURES MISSING from the new output:" << missing_figures << "\n";
    return schema_problem.empty() && missing_figures.empty();
  }
  std::string expected, expected_err;
  if (!read_file(dir + "/expected", expected)) {
    std::cout << "FAIL " << dir << ": no expected file (run with --update)\n";
    return false;
  }
  read_file(dir + "/expected_stderr", expected_err);
  bool ok = true;
  if (r.out != expected) {
    std::cout << "FAIL " << dir << ": stdout\n";
    show_difference("stdout", expected, r.out);
    ok = false;
  }
  if (err_expected_now != expected_err) {
    std::cout << "FAIL " << dir << ": stderr / exit status\n";
    show_difference("stderr", expected_err, err_expected_now);
    ok = false;
  }
  if (!schema_problem.empty()) {
    std::cout << "FAIL " << dir << ": JSON schema: " << schema_problem << "\n";
    ok = false;
  }
  if (!missing_figures.empty()) {
    std::cout << "FAIL " << dir
              << ": figures of the cmd comment not in the output:" << missing_figures << "\n";
    ok = false;
  }
  if (ok) std::cout << "ok   " << dir << "\n";
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--update")
      o.update = true;
    else if (a == "--clprof" && i + 1 < argc)
      o.clprof = argv[++i];
    else if (a == "--schemas" && i + 1 < argc)
      o.schemas = argv[++i];
    else
      o.cases.push_back(a);
  }
  if (!o.clprof.empty()) {
    // clprof runs in each case's directory: a relative path must not depend on that.
    char* abs = realpath(o.clprof.c_str(), nullptr);
    if (abs) o.clprof = abs;
    std::free(abs);
  }
  if (o.clprof.empty() || o.cases.empty()) {
    std::cerr << "usage: golden_runner --clprof BIN [--schemas DIR] [--update] CASE_DIR...\n";
    return 2;
  }
  int failed = 0;
  for (const auto& c : o.cases) failed += !run_case(o, c);
  if (o.cases.size() > 1)
    std::cout << o.cases.size() - failed << "/" << o.cases.size() << " cases passed\n";
  return failed ? 1 : 0;
}
