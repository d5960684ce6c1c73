"""ctypes mirror of kernels/softmax_cross_entropy_with_logits/softmax_cross_entropy_with_logits_tiling.h."""

from __future__ import annotations

import ctypes

# docs/ops/softmax_cross_entropy_with_logits.md §3.6: all int64_t, in this order
# fmt: off
FIELDS = (
    "a", "r", "hw", "layoutMode", "fullLoadMode", "realCoreNum", "blockFactor", "tailBlockFactor", "aUbNumFactor",
    "aLoopTimes", "aLoopTail", "aLoopTimesT", "aLoopTailT", "rAlign", "rUbNumFactor", "rLoopTime", "rLoopTile",
    "rLoopTileAlign",
)
# fmt: on

FULL_LOAD, SPLIT_R, EMPTY = 0, 1, 2  # schId (§3.6)
GENERIC, C_ONE, SMALL_C = 0, 1, 2  # fullLoadMode

HEADER = "kernels/softmax_cross_entropy_with_logits/softmax_cross_entropy_with_logits_tiling.h"


class SoftmaxCrossEntropyWithLogitsTilingData(ctypes.Structure):
    _fields_ = [(name, ctypes.c_int64) for name in FIELDS]
