"""Cast (aclnnCast on Ascend310P): 60 dtype pairs, 9 path classes, whole-block tiling, chain-semantics golden."""

from .spec import SPEC

__all__ = ["SPEC"]
