"""Checking a table's log after play: ``pageone audit``, ``replay``, ``log show``, ``ratings``."""
