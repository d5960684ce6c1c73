// axpy_custom_tiling.h: the tiling both files of the twin share (a KernelLaunch sample keeps it in a header beside
// the kernel, which its host main includes too).
#ifndef AXPY_CUSTOM_TILING_H
#define AXPY_CUSTOM_TILING_H
#include <cstdint>

// The scale the kernel applies, set per build with -DAXPY_ALPHA=...: the host main checks its own copy of it, so a
// run shows that both files were compiled with the same -D options.
#ifndef AXPY_ALPHA
#define AXPY_ALPHA 2.0f
#endif

struct AxpyCustomTilingData {
    uint32_t totalLength;
    uint32_t tileNum;
};
#endif
