"""Builds the libbaghchal package: the C extension libbaghchal._core is compiled from the engine's
own sources, so the package holds no second copy of the rules, the notation or the search.

In a checkout of baghchal the sources are read where they are (engine/*.c and engine/tb/*.c,
beside this folder). A source distribution carries them: `sdist` copies them into csrc/engine/
of the archive, and a build from the archive reads them there.

    python3 -m venv --system-site-packages build/venv
    build/venv/bin/pip install --no-index --no-build-isolation ./python
    python3 -m build --no-isolation python        # dist/: the sdist and a wheel built from it

BAGHCHAL_SANITIZE=1 builds the extension with AddressSanitizer and UndefinedBehaviorSanitizer
(run Python with LD_PRELOAD="$(gcc -print-file-name=libasan.so)" then).
"""
import glob
import os
import shutil
import sys
from concurrent.futures import ThreadPoolExecutor

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.sdist import sdist

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKOUT_ENGINE = os.path.join(os.path.dirname(HERE), "engine")
CARRIED = os.path.join("csrc", "engine")  # inside an sdist, relative to this folder
LICENSE = os.path.join(os.path.dirname(HERE), "LICENSE")


def engine_dir():
    """Where the engine's sources are: the checkout's engine/, else the copy an sdist carries."""
    for path in (CHECKOUT_ENGINE, os.path.join(HERE, CARRIED)):
        if os.path.isfile(os.path.join(path, "baghchal.h")):
            return path
    sys.exit(f"libbaghchal: the engine's sources are neither at {CHECKOUT_ENGINE} (a checkout of baghchal) "
             f"nor at {os.path.join(HERE, CARRIED)} (a source distribution)")


ENGINE = engine_dir()


def read_version():
    with open(os.path.join(ENGINE, "types.h"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("#define BAGHCHAL_VERSION"):
                return line.split('"')[1]
    sys.exit("libbaghchal: BAGHCHAL_VERSION not found in the engine's types.h")


def engine_files(pattern):
    return sorted(glob.glob(os.path.join(ENGINE, pattern))) + sorted(glob.glob(os.path.join(ENGINE, "tb", pattern)))


# The engine's sources are added when the extension is built, not declared to setup(): setuptools
# accepts only paths inside this folder in its source lists, and in a checkout they lie beside it.
ENGINE_SOURCES = engine_files("*.c")
ENGINE_HEADERS = engine_files("*.h")


def compile_in_parallel(compiler):
    """Makes compiler.compile compile its sources on every core (the engine is some thirty
    files, one extension: setuptools would compile them one after the other). Left as it is when
    this setuptools lacks the steps it is made of."""
    if not (hasattr(compiler, "_setup_compile") and hasattr(compiler, "_get_cc_args") and hasattr(compiler, "_compile")):
        return
    jobs = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if jobs < 2:
        return

    def parallel_compile(sources, output_dir=None, macros=None, include_dirs=None, debug=0,
                         extra_preargs=None, extra_postargs=None, depends=None):
        macros, objects, extra_postargs, pp_opts, build = compiler._setup_compile(
            output_dir, macros, include_dirs, sources, depends, extra_postargs)
        cc_args = compiler._get_cc_args(pp_opts, debug, extra_preargs)

        def one(obj):
            src, ext = build[obj]
            compiler._compile(obj, src, ext, cc_args, extra_postargs, pp_opts)

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            for _ in pool.map(one, [o for o in objects if o in build]):
                pass  # re-raises a compile error here
        return objects

    compiler.compile = parallel_compile


class BuildExt(build_ext):
    def build_extension(self, ext):
        compile_in_parallel(self.compiler)
        ext.sources = list(ext.sources) + [s for s in ENGINE_SOURCES if s not in ext.sources]
        ext.depends = list(ext.depends) + ENGINE_HEADERS
        # Objects of a build with other flags (a sanitized one) are not reused.
        flags = " ".join(ext.extra_compile_args + ext.extra_link_args)
        stamp = os.path.join(self.build_temp, "libbaghchal-flags.txt")
        old = open(stamp, encoding="utf-8").read() if os.path.isfile(stamp) else None
        if old != flags:
            self.force = True
        super().build_extension(ext)
        os.makedirs(self.build_temp, exist_ok=True)
        with open(stamp, "w", encoding="utf-8") as f:
            f.write(flags)


class SdistWithEngine(sdist):
    """An sdist that builds anywhere: the engine's sources (and the repository's LICENSE) go
    into the archive, csrc/engine/ and LICENSE beside setup.py."""

    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        target = os.path.join(base_dir, CARRIED)
        for path in ENGINE_SOURCES + ENGINE_HEADERS:
            dest = os.path.join(target, os.path.relpath(path, ENGINE))
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            shutil.copy2(path, dest)
        if os.path.isfile(LICENSE) and not os.path.exists(os.path.join(base_dir, "LICENSE")):
            shutil.copy2(LICENSE, os.path.join(base_dir, "LICENSE"))


compile_args = ["-std=c11", "-O3", "-Wall", "-Wextra"]
link_args = ["-pthread"]
if os.environ.get("BAGHCHAL_SANITIZE") == "1":
    sanitize = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"]
    compile_args = [a for a in compile_args if a != "-O3"] + ["-O1", "-g"] + sanitize
    link_args += sanitize

setup(
    version=read_version(),
    cmdclass={"build_ext": BuildExt, "sdist": SdistWithEngine},
    ext_modules=[
        Extension(
            "libbaghchal._core",
            sources=[os.path.join("src", "libbaghchal", "_core.c")],
            include_dirs=[ENGINE, os.path.join(ENGINE, "tb")],
            extra_compile_args=compile_args,
            extra_link_args=link_args,
            libraries=["m"],
        )
    ],
)
