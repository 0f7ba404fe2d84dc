"""The package version (read by the package face and by results' exported metadata)."""

__version__ = "0.1.0"
