// libclprof.so as an OpenCL loader layer (the cl_loader_layers extension): the ICD loader
// (ocl-icd >= 2.3, the Khronos loader) loads it from OPENCL_LAYERS, at the program's first
// OpenCL call, and asks for its dispatch table. Exported (C, layer.cpp): clGetLayerInfo,
// clInitLayer, clInitLayerWithProperties (the Khronos loader's newer entry point) and
// clDeinitLayer (that loader calls it before unloading the drivers: the trace ends there).
//
// The table the loader gets holds the hooks (base/entry_points.hpp) for every hooked entry point
// and nothing else (the loader fills the rest from the next layer); the next layer's table
// becomes the shim's real() (base/real_opencl.hpp). Every hook works as in preload mode.
// The libc functions preload mode interposes (_exit, _Exit, exec*, the signal set-up) are
// reached by pointing the calls of the objects loaded by then at the shim's definitions
// (entry/plt_redirect.hpp).
//
// Loaded both ways at once (LD_PRELOAD and OPENCL_LAYERS): a clprof shim whose hooks come
// first in the process's symbol lookup (preloaded) records every call that reaches the
// loader, so the layer hands back an empty table and stays out of the way: each call is
// recorded once. The same when clInitLayer is called a second time (a second loader).
//
// Threads: the loader calls these under its own initialisation, once per loader.
#pragma once

namespace clprof::shim {

// How this process's shim was reached, for the trace header and tests.
enum class LayerRole {
  NotLoaded,    // no loader asked (preload mode, or no layer)
  Recording,    // the loader's calls go through the hooks
  PassThrough,  // an empty table: preloaded too, disabled, or a second loader
};
LayerRole layer_role();

}  // namespace clprof::shim
