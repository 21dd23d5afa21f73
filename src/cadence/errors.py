"""The one exception hierarchy of Cadence.

Every error a user can trigger derives from :class:`CadenceError` and carries a
message that says what went wrong and what to do about it, plus a short
machine-readable ``code`` used by the HTTP API and the CLI.
"""

from __future__ import annotations


class CadenceError(Exception):
    """Base class of every Cadence error."""

    code: str = "cadence_error"
    status_code: int = 500

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


class ConfigurationError(CadenceError):
    """A setting is missing, malformed or inconsistent."""

    code = "configuration_error"
    status_code = 500


class ModelConfigurationError(ConfigurationError):
    """A model cannot be created: bad provider string, missing extra or API key."""

    code = "model_configuration_error"


class PluginError(CadenceError):
    """A plugin failed to import, validate or pass its health check."""

    code = "plugin_error"


class PluginValidationError(PluginError):
    """A plugin's metadata or structure is invalid."""

    code = "plugin_validation_error"


class ModelCallError(CadenceError):
    """A model call failed after its retries (rate limit, timeout, provider error)."""

    code = "model_error"
    status_code = 502


class ScriptExhaustedError(ModelCallError):
    """The scripted test model was called more times than its script has items.

    A model failure like any other (code ``model_error``), whose message says it is the script
    that ran out, not a provider.
    """


class ModelWorkerCrashedError(ModelCallError):
    """The embedded model's worker process died (native crash, kill) during a call.

    Not retried within the turn: the turn reports it, the worker is restarted and
    the next turn works.
    """

    code = "model_worker_crashed"


class TurnTimeoutError(CadenceError):
    """A turn exceeded its deadline."""

    code = "turn_timeout"
    status_code = 504


TOOL_ERROR_PREFIX = "Error: "
"""How the result of a failed tool call starts (what the agent, and the embedded model's policy, read)."""


class ToolExecutionError(CadenceError):
    """A tool raised; surfaced to the agent as an error tool result."""

    code = "tool_error"

    @classmethod
    def describing(cls, exc: BaseException) -> ToolExecutionError:
        """The error tool result ``exc`` becomes: its type and text, and what the agent can do next."""
        try:
            text = str(exc)
        except Exception:  # a broken __str__ is still a failed call, not a crash
            text = ""
        detail = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
        return cls(f"{TOOL_ERROR_PREFIX}{detail}. Check the arguments or try a different approach.")


class ValidationError(CadenceError):
    """A request or argument is invalid."""

    code = "invalid_request"
    status_code = 422


class NotFoundError(CadenceError):
    """A thread or resource does not exist (or belongs to another user)."""

    code = "not_found"
    status_code = 404


class ConflictError(CadenceError):
    """The thread is busy with another request."""

    code = "thread_busy"
    status_code = 409


class StorageError(CadenceError):
    """The database cannot store (or read) what a request needs: a full disk, a read-only file, an I/O error.

    Nothing of the failed write is kept, and what was stored before stays intact; the message says
    what to do (free disk space, make the file writable). ``storage_full`` for a full disk,
    ``storage_read_only`` for a database that cannot be written, ``storage_busy`` for one another
    program kept locked too long, ``storage_unavailable`` for a database server that cannot be
    reached, else ``storage_error``.
    """

    code = "storage_error"
    status_code = 503
    codes = ("storage_error", "storage_full", "storage_read_only", "storage_busy", "storage_unavailable")
    """Every code a StorageError has."""


class AuthenticationError(CadenceError):
    """A missing or wrong API key."""

    code = "unauthorized"
    status_code = 401


class PermissionDeniedError(CadenceError):
    """The API key may not act as the requested user."""

    code = "forbidden"
    status_code = 403
