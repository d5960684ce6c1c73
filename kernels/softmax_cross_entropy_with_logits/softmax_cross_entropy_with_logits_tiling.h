// TilingData of SoftmaxCrossEntropyWithLogits (docs: specs/softmax_cross_entropy_with_logits.md §3.6).
// Plain struct with fixed-width fields so CANN's kernel and g++ (emulator, layout test) see the same bytes;
// the ctypes mirror is workbench/ops/softmax_cross_entropy_with_logits/layout.py.
#pragma once
#include <cstdint>

struct SoftmaxCrossEntropyWithLogitsTilingData {
    int64_t a;                // folded rows (ND: N) or lanes (NCHW: N*H*W), §3.2
    int64_t r;                // classes C
    int64_t hw;               // H*W (NCHW) or 1 (ND); RA lane tiles never cross an image
    int64_t layoutMode;       // 0 AR (ND), 1 RA (NCHW)
    int64_t fullLoadMode;     // 0 GENERIC, 1 C_ONE, 2 SMALL_C (schId 0 only)
    int64_t realCoreNum;      // blockDim, §3.3
    int64_t blockFactor;
    int64_t tailBlockFactor;
    int64_t aUbNumFactor;     // rows (AR) / lanes (RA) / elements (C_ONE) per UB tile
    int64_t aLoopTimes;
    int64_t aLoopTail;
    int64_t aLoopTimesT;      // same, for the tail core
    int64_t aLoopTailT;
    int64_t rAlign;           // AR: R_align; RA and packed paths: R
    int64_t rUbNumFactor;     // classes per UB chunk (SplitR) or the whole row (FullLoad)
    int64_t rLoopTime;
    int64_t rLoopTile;
    int64_t rLoopTileAlign;
};
