// The "blas" object of a range_begin record (a BLAS library call, trace version 3), field
// by field, into model::BlasCall (TraceParser::get_blas_call, records.hpp).
#include "readers/clprof_trace/records.hpp"
#include "readers/clprof_trace/schema_field.hpp"

namespace clprof::readers::detail {

namespace ts = clprof::trace;
namespace od = simdjson::ondemand;

void TraceParser::get_blas_call(od::value& v, const ts::Field& field, model::BlasCall& c) {
  od::object obj;
  if (auto e = v.get_object().get(obj)) fail_type(v, field, "an object", e);
  using F = ts::blas::F;
  for_each_schema_field(
      obj, ts::blas::kFields, "range_begin record: \"blas\"", [&](size_t i, od::value& x) {
        switch (static_cast<F>(i)) {
          case F::library:
            c.library.assign(get_string(x, CLPROF_FIELD(blas, library, String)));
            break;
          case F::api:
            c.api.assign(get_string(x, CLPROF_FIELD(blas, api, String)));
            break;
          case F::routine:
            c.routine.assign(get_string(x, CLPROF_FIELD(blas, routine, String)));
            break;
          case F::precision:
            c.precision.assign(get_string(x, CLPROF_FIELD(blas, precision, String)));
            break;
          case F::layout:
            c.layout.assign(get_string(x, CLPROF_FIELD(blas, layout, String)));
            break;
          case F::trans_a:
            c.trans_a.assign(get_string(x, CLPROF_FIELD(blas, trans_a, String)));
            break;
          case F::trans_b:
            c.trans_b.assign(get_string(x, CLPROF_FIELD(blas, trans_b, String)));
            break;
          case F::m:
            c.m = get_uint(x, CLPROF_FIELD(blas, m, Uint));
            break;
          case F::n:
            c.n = get_uint(x, CLPROF_FIELD(blas, n, Uint));
            break;
          case F::k:
            c.k = get_uint(x, CLPROF_FIELD(blas, k, Uint));
            break;
          case F::batch:
            c.batch = get_uint(x, CLPROF_FIELD(blas, batch, Uint));
            break;
          case F::alpha:
            c.alpha = get_real(x, CLPROF_FIELD(blas, alpha, Real));
            break;
          case F::beta:
            c.beta = get_real(x, CLPROF_FIELD(blas, beta, Real));
            break;
          case F::alpha_im:
            c.alpha_im = get_real(x, CLPROF_FIELD(blas, alpha_im, Real));
            break;
          case F::beta_im:
            c.beta_im = get_real(x, CLPROF_FIELD(blas, beta_im, Real));
            break;
          case F::a_mem:
            c.a_mem = get_uint(x, CLPROF_FIELD(blas, a_mem, Uint));
            break;
          case F::b_mem:
            c.b_mem = get_uint(x, CLPROF_FIELD(blas, b_mem, Uint));
            break;
          case F::c_mem:
            c.c_mem = get_uint(x, CLPROF_FIELD(blas, c_mem, Uint));
            break;
          case F::temp_mem:
            c.temp_mem = get_uint(x, CLPROF_FIELD(blas, temp_mem, Uint));
            break;
          case F::a_ld:
            c.a_ld = get_uint(x, CLPROF_FIELD(blas, a_ld, Uint));
            break;
          case F::b_ld:
            c.b_ld = get_uint(x, CLPROF_FIELD(blas, b_ld, Uint));
            break;
          case F::c_ld:
            c.c_ld = get_uint(x, CLPROF_FIELD(blas, c_ld, Uint));
            break;
          case F::a_offset:
            c.a_offset = get_uint(x, CLPROF_FIELD(blas, a_offset, Uint));
            break;
          case F::b_offset:
            c.b_offset = get_uint(x, CLPROF_FIELD(blas, b_offset, Uint));
            break;
          case F::c_offset:
            c.c_offset = get_uint(x, CLPROF_FIELD(blas, c_offset, Uint));
            break;
          case F::a_stride:
            c.a_stride = get_uint(x, CLPROF_FIELD(blas, a_stride, Uint));
            break;
          case F::b_stride:
            c.b_stride = get_uint(x, CLPROF_FIELD(blas, b_stride, Uint));
            break;
          case F::c_stride:
            c.c_stride = get_uint(x, CLPROF_FIELD(blas, c_stride, Uint));
            break;
          case F::queue_ids:
            get_uints(x, CLPROF_FIELD(blas, queue_ids, Uints), c.queue_ids);
            break;
          case F::kCount:
            break;
        }
      });
}

}  // namespace clprof::readers::detail
