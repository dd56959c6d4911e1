"""The version of kgtoolkit, declared once: the package metadata (pyproject.toml) and dumps read it here."""

__version__ = "0.1.0"
