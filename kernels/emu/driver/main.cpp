// kernels/emu/driver/main.cpp — ascemu launch-file driver (see kernels/emu/README.md).
//
// The kernel reaches the driver in one of two ways; both need -DASCEMU_ENTRY=<entry symbol>:
//  (A) single translation unit (recommended): compile ONLY this file and pull the kernel in with GCC's
//      `-include <kernel.cpp>` (or -DASCEMU_KERNEL_SOURCE='"<kernel.cpp>"'):
//        g++ -std=c++20 -O2 -g -pthread -DASCEMU_PLATFORM=ascend310p -I kernels/emu/include -I kernels/cast
//            -include kernels/cast/cast_kernel.cpp kernels/emu/driver/main.cpp -DASCEMU_ENTRY=cast_kernel -o cast_emu
//  (B) two translation units: compile the kernel .cpp and this file together, with a generated header
//      `ascemu_entry.h` on the include path that declares the entry, e.g.
//        #include "cast_tiling.h"
//        extern "C" void cast_kernel(uint8_t*, uint8_t*, uint8_t*, CastTilingData);
#ifdef ASCEMU_KERNEL_SOURCE
#include ASCEMU_KERNEL_SOURCE
#endif
#if __has_include("ascemu_entry.h")
#include "ascemu_entry.h"
#endif
// The kernel sees only kernel_operator.h (the kernel-side API).  The machinery that runs it is included here,
// after the kernel: launch.h (cores, crash isolation, GM allocation), serve.h (the reused `--serve` process) and
// driver.h (the launch file, ASCEMU_MAIN).
#include "kernel_operator.h"
#include "ascemu/launch.h"
#include "ascemu/serve.h"
#include "ascemu/driver.h"

#ifndef ASCEMU_ENTRY
#error "ascemu driver: define -DASCEMU_ENTRY=<kernel entry symbol> (see kernels/emu/README.md)"
#endif

ASCEMU_MAIN(ASCEMU_ENTRY)
