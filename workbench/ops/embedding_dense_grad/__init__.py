"""EmbeddingDenseGrad on 310P (docs/ops/embedding_dense_grad.md).

Contract, host tiling model, float64 golden, seeded inputs, TilingData mirror.
"""

from __future__ import annotations

from .spec import SPEC

__all__ = ["SPEC"]
