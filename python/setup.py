# SPDX-License-Identifier: BSD-3-Clause
"""Builds dta._dta together with libdta's sources (../lib/src/*.c), so that
`pip install ./python` needs neither an installed libdta nor CMake: only a
C compiler, the Python headers (python3-dev) and pkg-config's libxxhash,
jansson and gnutls (libxxhash-dev, libjansson-dev, libgnutls28-dev). The
metadata is pyproject.toml's.

pip builds a local directory in place (pip >= 21.3), so the tree's lib/
next to this directory is found; DTA_SOURCE_DIR names another checkout.
"""
import glob
import os
import shlex
import subprocess
import sys

from setuptools import Extension, setup

here = os.path.dirname(os.path.abspath(__file__))
top = os.environ.get("DTA_SOURCE_DIR", os.path.join(here, ".."))
lib = os.path.join(top, "lib")
if not os.path.isdir(os.path.join(lib, "src")):
    sys.exit("setup.py: libdta's sources not found at %s (build from the "
             "libdta tree, or set DTA_SOURCE_DIR)" % lib)


def pkg_config(*args):
    try:
        out = subprocess.run(["pkg-config", *args, "libxxhash", "jansson",
                              "gnutls"],
                             check=True, capture_output=True, text=True)
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit("setup.py: pkg-config %s libxxhash jansson gnutls failed "
                 "(%s); apt-get install pkg-config libxxhash-dev "
                 "libjansson-dev libgnutls28-dev"
                 % (" ".join(args), getattr(e, "stderr", e)))
    return shlex.split(out.stdout)


cflags = pkg_config("--cflags")
libs = pkg_config("--libs")
sources = ["dta/_dta.c"] + sorted(
    os.path.relpath(p, here) for p in glob.glob(os.path.join(lib, "src", "*.c")))

ext = Extension(
    "dta._dta",
    sources=sources,
    include_dirs=[os.path.join(lib, "include"), os.path.join(lib, "src")],
    define_macros=[("_GNU_SOURCE", None), ("DTA_BUILDING_LIBRARY", None)],
    extra_compile_args=["-std=gnu11", "-fvisibility=hidden"] + cflags,
    extra_link_args=libs + ["-lpthread", "-lrt", "-lm"],
)

setup(packages=["dta"], exclude_package_data={"dta": ["*.c"]},
      ext_modules=[ext])
