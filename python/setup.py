"""Builds the baghchal package: the C extension baghchal._core is compiled from the engine's own
sources (engine/*.c and engine/tb/*.c of this checkout), so the package holds no second copy of
the rules, the notation or the search.

    python3 -m venv --system-site-packages build/venv
    build/venv/bin/pip install --no-index --no-build-isolation ./python

BAGHCHAL_SANITIZE=1 builds the extension with AddressSanitizer and UndefinedBehaviorSanitizer
(run Python with LD_PRELOAD="$(gcc -print-file-name=libasan.so)" then).
"""
import glob
import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
ENGINE = os.path.join(os.path.dirname(HERE), "engine")

if not os.path.isfile(os.path.join(ENGINE, "baghchal.h")):
    sys.exit(f"baghchal: the engine's sources are not at {ENGINE}: build the package from a checkout of baghchal")


def read_version():
    with open(os.path.join(ENGINE, "types.h"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("#define BAGHCHAL_VERSION"):
                return line.split('"')[1]
    sys.exit("baghchal: BAGHCHAL_VERSION not found in engine/types.h")


# The engine's sources are added when the extension is built, not declared to setup(): setuptools
# accepts only paths inside this folder in its source lists, and these lie beside it.
ENGINE_SOURCES = sorted(glob.glob(os.path.join(ENGINE, "*.c"))) + sorted(glob.glob(os.path.join(ENGINE, "tb", "*.c")))


ENGINE_HEADERS = sorted(glob.glob(os.path.join(ENGINE, "*.h"))) + sorted(glob.glob(os.path.join(ENGINE, "tb", "*.h")))


class BuildExt(build_ext):
    def build_extension(self, ext):
        ext.sources = list(ext.sources) + [s for s in ENGINE_SOURCES if s not in ext.sources]
        ext.depends = list(ext.depends) + ENGINE_HEADERS
        # Objects of a build with other flags (a sanitized one) are not reused.
        flags = " ".join(ext.extra_compile_args + ext.extra_link_args)
        stamp = os.path.join(self.build_temp, "baghchal-flags.txt")
        old = open(stamp, encoding="utf-8").read() if os.path.isfile(stamp) else None
        if old != flags:
            self.force = True
        super().build_extension(ext)
        os.makedirs(self.build_temp, exist_ok=True)
        with open(stamp, "w", encoding="utf-8") as f:
            f.write(flags)


compile_args = ["-std=c11", "-O3", "-Wall", "-Wextra"]
link_args = ["-pthread"]
if os.environ.get("BAGHCHAL_SANITIZE") == "1":
    sanitize = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"]
    compile_args = [a for a in compile_args if a != "-O3"] + ["-O1", "-g"] + sanitize
    link_args += sanitize

setup(
    version=read_version(),
    cmdclass={"build_ext": BuildExt},
    ext_modules=[
        Extension(
            "baghchal._core",
            sources=[os.path.join("baghchal", "_core.c")],
            include_dirs=[ENGINE, os.path.join(ENGINE, "tb")],
            extra_compile_args=compile_args,
            extra_link_args=link_args,
            libraries=["m"],
        )
    ],
)
