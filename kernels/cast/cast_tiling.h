// CastTilingData: host tiling -> Cast kernel (cast.md §4.4). Plain struct, fixed-width types, no CANN
// headers, so the same layout is read by the Ascend C kernel, g++ tests and the Python ctypes mirror
// (workbench/ops/cast/layout.py). The uint64 comes first so natural alignment leaves no inner padding.
#pragma once

#include <cstdint>

struct CastTilingData {
    uint64_t totalElements;       // N = numel(self)
    uint32_t usedCoreNum;         // blockDim; 0 = no launch (empty tensor)
    uint32_t blockElems;          // BLOCK = 32 / min(sizeof(Src), sizeof(Dst)) (§4.1, D15)
    uint32_t formerNum;           // cores owning blocksPerCore + 1 blocks
    uint32_t formerElems;         // (blocksPerCore + 1) * BLOCK
    uint32_t latterElems;         // blocksPerCore * BLOCK
    uint32_t tailElems;           // N % BLOCK: back-stepped BLOCK window on the last core (§4.3)
    uint32_t ubFormer;            // elements per tile (§4.2, multiple of 256)
    uint32_t formerTileNum;       // per core kind; former* unused when formerNum == 0
    uint32_t formerLastTileSize;
    uint32_t latterTileNum;
    uint32_t latterLastTileSize;
    uint32_t roundMode;           // principal hop's AscendC::RoundMode (informational, D24)
    uint32_t pathClass;           // == tilingKey (0..8, §3.2)
    uint32_t scalarStaging;       // 1 iff 0 < N < BLOCK
};
