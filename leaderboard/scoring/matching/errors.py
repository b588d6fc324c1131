"""Typed errors of the matching services, importable without their HTTP and model dependencies."""
from __future__ import annotations


class IcdServiceError(RuntimeError):
    """The ICD service could not answer (as opposed to answering "no code").

    ``term`` is the diagnosis string being coded (``None`` for the OAuth token
    request), ``status`` the last HTTP status code (``None`` for transport
    errors such as timeouts or refused connections).
    """

    def __init__(self, message: str, *, term: str | None = None, status: int | None = None):
        super().__init__(message)
        self.term = term
        self.status = status
