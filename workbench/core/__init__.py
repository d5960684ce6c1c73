"""The vocabulary every layer shares: errors, dtypes, platforms, TilingPlan, OpSpec, time sources, resources,
progress, how records are shown. Imports nothing else of the workbench (docs/architecture.md)."""
