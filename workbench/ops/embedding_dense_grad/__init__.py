"""EmbeddingDenseGrad (310P): spec, host tiling model, float64 golden, seeded inputs, TilingData mirror."""

from __future__ import annotations

from .spec import SPEC

__all__ = ["SPEC"]
