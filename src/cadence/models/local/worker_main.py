"""The embedded model's worker process: loads one GGUF file once and generates on request.

:mod:`cadence.models.local.worker` starts this file as a script
(``python -P worker_main.py CONFIG_JSON``), so that a native crash or hang of
llama.cpp only ever takes down this process. The file is self-contained (the
standard library and ``llama_cpp`` only): the worker starts without importing
Cadence, pydantic or LangChain.

It is also the ONE place where Cadence reaches below the public API of
``llama-cpp-python`` (see :class:`NoExtraBuffersLlama`).

Protocol: JSON lines. Requests arrive on stdin; replies go to the original
stdout, whose file descriptor is kept for the protocol while fd 1 is pointed at
stderr (so nothing native can corrupt the protocol). Replies:
``{"event": "ready", ...}`` once the model is loaded, then per request
``{"id", "event": "token", "text"}`` (streamed requests) and one
``{"id", "event": "done", ...}`` or ``{"id", "event": "error", ...}``. A
``{"op": "cancel", "id"}`` line stops the running generation at its next token.
End of stdin (the parent closed the pipe or died) ends the worker at once, and
a watchdog ends it too if the parent process disappears.
"""

from __future__ import annotations

import json
import os
import queue
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

EXTRA_BUFFERS_FIELD = "use_extra_bufts"
"""The field of ``llama_model_params`` that lets llama.cpp repack weights into extra
buffer types (the AMX one crashes in the first decode on Sapphire Rapids CPUs built
with native flags: ggml-org/llama.cpp issue 20824)."""

PARENT_POLL_S = 1.0
"""How often the watchdog checks that the parent process is alive."""

Formatter = Callable[[list[dict[str, str]]], tuple[str, list[str]]]


def bindings_version() -> str:
    """The installed ``llama-cpp-python`` version ("unknown" if it does not say)."""
    import llama_cpp

    return str(getattr(llama_cpp, "__version__", "unknown"))


def supports_extra_buffer_switch() -> bool:
    """Whether the installed bindings' ``llama_model_params`` has ``use_extra_bufts``."""
    from llama_cpp import llama_cpp as bindings

    return any(field[0] == EXTRA_BUFFERS_FIELD for field in bindings.llama_model_params._fields_)


def cpu_has_amx() -> bool:
    """Whether this (Linux) CPU advertises AMX tiles (False when it cannot be read)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            return any(line.startswith("flags") and "amx_tile" in line.split() for line in fh)
    except OSError:
        return False


def _llama_class(extra_buffers: bool) -> type:
    """``llama_cpp.Llama`` or, when extra buffers must be off, the subclass that turns them off.

    Raises ``RuntimeError`` when the bindings are too old to turn them off on a CPU
    where they crash (AMX); elsewhere old bindings load with llama.cpp's defaults.
    """
    from llama_cpp import Llama

    if extra_buffers:
        return Llama
    if supports_extra_buffer_switch():
        return _no_extra_buffers_class(Llama)
    if cpu_has_amx():
        raise RuntimeError(
            f"llama-cpp-python {bindings_version()} cannot turn off llama.cpp's extra buffer types, "
            "whose AMX path crashes on this CPU (llama.cpp issue 20824); upgrade it: "
            "pip install -U llama-cpp-python"
        )
    print(
        f"cadence worker: llama-cpp-python {bindings_version()} has no {EXTRA_BUFFERS_FIELD}; "
        "loading with llama.cpp's defaults (this CPU has no AMX)",
        file=sys.stderr,
    )
    return Llama


def _no_extra_buffers_class(llama: type) -> type:
    class NoExtraBuffersLlama(llama):  # type: ignore[misc, valid-type]
        """``Llama`` that loads its model with ``use_extra_bufts = False``.

        ``Llama.__init__`` builds its ``llama_model_params`` struct, assigns it to
        ``self.model_params`` and passes that same struct to the model loader; the
        high-level API has no argument for the field. This property intercepts the
        assignment and clears the field on the struct before the model is loaded.
        Nothing of the bindings is replaced; the effect is checked after loading
        (``self._model.params``, the struct the model was loaded with) by
        :func:`load_llama` and pinned by a test.
        """

        @property
        def model_params(self) -> Any:
            return self.__dict__["_cadence_model_params"]

        @model_params.setter
        def model_params(self, params: Any) -> None:
            setattr(params, EXTRA_BUFFERS_FIELD, False)
            self.__dict__["_cadence_model_params"] = params

    return NoExtraBuffersLlama


DEFAULT_THREADS = 1
"""llama.cpp threads when none are configured (``CADENCE_LOCAL_MODEL_THREADS``).

