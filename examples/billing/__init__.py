"""A small billing domain answered in the Fusion wire format."""
