"""Settings: one pydantic-settings model, prefix ``CADENCE_``, ``.env`` supported.

Every limit of the engine is a field here with a documented default; the README's
configuration table lists them all (``cadence config`` prints the effective values).
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from cadence.errors import ConfigurationError

StructuredMode = Literal["model", "prompt", "none"]
CompactionMode = Literal["tool", "system", "none"]


def _split_list(value: Any, *, paths: bool = False) -> Any:
    """Accept a JSON-free list from the environment: comma separated (paths: also os.pathsep)."""
    if value is None:
        return []
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return []
        if text.startswith("["):
            import json

            return json.loads(text)
        seps = [",", os.pathsep] if paths and os.pathsep != "," else [","]
        parts = [text]
        for sep in seps:
            parts = [p for chunk in parts for p in chunk.split(sep)]
        return [p.strip() for p in parts if p.strip()]
    return value


class Settings(BaseSettings):
    """All Cadence settings. Environment variables use the ``CADENCE_`` prefix."""

    model_config = SettingsConfigDict(
        env_prefix="CADENCE_",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        validate_default=True,
    )

    # --- models -----------------------------------------------------------------
    llm: str = Field(
        "local",
        description="Default model as provider:model (openai:gpt-4.1-mini, anthropic:..., google:..., "
        "ollama:qwen2.5:7b, openai-compatible:<model>, local, scripted:<path.json>).",
    )
    llm_base_url: str | None = Field(None, description="Base URL for openai-compatible / ollama servers.")
    llm_api_key: SecretStr | None = Field(None, description="API key for openai-compatible servers.")
    temperature: float = Field(0.0, ge=0.0, le=2.0, description="Default sampling temperature.")
    max_tokens: int | None = Field(
        None, ge=1, description="Default max output tokens (None: provider default)."
    )
    coordinator_llm: str | None = Field(None, description="Coordinator model override (provider:model).")
    coordinator_temperature: float = Field(0.0, ge=0.0, le=2.0, description="Coordinator temperature.")
    coordinator_max_tokens: int | None = Field(None, ge=1, description="Coordinator max output tokens.")
    synthesizer_llm: str | None = Field(None, description="Synthesizer model override (provider:model).")
    synthesizer_temperature: float = Field(0.3, ge=0.0, le=2.0, description="Synthesizer temperature.")
    synthesizer_max_tokens: int | None = Field(None, ge=1, description="Synthesizer max output tokens.")
    suspend_llm: str | None = Field(None, description="Suspend-node model override (provider:model).")
    suspend_temperature: float = Field(0.3, ge=0.0, le=2.0, description="Suspend-node temperature.")
    suspend_max_tokens: int | None = Field(None, ge=1, description="Suspend-node max output tokens.")
    model_timeout: float = Field(60.0, gt=0, description="Timeout in seconds of one model call.")
    model_connect_timeout: float = Field(
        5.0,
        gt=0,
        description="Timeout (s) to connect to a model server, and for a self-hosted server "
        "(CADENCE_LLM_BASE_URL) to answer its first request.",
    )
    model_max_retries: int = Field(
        3, ge=0, description="Retries of a transient model error (rate limit, 5xx, timeout)."
    )
    model_retry_base_delay: float = Field(
        0.5, ge=0, description="First backoff delay in seconds (doubles, with jitter)."
    )
    model_retry_max_delay: float = Field(8.0, ge=0, description="Cap of one backoff delay in seconds.")
    model_retry_max_time: float = Field(
        60.0, gt=0, description="Total time budget for retries of one call (s)."
    )
    local_model_path: Path | None = Field(
        None, description="GGUF file for the embedded model (default: bundled)."
    )
    local_model_threads: int = Field(
        1,
        ge=1,
        description="CPU threads of the embedded model. One by default: the bundled model is as fast on one "
        "as on two, and llama.cpp's threads synchronise after every step, which on shared cores costs more "
        "than a thread gains; raise it only for a bigger model on cores of its own.",
    )
    local_model_context: int = Field(
        4096, ge=512, description="Context window (tokens) of the embedded model."
    )
    local_preroute: bool = Field(
        True, description="Embedded model: rank plugins lexically before the constrained routing call."
    )
    local_model_start_timeout: float = Field(
        120.0, gt=0, description="Seconds the embedded model's worker may take to start and load the model."
    )
    local_model_cancel_grace: float = Field(
        2.0,
        ge=0,
        description="Seconds a cancelled embedded-model call gets to stop before the worker is killed.",
    )
    local_model_extra_buffers: bool = Field(
        False,
        description="Let llama.cpp repack the embedded model's weights into extra buffer types "
        "(off: its AMX path crashes, llama.cpp issue 20824).",
    )

    # --- orchestration limits ---------------------------------------------------
    mode: str = Field(
        "coordinator",
        description="Orchestration mode of a turn when the request names none: coordinator, supervisor, "
        "planner or single.",
    )
    supervisor_output_mode: Literal["last_message", "full_history"] = Field(
        "last_message",
        description="What the supervisor sees of an agent's work: its last message, or its full history.",
    )
    supervisor_handoff_messages: bool = Field(
        True,
        description="Keep the supervisor's handoff and hand-back calls in what it sees (breadcrumbs).",
    )
    supervisor_direct_answer: bool = Field(
        True,
        description="Supervisor mode: an agent's answer that can stand as it is reaches the user without "
        "another supervisor call (the rule: docs/architecture.md).",
    )
    validation: Literal["off", "flag", "correct"] = Field(
        "flag",
        description="Final-answer validation (relevance, grounding, citations): off, flag (a verdict "
        "in the trace) or correct (one correction round when it fails).",
    )
    max_parallel_tools: int = Field(
        3, ge=1, description="Tool calls of one agent step run at the same time, at most."
    )
    model_input_max_tokens: int = Field(
        24000,
        ge=0,
        description="Token budget of the conversation sent with one model call: every agent step, the "
        "coordinator's or supervisor's decision and the final answer (earlier turns trimmed oldest first; "
        "the current turn is kept); 0: no trimming.",
    )
    routing_result_max_chars: int = Field(
        400,
        ge=0,
        description="Longest tool result the coordinator's decision sees, in characters (the rest is clipped "
        "with a note of its length; agents and the final answer see it whole); 0: no clipping.",
    )
    max_agent_hops: int = Field(25, ge=1, description="Agent routes allowed per turn; one more suspends.")
    max_tool_hops: int = Field(
        50,
        ge=1,
        description="Tool executions allowed per turn (calls beyond it are not run); reaching it suspends.",
    )
    coordinator_consecutive_agent_route_limit: int = Field(
        5, ge=1, description="Consecutive routes to the same agent allowed; one more suspends."
    )
    graph_recursion_limit: int = Field(
        0,
        ge=0,
        description="LangGraph recursion limit (super-steps) per turn; 0 derives it from the hop limits.",
    )

    # --- planner mode and long-term memory --------------------------------------
    researcher_max_iterations: int = Field(
        3, ge=1, description="Planner mode: tool rounds the researcher runs at most per turn."
    )
    researcher_min_results: int = Field(
        1,
        ge=1,
        description="Planner mode: useful tool results the researcher wants; fewer, it retries with "
        "alternative tools (until CADENCE_RESEARCHER_MAX_ITERATIONS).",
    )
    memory: bool = Field(
        True, description="Long-term memory per user and project (on|off): recalled and ingested every turn."
    )
    memory_recall_limit: int = Field(5, ge=1, description="Memories recalled for one question, at most.")
    memory_min_score: float = Field(
        0.15,
        ge=0.0,
        le=1.0,
        description="Least relevance (0-1) of a remembered fact given to the answering nodes.",
    )
    memory_result_min_score: float = Field(
        0.9,
        ge=0.0,
        le=1.0,
        description="Least relevance (0-1) of a remembered tool result, answer or summary recalled for a "
        "question (supporting evidence only, never required).",
    )
    memory_adequacy_threshold: float = Field(
        0.6,
        ge=0.0,
        le=1.0,
        description="Adequacy (0-1) from which memory alone answers a question (routing may skip tools).",
    )
    memory_max_items: int = Field(
        2000, ge=10, description="Memories kept per user and project; consolidation trims the oldest."
    )
    memory_refresh_s: float = Field(
        60.0,
        ge=0,
        description="A memory learnt again word for word within this many seconds of its last write is "
        "not written again; 0: every turn rewrites it.",
    )
    memory_max_item_chars: int = Field(
        600, ge=50, description="Longest fact, result or answer kept as a memory (longer ones are clipped)."
    )
    memory_summarize_after_days: float = Field(
        30.0, ge=0, description="Consolidation summarises results and answers older than this; 0: never."
    )
    memory_consolidate_idle_s: float = Field(
        600.0,
        ge=0,
        description="cadence serve consolidates memory after this many idle seconds; 0: never on idle.",
    )
    memory_embeddings: str | None = Field(
        None,
        description="Embedding model for memory recall as provider:model (LangChain init_embeddings); "
        "unset: lexical recall only (BM25).",
    )
    memory_embedding_dims: int = Field(1536, ge=1, description="Dimensions of CADENCE_MEMORY_EMBEDDINGS.")

    # --- finishing layer --------------------------------------------------------
    structured_response: StructuredMode = Field(
        "none", description="Synthesizer output mode: model|prompt|none."
    )
    structured_response_retries: int = Field(2, ge=0, description="Retries of prompt-mode structured output.")
    synthesizer_compaction: CompactionMode = Field(
        "tool", description="Synthesizer compaction: tool|system|none."
    )
    synthesizer_compaction_max_chars: int = Field(
        6000, ge=200, description="Max characters of compacted agent/tool work given to the synthesizer."
    )
    coordinator_timeout: float = Field(
        30.0,
        gt=0,
        description="Timeout (s) of one decision in every mode: the coordinator's, the supervisor's and the "
        "planner's (retries included); agents' model calls and tools get the turn's remaining time instead.",
    )
    turn_timeout: float = Field(120.0, gt=0, description="Deadline (s) of a whole turn.")
    tool_timeout: float = Field(30.0, gt=0, description="Timeout (s) of one tool execution.")
    shutdown_grace: float = Field(
        10.0,
        ge=0,
        description="Seconds running turns get to finish when the server stops; then they end with a 503.",
    )
    max_tool_result_chars: int = Field(
        100_000,
        ge=100,
        description="Longest tool result kept (characters); a longer one is cut, with a note saying so.",
    )
    plugin_max_threads: int = Field(
        8,
        ge=1,
        description="Threads per plugin for synchronous tools; hung tools only exhaust their own plugin's.",
    )
    plugin_check_timeout: float = Field(
        30.0,
        gt=0,
        description="Seconds a plugin's dependency and health checks may take at loading; longer: skipped.",
    )
    plugin_import_timeout: float = Field(
        120.0,
        gt=0,
        description="Seconds importing one plugin (entry point or plugins folder) may take; longer: that "
        "plugin is skipped and the rest load.",
    )
    inline_tool_max_ms: float = Field(
        5.0,
        ge=0,
        description="Synchronous tools declared quick (cadence.sdk.inline) run on the event loop; two calls "
        "slower than this (ms) send the tool's later calls to its plugin's threads. 0: always threads.",
    )
    checkpoint_durability: Literal["exit", "async", "sync"] = Field(
        "exit",
        description="When LangGraph writes checkpoints: exit (once per turn, fastest), "
        "async or sync (every step).",
    )
    approval_tools: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Tools that need a human's approval before they run, whatever their plugin declares "
        "(comma-separated tool names; * for every tool).",
    )
    history_max_checkpoints: int = Field(
        200, ge=1, description="Most checkpoints a thread's history lists (newest first)."
    )
    note_max_chars: int = Field(
        50_000, ge=100, description="Max characters of a note the docs plugin's write_note writes."
    )

    # --- plugins ------------------------------------------------------------------
    plugins_dir: Annotated[list[Path], NoDecode] = Field(
        default_factory=list, description="Plugin directories (comma or os.pathsep separated)."
    )
    builtin_plugins: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: ["math", "info", "docs", "geo", "text"],
        description="Built-in plugins to load (comma separated; empty disables all).",
    )
    disabled_plugins: Annotated[list[str], NoDecode] = Field(
        default_factory=list, description="Plugin names never loaded (comma separated)."
    )
    entry_points_enabled: bool = Field(
        True, description="Discover plugins from the 'cadence.plugins' entry points."
    )
    docs_dir: Path | None = Field(None, description="Folder the docs plugin indexes (default: bundled docs).")
    agents_dir: Annotated[list[Path], NoDecode] = Field(
        default_factory=list,
        description="Folders (or files) of agents written in Markdown (comma or os.pathsep separated).",
    )
    agent: str | None = Field(
        None, description="The agent a single-mode turn talks to when the request names none."
    )
    summarize_max_chars: int = Field(
        50_000,
        ge=100,
        description="Max characters of the text given to the summarize_text and text_facts tools.",
    )

    # --- persistence & server -----------------------------------------------------
    data_dir: Path = Field(
        Path.home() / ".cadence", description="Where the SQLite database and indexes live."
    )
    database_url: SecretStr | None = Field(
        None, description="sqlite:///path.db (default under data_dir), postgresql://..., or memory://"
    )
    sqlite_synchronous: Literal["normal", "full"] = Field(
        "normal",
        description="SQLite durability (PRAGMA synchronous): normal keeps commits across process crashes "
        "(the last ones can be lost to a power cut or OS crash; SQLite's advice with WAL); full flushes "
        "every commit to disk, slower.",
    )
    postgres_check_idle_s: float = Field(
        5.0,
        ge=0,
        description="A pooled PostgreSQL connection idle longer than this (seconds) is checked with a "
        "round trip before use; one used more recently is not (0: check at every checkout).",
    )
    postgres_pool_size: int = Field(
        10,
        ge=1,
        description="Most PostgreSQL connections of one process's checkpointer pool; the thread store's and "
        "the memory store's pools open at most half as many each (plus one lock session per process).",
    )
    host: str = Field("127.0.0.1", description="Server bind address.")
    port: int = Field(8000, ge=1, le=65535, description="Server port.")
    api_keys: Annotated[list[SecretStr], NoDecode] = Field(
        default_factory=list, description="API keys; 'key' or 'key:user_id' to bind a key to a user."
    )
    max_message_chars: int = Field(32000, ge=1, description="Max characters of one user message.")
    max_request_bytes: int = Field(
        4_194_304,
        ge=1024,
        description="Max size (bytes) of one HTTP request body or WebSocket message (413).",
    )
    request_body_timeout_s: float = Field(
        30.0,
        gt=0,
        description="How long a request's body may take to arrive; a client that sends less than it "
        "announced, or too slowly, gets 408 and the connection is closed.",
    )
    worker_start_grace_s: float = Field(
        60.0,
        ge=0,
        description="With --workers: how long a starting worker is only checked for being alive, not for "
        "answering the supervisor's health check (importing Cadence can take longer than uvicorn's 5 s).",
    )
    request_drain_s: float = Field(
        10.0,
        ge=0,
        description="How long the rest of an over-limit upload (at most 8x the limit) is read and dropped "
        "before its 413 goes out, so that closing the connection does not reset it before the client "
        "reads the answer (0: close at once).",
    )
    max_openai_messages: int = Field(
        1000, ge=1, description="Max messages in one request to the OpenAI-compatible endpoint."
    )
    max_metadata_bytes: int = Field(
        16_384, ge=2, description="Max size (bytes, as compact JSON) of a request's metadata."
    )
    max_id_chars: int = Field(
        128, ge=8, le=1024, description="Max characters of a thread, user, org or project id."
    )
    thread_lock_timeout: float = Field(10.0, ge=0, description="Wait (s) for a busy thread before 409.")
    workers: int = Field(
        1, ge=1, le=64, description="Worker processes of cadence serve (--workers); they share the database."
    )
    retention_keep_last: int = Field(
        50,
        ge=0,
        description="Checkpoints kept per thread by the background retention (older ones are deleted; "
        "a thread's latest always stays); 0: no count limit.",
    )
    retention_max_age_hours: float = Field(
        0.0,
        ge=0,
        description="Retention also deletes checkpoints older than this (a thread's latest always stays); "
        "0: no age limit.",
    )
    retention_interval_s: float = Field(
        600.0,
        ge=0,
        description="Seconds between background retention passes (run by one worker of all sharing "
        "the database); 0: never.",
    )
    default_user: str = Field("local", description="User id used when a request names none.")
    log_level: str = Field("WARNING", description="Logging level of the CLI and server.")

    @field_validator("builtin_plugins", "disabled_plugins", "api_keys", "approval_tools", mode="before")
    @classmethod
    def _lists(cls, value: Any) -> Any:
        return _split_list(value)

    @field_validator("mode", mode="before")
    @classmethod
    def _mode_name(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("plugins_dir", "agents_dir", mode="before")
    @classmethod
    def _path_lists(cls, value: Any) -> Any:
        return _split_list(value, paths=True)

    @field_validator("llm")
    @classmethod
    def _llm_not_empty(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise ValueError("CADENCE_LLM is empty; use provider:model, 'local' or 'scripted:<file>'")
        return value

    @model_validator(mode="after")
    def _derive(self) -> Settings:
        if not self.graph_recursion_limit:
            # coordinator + control_tools + agent + tools per agent hop; agent + tools per tool hop (the
            # single mode's and a supervisor agent's tool loop is one agent hop); final nodes and slack.
            self.graph_recursion_limit = 4 * self.max_agent_hops + 2 * self.max_tool_hops + 10
        return self

    @property
    def resolved_database_url(self) -> str:
        """The checkpointer URL, defaulting to a SQLite file under ``data_dir``."""
        if self.database_url:
            return self.database_url.get_secret_value()
        return f"sqlite:///{self.data_dir / 'cadence.db'}"

    def masked(self) -> dict[str, Any]:
        """The effective settings as a dict with secrets masked.

        Secrets are :class:`~pydantic.SecretStr` (never shown by ``repr``, logs or dumps); what
        is not secret stays visible: the user an API key is bound to, and a database URL
        without its credentials.
        """
        out: dict[str, Any] = {}
        for name, value in self.model_dump().items():
            if name == "api_keys":
                value = [_masked_key(k.get_secret_value()) for k in self.api_keys]
            elif name == "database_url" and self.database_url is not None:
                value = _masked_url(self.database_url.get_secret_value())
            elif isinstance(value, SecretStr):
                value = "***"
            elif isinstance(value, Path):
                value = str(value)
            elif isinstance(value, list):
                value = [str(v) for v in value]
            out[name] = value
        return out


def _masked_key(key: str) -> str:
    """An API key as ``cadence config`` shows it: ``***``, or ``***:user_id`` for a bound key."""
    return "***:" + key.split(":", 1)[1] if ":" in key else "***"


def _masked_url(url: str) -> str:
    """A database URL without its credentials (``scheme://***@host/db``); others unchanged."""
    if "@" not in url:
        return url
    head, tail = url.split("@", 1)
    return f"{head.split('://', 1)[0]}://***@{tail}"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings (read once from the environment and ``.env``)."""
    try:
        return Settings()
    except Exception as exc:  # pydantic's ValidationError: rephrase for users
        raise ConfigurationError(f"Invalid Cadence settings: {exc}") from exc
