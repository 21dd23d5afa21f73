"""The model factory: ``provider:model`` strings to chat models, per role and per plugin.

Valid specs::

    openai:<model>              langchain-openai (OPENAI_API_KEY)
    anthropic:<model>           langchain-anthropic (ANTHROPIC_API_KEY)
    google:<model>              langchain-google-genai (GOOGLE_API_KEY or GEMINI_API_KEY)
    ollama:<model>              langchain-ollama; the model may contain ':' (qwen2.5:7b)
    openai-compatible:<model>   ChatOpenAI with CADENCE_LLM_BASE_URL (key: CADENCE_LLM_API_KEY)
    local | local:<file.gguf>   the embedded llama.cpp model (bundled SmolLM2 by default)
    scripted:<file.json>        the scripted test model (one instance shared by every role)

Provider clients get ``timeout=settings.model_timeout`` (OpenAI and Ollama: as the read timeout,
with ``settings.model_connect_timeout`` to connect) and ``max_retries=0``:
retries belong to :func:`cadence.orchestration.model_call.call_model`. Integration packages
are imported lazily; a missing one, a missing API key or a bad spec raises
:class:`~cadence.errors.ModelConfigurationError` with one line saying what to do.
"""

from __future__ import annotations

import importlib
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel

from cadence.errors import ModelConfigurationError, ValidationError
from cadence.sdk.metadata import PluginMetadata
from cadence.settings import Settings

logger = logging.getLogger(__name__)

Role = Literal["coordinator", "synthesizer", "suspend", "agent"]

PROVIDERS = ("openai", "anthropic", "google", "ollama", "openai-compatible", "local", "scripted")
VALID_FORMS = (
    "openai:<model>, anthropic:<model>, google:<model>, ollama:<model>, "
    "openai-compatible:<model>, local, local:<file.gguf>, scripted:<file.json>"
)
_ALIASES = {
    "gemini": "google",
    "google-genai": "google",
    "google_genai": "google",
    "openai_compatible": "openai-compatible",
}
_NEEDS_MODEL = {"openai", "anthropic", "google", "ollama", "openai-compatible", "scripted"}


def parse_model_spec(spec: str) -> tuple[str, str]:
    """Split ``provider:model`` (the model may contain ':'); ``local`` alone gives ``("local", "")``.

    Raises :class:`ModelConfigurationError` on an unknown provider or a missing model.
    """
    text = (spec or "").strip()
    provider, _, model = text.partition(":")
    provider = _ALIASES.get(provider.strip().lower(), provider.strip().lower())
    model = model.strip()
    if provider not in PROVIDERS:
        raise ModelConfigurationError(f"Unknown model {spec!r}; use one of: {VALID_FORMS}.")
    if provider in _NEEDS_MODEL and not model:
        raise ModelConfigurationError(f"Model {spec!r} names no model; use one of: {VALID_FORMS}.")
    return provider, model


@dataclass(frozen=True)
class ModelParams:
    """The resolved choice of one role: spec, temperature and max tokens."""

    spec: str
    temperature: float
    max_tokens: int | None


def _missing_extra(extra: str, package: str) -> ModelConfigurationError:
    return ModelConfigurationError(
        f'The {extra} provider needs the {package} package: pip install "cadence-agents[{extra}]".'
    )


