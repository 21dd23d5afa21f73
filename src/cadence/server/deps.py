"""FastAPI dependencies shared by the routers."""

from __future__ import annotations

from starlette.requests import HTTPConnection

from cadence.errors import CadenceError
from cadence.server.service import ChatService


class NotReadyError(CadenceError):
    """The server has not finished starting (or is shutting down)."""

    code = "not_ready"
    status_code = 503


async def get_service(conn: HTTPConnection) -> ChatService:
    """The app's chat service (set up by the lifespan).

    A coroutine, as every dependency of the serving path: FastAPI runs a plain ``def`` dependency in
    its thread pool, a thread hop per request for a dictionary lookup.
    """
    service = getattr(conn.app.state, "service", None)
    if service is None:
        raise NotReadyError("The server is still starting; retry in a moment.")
    return service
