"""The one error base class. Every layer raises these; resolvers map them to GraphQL errors."""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class ErrorCode(StrEnum):
    NOT_FOUND = "NOT_FOUND"
    FORBIDDEN = "FORBIDDEN"
    UNAUTHENTICATED = "UNAUTHENTICATED"
    INVALID_INPUT = "INVALID_INPUT"
    LIMIT_EXCEEDED = "LIMIT_EXCEEDED"
    CONFLICT = "CONFLICT"
    UNAVAILABLE = "UNAVAILABLE"
    INTERNAL = "INTERNAL"


class BeliefgraphError(Exception):
    """An error with a stable code and a message that tells the caller what to fix."""

    code: ErrorCode = ErrorCode.INTERNAL

    def __init__(self, message: str, *, code: ErrorCode | None = None, **details: Any) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.message = message
        self.details = details


class NotFound(BeliefgraphError):
    code = ErrorCode.NOT_FOUND


class Forbidden(BeliefgraphError):
    code = ErrorCode.FORBIDDEN


class Unauthenticated(BeliefgraphError):
    code = ErrorCode.UNAUTHENTICATED


class InvalidInput(BeliefgraphError):
    code = ErrorCode.INVALID_INPUT


class LimitExceeded(BeliefgraphError):
    code = ErrorCode.LIMIT_EXCEEDED


class Conflict(BeliefgraphError):
    code = ErrorCode.CONFLICT


class RaceLost(Conflict):
    """A write found, once holding its locks, that a concurrent transaction had committed what
    it read as absent. Database.write_tx runs the work again, which then reads it."""


class SessionClosed(Conflict):
    """A write into a session that is closed (REST's deleted sessions are closed ones)."""


class Unavailable(BeliefgraphError):
    code = ErrorCode.UNAVAILABLE
