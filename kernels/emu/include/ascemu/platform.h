// ascemu/platform.h — compile-time platform profile (spec §2, §3.1) and host queries (§8).
// Selected with -DASCEMU_PLATFORM=ascend310p|ascend910b (default ascend310p).
#pragma once
#include <cstdint>
#include "ascemu/types.h"

#define ASCEMU_P_ascend310p 1
#define ASCEMU_P_ascend910b 2
#define ASCEMU_PCAT2(a, b) a##b
#define ASCEMU_PCAT(a, b) ASCEMU_PCAT2(a, b)

#ifndef ASCEMU_PLATFORM
#define ASCEMU_PLATFORM ascend310p
#endif

#if ASCEMU_PCAT(ASCEMU_P_, ASCEMU_PLATFORM) == 1
#define ASCEMU_IS_310P 1
#define ASCEMU_IS_910B 0
#ifndef __NPU_ARCH__
#define __NPU_ARCH__ 2002
#endif
#ifndef __DAV_M200__
#define __DAV_M200__ 1
#endif
#ifndef __CCE_AICORE__  // the AI Core version CANN's kernels and libraries test (200: dav-m200)
#define __CCE_AICORE__ 200
#endif
#elif ASCEMU_PCAT(ASCEMU_P_, ASCEMU_PLATFORM) == 2
#define ASCEMU_IS_310P 0
#define ASCEMU_IS_910B 1
#ifndef __NPU_ARCH__
#define __NPU_ARCH__ 2201
#endif
#ifndef __DAV_C220_VEC__
#define __DAV_C220_VEC__ 1
#endif
#ifndef __CCE_AICORE__
#define __CCE_AICORE__ 220
#endif
#else
#error "ASCEMU_PLATFORM must be ascend310p or ascend910b"
#endif

namespace ascemu {

struct Profile {
    Platform platform;
    const char* name;        // "ascend310p" / "ascend910b"
    const char* soc;         // default SoC
    uint32_t ub_size;        // InitBuffer limit
    uint32_t tmp_ub_offset;  // API scratch zone start
    uint32_t max_buffers;
    uint32_t core_count;
    uint64_t sys_workspace;  // GetUserWorkspace offset
    OverflowMode overflow;
    bool has_datacopypad, has_bf16, has_hard_syncall, has_dcci_dst;
};

#if ASCEMU_IS_310P
inline constexpr Profile kProfile{Platform::P310, "ascend310p", "Ascend310P3", 262144, 253952, 64, 8,
                                  2ull << 20, OverflowMode::Saturation, false, false, false, false};
#else
inline constexpr Profile kProfile{Platform::P910B, "ascend910b", "Ascend910B1", 196608, 188416, 64, 48,
                                  16ull << 20, OverflowMode::InfNan, true, true, true, true};
#endif
// A kernel built with -DASCEMU_SEPARATE_RUNTIME (ascemu/linkage.h) refers to a symbol only the runtime compiled for
// its platform defines (kernels/emu/runtime/ascemu_runtime.cpp), so the runtime of another platform does not link.
#if defined(ASCEMU_SEPARATE_RUNTIME) && !defined(ASCEMU_RUNTIME_TU)
extern "C" const char ASCEMU_PCAT(ascemu_runtime_for_, ASCEMU_PLATFORM);
[[gnu::used]] static const char* const kRuntimeForThisPlatform = &ASCEMU_PCAT(ascemu_runtime_for_, ASCEMU_PLATFORM);
#endif
inline constexpr bool kIs310P = ASCEMU_IS_310P;
inline constexpr bool kIs910B = ASCEMU_IS_910B;

// Host-side queries (§8) for tiling code compiled against the emulator.
inline uint32_t GetCoreNum() { return kProfile.core_count; }
inline uint32_t GetCoreNumAiv() { return kProfile.core_count; }
inline uint64_t GetCoreMemSizeUB() { return kIs310P ? kProfile.ub_size : 196352; }
inline uint64_t GetSystemWorkspaceSize() { return kProfile.sys_workspace; }

}  // namespace ascemu
