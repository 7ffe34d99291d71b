"""The billing example's own tests: run them with ``pytest examples/billing/tests``.

The repository's ``testpaths`` is ``tests/``, so a bare ``pytest`` does not
collect this directory (and never collects it twice).
"""
