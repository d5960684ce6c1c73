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
#include "ascemu/sort.h"
#include "ascemu/int4.h"

// `tik2`: the namespace of the Ascend C API in the TIK C++ era, which older samples still use three ways:
// `using namespace tik2;`, `tik2::LocalTensor<half>`, and their kernel classes written inside `namespace tik2 { ... }`.
// CANN's header text of that time is not public; [CHOICE] a real namespace that sees every AscendC name through a
// using-directive serves all three (a namespace alias `namespace tik2 = AscendC;` could not be reopened).
namespace tik2 {
using namespace AscendC;
}  // namespace tik2

namespace ascemu {
// Declares [ptr, ptr+bytes) a user-level GM sync-flag region: exempt from race checks; reads acquire.
inline void DeclareSyncRegion(const void* ptr, size_t bytes) { declare_sync_region(ptr, bytes); }
}  // namespace ascemu
