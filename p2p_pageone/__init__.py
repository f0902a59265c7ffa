"""Page One on a LAN with no trusted dealer."""

__version__ = "0.1.0"
