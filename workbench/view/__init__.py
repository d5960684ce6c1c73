"""The front ends: the CLI, the demo, the app and its widgets, the renderers, the pytest plugin. Nothing imports
them but the package itself, which registers how records are shown (shown.py)."""
