// EmbeddingDenseGrad TilingData (spec embedding_dense_grad.md §3.4). Plain struct, no CANN headers, so the
// same layout is read by the Ascend C kernel, g++ tests and the Python mirror
// (workbench/ops/embedding_dense_grad/layout.py). Every field is int64_t: the host writes it byte for byte.
#pragma once

#include <cstdint>

struct EmbeddingDenseGradTilingData {
    // problem (§1): D = grad.shape[-1], N = prod(grad.shape[:-1]); paddingIdx normalised (-1 = none, DECISION-EDG-2)
    int64_t numWeights;
    int64_t dimSize;
    int64_t gradRow;
    int64_t paddingIdx;
    int64_t scaleGradByFreq;
    // row split over AI Cores (§3.2, DECISION-EDG-13)
    int64_t usedCoreNum;
    int64_t formerCoreNum;
    int64_t formerRowNum;
    int64_t tailRowNum;
    // column chunking and UB plan (§3.3)
    int64_t isAlignedD;
    int64_t ubProcessNum;
    int64_t colLoopNum;
    int64_t colTailNum;
    int64_t rowBatchNum;
    int64_t idxTileNum;
    // key 1 only (§3.4, §3.7): float counts at user-workspace offset 0, sync slots at syncOffset bytes
    int64_t countsLength;
    int64_t syncOffset;
    // Phase-2 split: rows (aligned D) or 8-element units (unaligned D)
    int64_t p2FormerCoreNum;
    int64_t p2FormerNum;
    int64_t p2TailNum;
};
