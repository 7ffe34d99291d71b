"""Runnable examples of fusion_core (``python -m examples.billing``)."""
