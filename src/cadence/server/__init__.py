"""Cadence's HTTP server: FastAPI app (chat, SSE, WebSocket, threads, plugins, OpenAI-compatible API).

>>> from cadence.server import create_app, run_server
>>> app = create_app(settings)          # lifespan opens Cadence.open(settings)
>>> run_server(settings, "127.0.0.1", 8000)
"""

from cadence.server.app import create_app, run_server

__all__ = ["create_app", "run_server"]
