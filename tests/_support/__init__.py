"""Helpers shared by the test packages: output sections, pending files, served apps."""