The bundled 135M model answers as fast on one thread as on two (0.13 s for a short answer on
idle cores), and a thread has nobody to wait for: llama.cpp's threads synchronise after every
step of every token, which on cores shared with other work costs far more than a second thread
gains (the worker also keeps OpenMP's spinning short, see ``worker.WORKER_ENV``). Raise
it for a bigger model on cores of its own.
"""


def load_llama(path: str, *, n_ctx: int, n_threads: int | None, extra_buffers: bool = False) -> Any:
    """Load the GGUF at ``path`` (without llama.cpp's extra buffer types unless ``extra_buffers``).

    Raises ``RuntimeError`` (too old bindings on an AMX CPU, or a model that was
    loaded with extra buffers although they were to be off) and ``ValueError``
    (llama.cpp could not load the file).
    """
    base = _llama_class(extra_buffers)
    cls = type(f"Chunked{base.__name__}", (ChunkedEval, base), {"__doc__": "Llama with a chunked eval."})
    threads = n_threads or DEFAULT_THREADS
    llama = cls(model_path=path, n_ctx=n_ctx, n_threads=threads, n_threads_batch=threads, verbose=False)
    loaded_with = getattr(getattr(llama, "_model", None), "params", None)
    if not extra_buffers and loaded_with is not None and getattr(loaded_with, EXTRA_BUFFERS_FIELD, False):
        raise RuntimeError(
            "llama.cpp loaded the model with extra buffer types although they were turned off; "
            f"report this with your llama-cpp-python version ({bindings_version()})."
        )
    return llama


def chatml(messages: list[dict[str, str]]) -> tuple[str, list[str]]:
    """ChatML prompt and stop strings (for GGUF files without a chat template)."""
    parts = [f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages]
    return "".join(parts) + "<|im_start|>assistant\n", ["<|im_end|>"]


def make_formatter(llama: Any) -> Formatter:
    """The GGUF's own chat template (ChatML when it has none)."""
    template = (getattr(llama, "metadata", None) or {}).get("tokenizer.chat_template")
    if not template:
        return chatml
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    def text(token_id: int) -> str:
        return llama._model.token_get_text(token_id) if token_id != -1 else ""

    fmt = Jinja2ChatFormatter(
        template=template, eos_token=text(llama.token_eos()), bos_token=text(llama.token_bos())
    )

    def render(messages: list[dict[str, str]]) -> tuple[str, list[str]]:
        response = fmt(messages=messages)  # type: ignore[arg-type]
        stop = response.stop if isinstance(response.stop, list) else [response.stop] if response.stop else []
        return response.prompt, [s for s in stop if s]

    return render


PROMPT_CHUNK = 64
"""Prompt tokens llama.cpp evaluates between two checks for cancellation.

``Llama.eval`` evaluates a prompt in one native call per batch (512 tokens), which no stopping
criterion can interrupt; on a busy CPU a long prompt takes many seconds (1,800 tokens: 8–17 s on
2 shared cores), so a call cancelled meanwhile (its timeout, the turn's deadline) outlived the
cancel grace and its worker was killed and restarted as if it hung. In chunks of 64 tokens a
cancellation stops it within a fraction of a second, at no measurable cost (the same 1,800 tokens:
8.4–8.8 s in chunks of 64, 128 or 512)."""


class _Cancelled(Exception):
    """The running request was cancelled while llama.cpp evaluated tokens."""


def _never() -> bool:
    return False


class ChunkedEval:
    """Mixin of the worker's ``Llama`` class: ``eval`` (through which ``Llama.generate`` reads the prompt
    and each new token) runs in chunks of :data:`PROMPT_CHUNK` tokens and stops between two when
    ``cancelled()`` says so (the running request sets it)."""

    cancelled: Callable[[], bool] = staticmethod(_never)

    def eval(self, tokens: Any) -> None:
        """Evaluate ``tokens``, :data:`PROMPT_CHUNK` at a time; raises ``_Cancelled`` between chunks."""
        for start in range(0, len(tokens), PROMPT_CHUNK):
            if self.cancelled():
                raise _Cancelled
            super().eval(tokens[start : start + PROMPT_CHUNK])  # type: ignore[misc]


class Generator:
    """One loaded model answering generation requests (one at a time)."""

    def __init__(self, llama: Any) -> None:
        self.llama = llama
        self.formatter = make_formatter(llama)
        self._grammars: dict[str, Any] = {}

    def _grammar(self, source: str) -> Any:
        grammar = self._grammars.get(source)
        if grammar is None:
            from llama_cpp import LlamaGrammar

            if len(self._grammars) >= 64:
                self._grammars.clear()
            grammar = self._grammars[source] = LlamaGrammar.from_string(source, verbose=False)
        return grammar

    def generate(
        self, request: dict[str, Any], emit: Callable[[str], None], cancelled: Callable[[], bool]
    ) -> dict[str, Any]:
        """Run one request; stream pieces through ``emit`` when ``request["stream"]``.

        ``cancelled`` is checked after every token and every :data:`PROMPT_CHUNK` prompt tokens.
        """
        chunked = isinstance(self.llama, ChunkedEval)
        if chunked:
            self.llama.cancelled = cancelled
        try:
            return self._generate(request, emit, cancelled)
        except _Cancelled:
            return {"text": "", "finish_reason": "cancelled", "input_tokens": 0, "output_tokens": 0}
        finally:
            if chunked:
                self.llama.cancelled = _never

    def _generate(
        self, request: dict[str, Any], emit: Callable[[str], None], cancelled: Callable[[], bool]
    ) -> dict[str, Any]:
        from llama_cpp import StoppingCriteriaList

        prompt, template_stop = self.formatter(request["messages"])
        args: dict[str, Any] = {
            "max_tokens": request["max_tokens"],
            "temperature": request["temperature"],
            "stop": [*template_stop, *request.get("stop", [])],
            "repeat_penalty": request.get("repeat_penalty", 1.0),
            "stopping_criteria": StoppingCriteriaList([lambda tokens, logits: cancelled()]),
        }
        if request.get("grammar"):
            args["grammar"] = self._grammar(request["grammar"])
        if not request.get("stream"):
            result = self.llama.create_completion(prompt, **args)
            choice = result["choices"][0]
            usage = result.get("usage") or {}
            return {
                "text": choice.get("text") or "",
                "finish_reason": choice.get("finish_reason"),
                "input_tokens": int(usage.get("prompt_tokens", 0)),
                "output_tokens": int(usage.get("completion_tokens", 0)),
            }
        prompt_tokens = len(self.llama.tokenize(prompt.encode("utf-8"), add_bos=False, special=True))
        produced = 0
        finish = None
        for part in self.llama.create_completion(prompt, stream=True, **args):
            choice = part["choices"][0]
            finish = choice.get("finish_reason") or finish
            piece = choice.get("text") or ""
            produced += 1
            if piece:
                emit(piece)
            if cancelled():
                break
        return {
            "text": "",
            "finish_reason": "cancelled" if cancelled() else finish,
            "input_tokens": prompt_tokens,
            "output_tokens": produced,
        }


class _Protocol:
    """The worker's side of the JSON-lines protocol."""

    def __init__(self, out: Any) -> None:
        self._out = out
        self._write_lock = threading.Lock()
        self.requests: queue.Queue[dict[str, Any]] = queue.Queue()
        self.cancelled_ids: set[int] = set()
        self._cancel_lock = threading.Lock()

    def send(self, message: dict[str, Any]) -> None:
        data = (json.dumps(message) + "\n").encode("utf-8")
        with self._write_lock:
            self._out.write(data)
            self._out.flush()

    def is_cancelled(self, request_id: int) -> bool:
        with self._cancel_lock:
            return request_id in self.cancelled_ids

    def forget_cancellations(self, done_id: int) -> None:
        """Drop cancellations of requests up to ``done_id`` (ids only grow)."""
        with self._cancel_lock:
            self.cancelled_ids = {i for i in self.cancelled_ids if i > done_id}

    def read_stdin(self) -> None:
        """Reader thread: queue requests, record cancellations, exit on end of input."""
        for raw in sys.stdin.buffer:
            try:
                message = json.loads(raw)
            except ValueError:
                continue
            if message.get("op") == "cancel":
                with self._cancel_lock:
                    self.cancelled_ids.add(int(message.get("id", -1)))
            elif message.get("op") == "shutdown":
                break
            else:
                self.requests.put(message)
        os._exit(0)  # the parent closed the pipe or died: no orphan, whatever is running


def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(PARENT_POLL_S)
        if os.getppid() != parent:
            os._exit(0)


def main(argv: list[str]) -> None:
    """Entry point: ``worker_main.py CONFIG_JSON`` (path, n_ctx, n_threads, extra_buffers, parent)."""
    config = json.loads(argv[1])
    protocol_fd = os.dup(1)
    os.dup2(2, 1)  # stray native prints go to stderr, never into the protocol
    protocol = _Protocol(os.fdopen(protocol_fd, "wb", buffering=0))
    threading.Thread(target=_watch_parent, args=(int(config["parent"]),), daemon=True).start()
    threading.Thread(target=protocol.read_stdin, daemon=True).start()
    started = time.monotonic()
    try:
        llama = load_llama(
            config["path"],
            n_ctx=int(config["n_ctx"]),
            n_threads=config.get("n_threads"),
            extra_buffers=bool(config.get("extra_buffers")),
        )
    except Exception as exc:  # reported to the parent, which raises a configuration error
        protocol.send({"event": "fatal", "type": type(exc).__name__, "message": str(exc)})
        os._exit(3)
    params = getattr(getattr(llama, "_model", None), "params", None)
    protocol.send(
        {
            "event": "ready",
            "pid": os.getpid(),
            "load_s": round(time.monotonic() - started, 3),
            "bindings": bindings_version(),
            "extra_buffers": bool(getattr(params, EXTRA_BUFFERS_FIELD, True)) if params is not None else None,
        }
    )
    generator = Generator(llama)
    while True:
        message = protocol.requests.get()
        request_id = int(message.get("id", -1))
        try:
            result = generator.generate(
                message["request"],
                lambda text, rid=request_id: protocol.send({"id": rid, "event": "token", "text": text}),
                lambda rid=request_id: protocol.is_cancelled(rid),
            )
        except Exception as exc:  # a bad request: the worker itself stays usable
            protocol.send(
                {"id": request_id, "event": "error", "type": type(exc).__name__, "message": str(exc)}
            )
        else:
            protocol.send({"id": request_id, "event": "done", **result})
        protocol.forget_cancellations(request_id)


if __name__ == "__main__":
    main(sys.argv)
