// kernels/emu/runtime/ascemu_runtime.cpp — ascemu's non-template runtime as one translation unit
// (ascemu/linkage.h; kernels/emu/README.md, "Building a kernel binary").
//
// Compile it once per platform and set of compile flags, then link it with kernels built with
// -DASCEMU_SEPARATE_RUNTIME and the same flags:
//   g++ -std=c++20 -O2 -g -pthread -DASCEMU_PLATFORM=ascend310p -I kernels/emu/include
//       -c kernels/emu/runtime/ascemu_runtime.cpp -o ascemu_runtime_310p.o
// It defines every ASCEMU_DECL function of the ascemu headers exactly once, and reads no macro a kernel build sets
// (DTYPE_*, ASCEMU_CANN_STRICT, HAVE_WORKSPACE, ...): what depends on one stays inline in the headers.
#define ASCEMU_RUNTIME_TU 1

#include "kernel_operator.h"
#include "ascemu/launch.h"
#include "ascemu/serve.h"
#include "ascemu/driver.h"

// What a kernel built for this platform in separate mode refers to (ascemu/platform.h): linking a kernel with the
// runtime of another platform fails at link time instead of running with the wrong profile.
extern "C" const char ASCEMU_PCAT(ascemu_runtime_for_, ASCEMU_PLATFORM) = 1;
