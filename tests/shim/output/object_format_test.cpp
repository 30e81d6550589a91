// The lines of the app's objects from their facts (output/object_format.hpp): each spelled
// out here, key by key in docs/trace-format.md's order, from the facts given.
#include <doctest/doctest.h>

#include <string>

#include "output/object_format.hpp"

using namespace clprof::shim;

TEST_CASE("object format: a device line, its strings escaped") {
  DeviceFacts d;
  d.id = 1;
  d.name = "Fake \"GPU\"";
  d.vendor = "clprof";
  d.platform = "Fake platform";
  d.platform_version = "OpenCL 3.0 fake";
  d.version = "OpenCL 3.0";
  d.driver_version = "1.0";
  d.device_type = "GPU";
  d.compute_units = 8;
  d.max_clock_mhz = 1000;
  d.global_mem_bytes = 1ull << 30;
  d.local_mem_bytes = 65536;
  d.timer_resolution_ns = 1;
  CHECK(format_device_line(d) ==
        R"({"type":"device","id":1,"name":"Fake \"GPU\"","vendor":"clprof",)"
        R"("platform":"Fake platform","platform_version":"OpenCL 3.0 fake",)"
        R"("version":"OpenCL 3.0","driver_version":"1.0","device_type":"GPU",)"
        R"("compute_units":8,"max_clock_mhz":1000,"global_mem_bytes":1073741824,)"
        R"("local_mem_bytes":65536,"timer_resolution_ns":1})");
}

TEST_CASE("object format: a clock_sync line, a negative offset") {
  ClockSyncFacts c;
  c.device_id = 2;
  c.method = "enqueue_bracket";
  c.offset_ns = -1869571361823;
  c.uncertainty_ns = 187;
  CHECK(format_clock_sync_line(c) ==
        R"({"type":"clock_sync","device_id":2,"method":"enqueue_bracket",)"
        R"("offset_ns":-1869571361823,"uncertainty_ns":187})");
}

TEST_CASE("object format: a queue line, profiling added or not") {
  QueueFacts q;
  q.id = 4;
  q.context_id = 1;
  q.device_id = 2;
  q.properties = 1;  // CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE
  q.profiling_added = true;
  CHECK(format_queue_line(q) ==
        R"({"type":"queue","id":4,"context_id":1,"device_id":2,"properties":1,)"
        R"("profiling_added":true})");
  q.profiling_added = false;
  CHECK(format_queue_line(q) ==
        R"({"type":"queue","id":4,"context_id":1,"device_id":2,"properties":1,)"
        R"("profiling_added":false})");
}

TEST_CASE("object format: a kernel line without argument types has no arg_types") {
  KernelFacts k;
  k.id = 5;
  k.program_id = 3;
  k.context_id = 1;
  k.name = "vadd";
  k.num_args = 3;
  CHECK(format_kernel_line(k) ==
        R"({"type":"kernel","id":5,"program_id":3,"context_id":1,"name":"vadd","num_args":3})");
}
