// Internal to the clprof trace reader: CLPROF_FIELD(record, key, Type), the schema row
// of field `key` of `record` (a namespace of trace_schema.hpp), checked at compile time
// to be of `Type`: the code that decodes a field names the decoder of the type the schema
// gives it, and a change of type in the schema stops the build here.
#pragma once

#include <cstddef>

#include "clprof/trace_schema.hpp"

#define CLPROF_FIELD(record, key, T)                                                   \
  ([]() -> const ::clprof::trace::Field& {                                             \
    constexpr const ::clprof::trace::Field& f =                                        \
        ::clprof::trace::record::kFields[static_cast<std::size_t>(                     \
            ::clprof::trace::record::F::key)];                                         \
    static_assert(f.type == ::clprof::trace::Type::T, #record "." #key " is not " #T); \
    return f;                                                                          \
  }())
