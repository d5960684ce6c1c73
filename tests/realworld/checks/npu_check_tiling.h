// Tiling of npu_check_kernel.cpp and workspace_kernel.cpp: a plain C++ struct registered with
// REGISTER_TILING_DEFAULT, as CANN's newer operator samples define their TilingData.
#pragma once
#include <cstdint>

struct NpuCheckTilingData {
    uint32_t totalLength;      // float elements of x, y and of z's data part
    uint32_t tileNum;          // tiles per core (each tile double-buffered)
    uint32_t setSysWorkspace;  // workspace_kernel: 1 = the kernel calls SetSysWorkspace itself
    uint32_t reserved;
};
