// Tiling of surface_kernel.cpp, laid out as the host writes it (tests/realworld/test_rw_surface.py SurfaceTiling).
#pragma once
#include <cstdint>

struct SurfaceTilingData {
    uint32_t totalLength;  // elements over all cores
    uint32_t tileLength;   // elements per tile
    float scale;           // y = x * scale
    uint32_t maxTile;      // the longest tile the kernel's pools are sized for (checked with ASSERT)
};
