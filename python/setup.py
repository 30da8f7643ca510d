"""Bundles libaasa into the package: the library pip installs is the one built from this
repository (``swift build -c release --product aasa-c`` in the parent folder), or the file named
by ``AASA_LIBRARY`` on a machine without Swift. A C library inside makes the wheel
platform-specific, hence ``has_ext_modules``."""

import os
import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = Path(__file__).resolve().parent
REPOSITORY = HERE.parent


def library() -> Path:
    given = os.environ.get("AASA_LIBRARY")
    if given:
        return Path(given)
    if not (REPOSITORY / "Package.swift").exists():
        raise SystemExit("aasa: set AASA_LIBRARY to a built libaasa.so (no Package.swift beside python/)")
    subprocess.run(["swift", "build", "-c", "release", "--product", "aasa-c"], cwd=REPOSITORY, check=True)
    return REPOSITORY / ".build" / "release" / "libaasa-c.so"


class BuildWithLibrary(build_py):
    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "aasa" / "libaasa.so"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(library(), target)


class BinaryDistribution(Distribution):
    def has_ext_modules(self) -> bool:
        return True


setup(cmdclass={"build_py": BuildWithLibrary}, distclass=BinaryDistribution)
