"""The embedded model's worker process: start time, per-call cost of the process hop, memory.

``python -m bench.local_worker`` prints, for the bundled SmolLM2 model:

- worker start (process start, imports, model load) and the model load alone;
- the median cost of a 1-token call through the worker and in-process (the difference
  is the process hop: JSON lines over pipes and the reader thread);
- the resident memory of the calling process with the worker running, and after
  loading the same model in-process (what the calling process held before the worker);
- tokens per second with llama.cpp's extra buffer types off (the default) and on.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any

CALLS = 30
ONE_TOKEN: dict[str, Any] = {
    "messages": [{"role": "user", "content": "Say hi"}],
    "grammar": None,
    "max_tokens": 1,
    "temperature": 0.0,
    "stop": [],
    "repeat_penalty": 1.0,
}
SIXTY_FOUR = {**ONE_TOKEN, "messages": [{"role": "user", "content": "Write a long story."}], "max_tokens": 64}


def rss_mb(pid: int | str = "self") -> float:
    """Resident memory of a process in MB (Linux)."""
    text = Path(f"/proc/{pid}/status").read_text()
    return int(text.split("VmRSS:")[1].split()[0]) / 1024


def main() -> None:
    """Measure and print."""
    from cadence.models.local.runtime import bundled_model_path, load_model
    from cadence.models.local.worker import WorkerKey, get_worker

    path = str(bundled_model_path().resolve())
    print(f"calling process before any model: {rss_mb():.0f} MB")
    worker = get_worker(WorkerKey(path, 4096, 2))
    starts = []
    for _ in range(3):
        worker.close()
        t0 = time.perf_counter()
        worker.start()
        starts.append((time.perf_counter() - t0, worker.ready_info["load_s"]))
    print(
        "worker start (process + imports + load) s: "
        + ", ".join(f"{total:.2f} (load {load:.2f})" for total, load in starts)
    )
    assert worker.pid is not None
    print(f"calling process with the worker running: {rss_mb():.0f} MB; worker: {rss_mb(worker.pid):.0f} MB")
    via_worker = []
    for _ in range(CALLS):
        t0 = time.perf_counter()
        worker.complete(ONE_TOKEN)
        via_worker.append(time.perf_counter() - t0)
    rates: dict[bool, float] = {}
    for extra in (False, True):
        w = get_worker(WorkerKey(path, 4096, 2, extra))
        w.start()
        samples = []
        for _ in range(3):
            t0 = time.perf_counter()
            result = w.complete(SIXTY_FOUR)
            samples.append(result["output_tokens"] / (time.perf_counter() - t0))
        rates[extra] = statistics.median(samples)
        w.close()
    print(f"tokens/s, 64-token answer: extra buffers off {rates[False]:.1f}, on {rates[True]:.1f}")
    t0 = time.perf_counter()
    loaded = load_model(path, n_threads=2)
    print(f"in-process load: {time.perf_counter() - t0:.2f} s; calling process then: {rss_mb():.0f} MB")
    in_process = []
    for _ in range(CALLS):
        t0 = time.perf_counter()
        prompt, stop = loaded.formatter(ONE_TOKEN["messages"])
        loaded.llama.create_completion(prompt, max_tokens=1, temperature=0.0, stop=stop, repeat_penalty=1.0)
        in_process.append(time.perf_counter() - t0)
    hop = statistics.median(via_worker) - statistics.median(in_process)
    print(
        f"1-token call, median of {CALLS}: worker {statistics.median(via_worker) * 1000:.1f} ms, "
        f"in-process {statistics.median(in_process) * 1000:.1f} ms (process hop {hop * 1000:.1f} ms)"
    )
    worker.close()


if __name__ == "__main__":
    main()
