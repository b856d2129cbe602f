"""Errors of the tracer, located at the user's Python line."""

from __future__ import annotations


class TraceError(Exception):
    """A kernel that cannot be traced: names the construct, the argument and
    the fix. ``location`` is the user's ``file:line`` (set when raised during a
    trace); the message starts with it."""

    def __init__(self, message: str, location=None):
        self.message = message
        self.location = location
        super().__init__(self._text())

    def _text(self) -> str:
        return f"{self.location}: {self.message}" if self.location else self.message

    def locate(self, location) -> "TraceError":
        if self.location is None and location is not None:
            self.location = location
            self.args = (self._text(),)
        return self
