"""One sub-package per op: spec (validation, shapes), tiling, golden, inputs, TilingData mirror."""
