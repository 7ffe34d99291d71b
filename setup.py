"""The optional C accelerator, declared here because it is the supported way.

Everything else lives in ``pyproject.toml``. ``fusion_core._write._speedups`` is
optional: where no compiler exists the build goes on without it and the
pure-Python path gives the same bytes, more slowly.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "fusion_core._write._speedups", ["fusion_core/_write/_speedups.c"], optional=True
        ),
    ],
)
