// A typed cell of a result row: null (unknown), a boolean, a signed or unsigned integer, a
// real number, a text, a list of values (work sizes, kernel arguments) or nested rows (a
// layer's kernels). Renderers turn a value into text by its column's type (output/columns.hpp);
// nothing is preformatted, so a float kernel argument stays a float in every format.
// Values are immutable once built; lists and rows are shared, so copies are cheap.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace clprof::output {

class Value;
// One result row: one value per column of its schema.
using Row = std::vector<Value>;

class Value {
 public:
  enum class Kind : uint8_t { Null, Bool, Int, Uint, Real, Text, List, Rows };

  Value() = default;  // null
  static Value null() { return Value(); }
  static Value boolean(bool v) { return Value(Data(std::in_place_index<1>, v)); }
  static Value integer(int64_t v) { return Value(Data(std::in_place_index<2>, v)); }
  static Value uint(uint64_t v) { return Value(Data(std::in_place_index<3>, v)); }
  static Value real(double v) { return Value(Data(std::in_place_index<4>, v)); }
  static Value text(std::string v) { return Value(Data(std::in_place_index<5>, std::move(v))); }
  static Value list(std::vector<Value> v) {
    return Value(
        Data(std::in_place_index<6>, std::make_shared<const std::vector<Value>>(std::move(v))));
  }
  static Value rows(std::vector<Row> v) {
    return Value(
        Data(std::in_place_index<7>, std::make_shared<const std::vector<Row>>(std::move(v))));
  }
  // nullopt becomes null.
  static Value integer(const std::optional<int64_t>& v) { return v ? integer(*v) : null(); }
  static Value real(const std::optional<double>& v) { return v ? real(*v) : null(); }

  Kind kind() const { return static_cast<Kind>(data_.index()); }
  bool is_null() const { return kind() == Kind::Null; }
  bool as_bool() const { return std::get<1>(data_); }
  int64_t as_int() const { return std::get<2>(data_); }
  uint64_t as_uint() const { return std::get<3>(data_); }
  double as_real() const { return std::get<4>(data_); }
  const std::string& as_text() const { return std::get<5>(data_); }
  const std::vector<Value>& as_list() const { return *std::get<6>(data_); }
  const std::vector<Row>& as_rows() const { return *std::get<7>(data_); }
  // A number as a double (Int, Uint, Real, Bool); nullopt for anything else.
  std::optional<double> number() const;

 private:
  using Data = std::variant<std::monostate, bool, int64_t, uint64_t, double, std::string,
                            std::shared_ptr<const std::vector<Value>>,
                            std::shared_ptr<const std::vector<Row>>>;
  explicit Value(Data d) : data_(std::move(d)) {}
  Data data_;
};

inline std::optional<double> Value::number() const {
  switch (kind()) {
    case Kind::Bool:
      return as_bool() ? 1.0 : 0.0;
    case Kind::Int:
      return static_cast<double>(as_int());
    case Kind::Uint:
      return static_cast<double>(as_uint());
    case Kind::Real:
      return as_real();
    default:
      return std::nullopt;
  }
}

}  // namespace clprof::output
