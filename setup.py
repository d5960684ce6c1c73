"""Map the repository's top-level kernels/, data/ and notebooks/ into the wheel as workbench/_bundle/
(resources.py)."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

BUNDLED = ("kernels", "data", "notebooks")
SKIP = shutil.ignore_patterns("__pycache__", "*.o", "*.so", "*.bin", ".*")  # .* also drops .ipynb_checkpoints


class BuildPyWithBundle(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):  # an editable install reads the checkout itself
            return
        here = Path(__file__).resolve().parent
        for name in BUNDLED:
            shutil.copytree(here / name, Path(self.build_lib, "workbench", "_bundle", name), ignore=SKIP,
                            dirs_exist_ok=True)


setup(cmdclass={"build_py": BuildPyWithBundle})
