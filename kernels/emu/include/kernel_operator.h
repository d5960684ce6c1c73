// kernel_operator.h — ascemu: header-only CPU emulator of the Ascend C vector API.
// Kernels include only this header (spec §3).  Select the platform with
// -DASCEMU_PLATFORM=ascend310p|ascend910b.  See kernels/emu/README.md.
//
// This is the kernel-side API only (types, tensors, pipe, static-tensor allocation, copies, vector, reductions,
// sync, system, macros, ASSERT).
// The machinery that runs a kernel is the host's business and is NOT included here: the launch-file driver
// (driver/main.cpp includes ascemu/driver.h, which brings ascemu/serve.h and ascemu/launch.h), and the CANN
// CPU-twin shims GmAlloc/ICPU_RUN_KF (tikicpulib.h, as with CANN).
#pragma once

#include "ascemu/macros.h"
#include "ascemu/platform.h"
#include "ascemu/types.h"
#include "ascemu/api_types.h"
#include "ascemu/numeric.h"
#include "ascemu/runtime.h"
#include "ascemu/kassert.h"
#include "ascemu/tensor.h"
#include "ascemu/pipe.h"
#include "ascemu/local_mem.h"
#include "ascemu/datacopy.h"
#include "ascemu/vector.h"
#include "ascemu/vector_ext.h"
#include "ascemu/reduce.h"
#include "ascemu/sync.h"
#include "ascemu/system.h"
#include "ascemu/list_tensor.h"

namespace ascemu {
// Declares [ptr, ptr+bytes) a user-level GM sync-flag region: exempt from race checks; reads acquire.
inline void DeclareSyncRegion(const void* ptr, size_t bytes) { declare_sync_region(ptr, bytes); }
}  // namespace ascemu
