"""The native engines (Rust, ``native/``) as the optional extension ``tabletop._native``.

Everything else about the package is in ``pyproject.toml``; this file only adds the
extension, which ``setuptools-rust`` builds with cargo during ``pip install .``, an
editable install or a wheel build (``docs/native.md``, "Building").  It is optional: on
a machine without a Rust toolchain, or when the build fails, the install goes on and
gives the pure-Python package (the Python engines do everything).  ``TABLETOP_NATIVE=0``
leaves it out on purpose (``make test CARGO=``).
"""

import os

from setuptools import setup
from setuptools_rust import RustExtension

WANTED = os.environ.get("TABLETOP_NATIVE", "1") != "0"

setup(
    rust_extensions=[
        RustExtension(
            "tabletop._native",
            path="native/Cargo.toml",
            features=["python"],
            # Release even for an editable install (setuptools-rust's default there is a
            # debug build, some 20 times slower).
            debug=False,
            optional=True,
        )
    ]
    if WANTED
    else [],
)
