"""ctypes mirror of kernels/embedding_dense_grad/embedding_dense_grad_tiling.h: all int64_t.

Fields as in docs/ops/embedding_dense_grad.md §3.4.
"""

from __future__ import annotations

import ctypes

FIELDS = (
    "numWeights", "dimSize", "gradRow", "paddingIdx", "scaleGradByFreq",
    "usedCoreNum", "formerCoreNum", "formerRowNum", "tailRowNum",
    "isAlignedD", "ubProcessNum", "colLoopNum", "colTailNum", "rowBatchNum", "idxTileNum",
    "countsLength", "syncOffset",
    "p2FormerCoreNum", "p2FormerNum", "p2TailNum",
)  # fmt: skip


class EmbeddingDenseGradTilingData(ctypes.Structure):
    _fields_ = [(name, ctypes.c_int64) for name in FIELDS]
