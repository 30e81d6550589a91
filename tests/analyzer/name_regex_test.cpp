// NameRegex (analyzer/name_regex.hpp) and the patterns that go through it: the built-in
// GEMM rules, --speedup and rules files, on hostile names and patterns. Every case here
// crashed (stack overflow) or never ended with std::regex.
#include <doctest/doctest.h>

#include <string>

#include "analyses/speedup.hpp"
#include "name_regex.hpp"
#include "readers/gemm_rules/gemm_rules.hpp"
#include "readers/reader.hpp"

using namespace clprof;

TEST_CASE("NameRegex: searches, and rejects invalid patterns with RE2's reason") {
  NameRegex r("^Xgemm(Direct)?$");
  CHECK(r.search("Xgemm"));
  CHECK(r.search("XgemmDirect"));
  CHECK(!r.search("myXgemm"));
  CHECK(NameRegex("gemm").search("sgemm_kernel"));  // a search, not a full match
  CHECK(NameRegex("\\d+x\\d+").search("tile_16x16"));
  CHECK(!NameRegex().search("anything"));
  CHECK_THROWS_WITH_AS(NameRegex("("), "missing ): (", RegexError);
  CHECK_THROWS_WITH_AS(NameRegex("(a)\\1"), doctest::Contains("lookaround are not supported"),
                       RegexError);
  CHECK_THROWS_WITH_AS(NameRegex("a(?=b)"), doctest::Contains("lookaround are not supported"),
                       RegexError);
  CHECK_THROWS_WITH_AS(NameRegex(std::string(NameRegex::kMaxPatternBytes + 1, 'a')),
                       "pattern longer than 4096 bytes", RegexError);
  // A counted repetition that compiles past RE2's memory budget is an error, not a hang.
  CHECK_THROWS_AS(NameRegex("((a{100}){100}){100}"), RegexError);
}

TEST_CASE("NameRegex: a 30,000-character name and (a+)+$ on 100,000 characters") {
  const std::string digits = "sgemm_Col_NN_B0_MX" + std::string(30000, '1');
  CHECK(
      NameRegex("^[sdcz]gemm_(Col|Row)_[NTC]{2}_B[01]_M[XL]\\d+_N[XL]\\d+_KX\\d+").search(digits) ==
      false);
  CHECK(NameRegex("M[XL]\\d+$").search(digits));
  const std::string as = std::string(100000, 'a') + "b";
  CHECK(!NameRegex("(a+)+$").search(as + "!"));  // backtracking engines never finish this
  CHECK(NameRegex("(a+)+b$").search(as));
  CHECK(NameRegex("(.*)*x").search(std::string(50000, 'y') + "x"));
}

TEST_CASE("built-in GEMM rules on 30,000-character names") {
  // One long name per rule shape: digits and letters the rules' \d+, [NT]{2} and
  // alternations walk over.
  const std::string long_names[] = {
      "sgemm_Col_NN_B0_MX" + std::string(30000, '1'),
      "sgemm_NT_" + std::string(30000, '9') + "_1_1_1x1_1x1__ALPHA",
      "XgemmDirect" + std::string(30000, 'N'),
      "prod_" + std::string(30000, 'T'),
      std::string(30000, 'X') + "gemm",
  };
  for (const auto& name : long_names)
    for (const auto& rule : gemm::builtin_rules()) rule.regex.search(name);
  const auto& rules = gemm::builtin_rules();
  auto first_match = [&](const std::string& name) -> std::string {
    for (const auto& r : rules)
      if (r.regex.search(name)) return r.id;
    return "";
  };
  CHECK(first_match("sgemm_Col_NN_B0_MX" + std::string(30000, '1') + "_NX48_KX08") ==
        "clblas-autogemm");
  CHECK(first_match("prod_" + std::string(30000, 'T')) == "viennacl-prod-generated");
  CHECK(first_match(std::string(30000, 'X') + "gemm").empty());
}

TEST_CASE("rules files: nesting 30,000 deep, bad regexes, too many rules") {
  auto error = [](const std::string& text) -> std::string {
    try {
      gemm::parse_rules(text, "r.json");
    } catch (const readers::InputError& e) {
      return e.what();
    }
    return "";
  };
  const std::string deep =
      "{\"gemm_rules\": " + std::string(30000, '[') + std::string(30000, ']') + "}";
  CHECK(error(deep) == "r.json:1:271: JSON nested deeper than 256 levels");
  CHECK(error("{\"gemm_rules\": [{\"id\": \"a\", \"kernel\": \"(a)\\\\1\", \"m\": {\"const\": 1}, "
              "\"n\": {\"const\": 1}, \"k\": {\"const\": 1}}]}") ==
        "r.json:1:39: invalid regex \"(a)\\1\": invalid escape sequence: \\1 (backreferences and "
        "lookaround are not supported)");
  std::string many = "{\"gemm_rules\": [";
  for (size_t i = 0; i <= gemm::kMaxRules; ++i)
    many += (i ? "," : "") + std::string("{\"id\": \"r") + std::to_string(i) +
            "\", \"kernel\": \"k\", \"m\": {\"const\": 1}, \"n\": {\"const\": 1}, \"k\": "
            "{\"const\": 1}}";
  many += "]}";
  CHECK(error(many) == "r.json:1:16: more than 1000 rules");
  // Comments stay allowed, also where a value or a closing bracket follows.
  CHECK(gemm::parse_rules("/* a */ {\"gemm_rules\": [ // b\n {\"id\": \"x\", \"kernel\": \"k\", "
                          "\"m\": {\"const\": 1}, \"n\": {\"const\": 1}, \"k\": /* ] */ "
                          "{\"const\": 2}} /* } */ ]} // end",
                          "r.json")
            .at(0)
            .k.value == 2);
}

TEST_CASE("--speedup: factors are range-checked, regexes are RE2's") {
  for (const char* bad : {"x=1e-300", "x=0.0009", "x=1e7", "x=", "(a)\\1=2"})
    CHECK_THROWS_AS(analyses::parse_speedup(bad), std::invalid_argument);
  CHECK(analyses::parse_speedup("x=0.001").factor == 0.001);
  CHECK(analyses::parse_speedup("x=1e6").factor == 1e6);
  analyses::Speedup s({analyses::parse_speedup("(a+)+$=2")});
  CHECK(s.factor_for(std::string(100000, 'a') + "!") == 1.0);
  // The slowest factor on the longest duration: the quotient is capped, not wrapped.
  analyses::Speedup slow({analyses::parse_speedup("k=0.001")});
  CHECK(slow.estimate_ns("k", INT64_MAX / 10) == INT64_MAX);
}
