// kernel_operator.h — ascemu: header-only CPU emulator of the Ascend C vector API.
// Kernels include only this header (spec §3).  Select the platform with
// -DASCEMU_PLATFORM=ascend310p|ascend910b.  See kernels/emu/README.md.
#pragma once

#include "ascemu/macros.h"
#include "ascemu/platform.h"
#include "ascemu/types.h"
#include "ascemu/api_types.h"
#include "ascemu/numeric.h"
#include "ascemu/runtime.h"
#include "ascemu/tensor.h"
#include "ascemu/pipe.h"
#include "ascemu/datacopy.h"
#include "ascemu/vector.h"
#include "ascemu/reduce.h"
#include "ascemu/sync.h"
#include "ascemu/system.h"
#include "ascemu/launch.h"

namespace ascemu {
// Declares [ptr, ptr+bytes) a user-level GM sync-flag region: exempt from race checks; reads acquire.
inline void DeclareSyncRegion(const void* ptr, size_t bytes) { declare_sync_region(ptr, bytes); }
inline void* GmAlloc(size_t bytes, const char* name = "gm", const char* role = "other", int fill = -1) {
    std::string r = role;
    Role ro = r == "input" ? Role::Input : r == "output" ? Role::Output : r == "workspace" ? Role::Workspace
            : r == "tiling" ? Role::Tiling : Role::Other;
    return gm_alloc(bytes, name, ro, fill, rt().cfg.gm_exact)->base;
}
inline void GmFree(void* p) { gm_free(p); }
}  // namespace ascemu