def _import(module: str, extra: str, package: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise _missing_extra(extra, package) from exc


def _require_env(*names: str) -> str:
    for name in names:
        value = os.environ.get(name)
        if value:
            return value
    alternatives = " or ".join(names)
    raise ModelConfigurationError(f"Set {alternatives} in the environment (or .env) to use this provider.")


class ModelFactory:
    """Creates and caches the chat model of each role (and each plugin's agent).

    Models with the same spec and parameters are one shared instance; every
    ``scripted:<file>`` spec maps to ONE :class:`~cadence.testing.ScriptedChatModel`
    per file, so a script is consumed in call order across all nodes.
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._cache: dict[tuple[str, str, float, int | None], BaseChatModel] = {}
        self._lock = threading.Lock()

    def params(self, role: Role, plugin: PluginMetadata | None = None) -> ModelParams:
        """The spec, temperature and max tokens ``role`` uses (plugin overrides for agents)."""
        s = self.settings
        if role == "coordinator":
            return ModelParams(
                s.coordinator_llm or s.llm, s.coordinator_temperature, s.coordinator_max_tokens
            )
        if role == "synthesizer":
            return ModelParams(
                s.synthesizer_llm or s.llm, s.synthesizer_temperature, s.synthesizer_max_tokens
            )
        if role == "suspend":
            return ModelParams(s.suspend_llm or s.llm, s.suspend_temperature, s.suspend_max_tokens)
        if role != "agent":
            raise ValueError(f"unknown model role {role!r}")
        req = plugin.llm_requirements if plugin is not None else None
        spec = (req.model if req is not None and req.model else None) or s.llm
        temperature = req.temperature if req is not None and req.temperature is not None else s.temperature
        max_tokens = req.max_tokens if req is not None and req.max_tokens is not None else s.max_tokens
        return ModelParams(spec, temperature, max_tokens)

    def get(self, role: Role, plugin: PluginMetadata | None = None) -> BaseChatModel:
        """The (cached) chat model of ``role``; ``plugin`` applies its ``llm_requirements``."""
        params = self.params(role, plugin)
        return self.create(params.spec, temperature=params.temperature, max_tokens=params.max_tokens)

    def create(self, spec: str, *, temperature: float = 0.0, max_tokens: int | None = None) -> BaseChatModel:
        """The (cached) chat model of ``spec`` with these parameters."""
        provider, model = parse_model_spec(spec)
        key = (
            (provider, model, 0.0, None)
            if provider == "scripted"
            else (provider, model, temperature, max_tokens)
        )
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None:
                return cached
            built = self._build(provider, model, temperature, max_tokens)
            self._cache[key] = built
            logger.debug("created model", extra={"provider": provider, "model": model})
            return built

    # -- providers ------------------------------------------------------------------------
    def _build(self, provider: str, model: str, temperature: float, max_tokens: int | None) -> BaseChatModel:
        builders: dict[str, Callable[[str, float, int | None], BaseChatModel]] = {
            "openai": self._openai,
            "anthropic": self._anthropic,
            "google": self._google,
            "ollama": self._ollama,
            "openai-compatible": self._openai_compatible,
            "local": self._local,
            "scripted": self._scripted,
        }
        return builders[provider](model, temperature, max_tokens)

    def _http_timeout(self) -> Any:
        """httpx timeouts: read CADENCE_MODEL_TIMEOUT, connect CADENCE_MODEL_CONNECT_TIMEOUT."""
        import httpx

        return httpx.Timeout(self.settings.model_timeout, connect=self.settings.model_connect_timeout)

    def _common(self, temperature: float, max_tokens: int | None) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "temperature": temperature,
            "timeout": self.settings.model_timeout,
            "max_retries": 0,
        }
        if max_tokens is not None:
            kwargs["max_tokens"] = max_tokens
        return kwargs

    def _openai(self, model: str, temperature: float, max_tokens: int | None) -> BaseChatModel:
        module = _import("langchain_openai", "openai", "langchain-openai")
        key = _require_env("OPENAI_API_KEY")
        kwargs = {**self._common(temperature, max_tokens), "timeout": self._http_timeout()}
        return module.ChatOpenAI(model=model, api_key=key, **kwargs)

    def _openai_compatible(self, model: str, temperature: float, max_tokens: int | None) -> BaseChatModel:
        module = _import("langchain_openai", "openai", "langchain-openai")
        if not self.settings.llm_base_url:
            raise ModelConfigurationError(
                "openai-compatible models need CADENCE_LLM_BASE_URL (e.g. http://localhost:8080/v1)."
            )
        secret = self.settings.llm_api_key
        key = secret.get_secret_value() if secret is not None else "not-needed"
        return module.ChatOpenAI(
            model=model,
            base_url=self.settings.llm_base_url,
            api_key=key,
            **{**self._common(temperature, max_tokens), "timeout": self._http_timeout()},
        )

    def _anthropic(self, model: str, temperature: float, max_tokens: int | None) -> BaseChatModel:
        module = _import("langchain_anthropic", "anthropic", "langchain-anthropic")
        key = _require_env("ANTHROPIC_API_KEY")
        kwargs = self._common(temperature, max_tokens)
        kwargs.setdefault("max_tokens", 4096)
        return module.ChatAnthropic(model=model, api_key=key, **kwargs)

    def _google(self, model: str, temperature: float, max_tokens: int | None) -> BaseChatModel:
        module = _import("langchain_google_genai", "google", "langchain-google-genai")
        key = _require_env("GOOGLE_API_KEY", "GEMINI_API_KEY")
        return module.ChatGoogleGenerativeAI(
            model=model, api_key=key, **self._common(temperature, max_tokens)
        )

    def _ollama(self, model: str, temperature: float, max_tokens: int | None) -> BaseChatModel:
        module = _import("langchain_ollama", "ollama", "langchain-ollama")
        kwargs: dict[str, Any] = {
            "model": model,
            "temperature": temperature,
            "client_kwargs": {"timeout": self._http_timeout()},
        }
        if self.settings.llm_base_url:
            kwargs["base_url"] = self.settings.llm_base_url
        if max_tokens is not None:
            kwargs["num_predict"] = max_tokens
        return module.ChatOllama(**kwargs)

    def _local(self, model: str, temperature: float, max_tokens: int | None) -> BaseChatModel:
        from cadence.models.local import LocalChatModel, resolve_model_file

        if model:
            resolved = resolve_model_file(model, setting="CADENCE_LLM")
        else:
            resolved = resolve_model_file(self.settings.local_model_path, setting="CADENCE_LOCAL_MODEL_PATH")
        return LocalChatModel(
            model_path=str(resolved),
            n_ctx=self.settings.local_model_context,
            n_threads=self.settings.local_model_threads,
            # greedy decoding: a 135M model copies results more faithfully, and replies are reproducible
            temperature=0.0,
            max_tokens=max_tokens,
            preroute=self.settings.local_preroute,
            extra_buffers=self.settings.local_model_extra_buffers,
            worker_start_timeout=self.settings.local_model_start_timeout,
            worker_cancel_grace=self.settings.local_model_cancel_grace,
        )

    def _scripted(self, model: str, temperature: float, max_tokens: int | None) -> BaseChatModel:
        from cadence.models.scripted import ScriptedChatModel

        try:
            return ScriptedChatModel.from_file(model)
        except ValidationError as exc:
            raise ModelConfigurationError(exc.message) from exc


__all__ = ["PROVIDERS", "VALID_FORMS", "ModelFactory", "ModelParams", "Role", "parse_model_spec"]
