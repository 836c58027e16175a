"""Builds gridcoll._core with CMake (the repository's own build) for `pip install .`."""
import os
import subprocess
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent.parent


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = Path(self.build_temp) / "cmake"
        subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                        "-DGRIDCOLL_BUILD_TESTS=OFF", "-DGRIDCOLL_BUILD_BENCHMARKS=OFF"], check=True)
        subprocess.run(["cmake", "--build", str(build), "--target", "gridcoll_core", "-j", str(os.cpu_count() or 1)],
                       check=True)
        built = next((build / "python" / "gridcoll").glob("_core*.so"))
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        self.copy_file(str(built), str(target))


setup(ext_modules=[Extension("gridcoll._core", sources=[])], cmdclass={"build_ext": CMakeBuild})
