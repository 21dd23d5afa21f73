"""API fuzzing: schemathesis against the live OpenAPI schema of a loopback server.

Every operation of ``/openapi.json`` gets generated requests, valid (positive) and
invalid (negative) per the schema, deterministically (``derandomize``). The server must
never answer 5xx, and every response must match what the schema declares: status code,
content type, headers, body schema; invalid requests must be rejected (4xx).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

schemathesis = pytest.importorskip("schemathesis")

from hypothesis import HealthCheck, Phase, given  # noqa: E402
from hypothesis import settings as hsettings  # noqa: E402
from hypothesis.errors import Unsatisfiable  # noqa: E402
from schemathesis import GenerationMode  # noqa: E402
from schemathesis.checks import (  # noqa: E402
    content_type_conformance,
    negative_data_rejection,
    not_a_server_error,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
    unsupported_method,
)

from cadence.server import create_app  # noqa: E402
from test_server_support import live_server, scripted, settings  # noqa: E402

EXAMPLES_PER_MODE = 90
"""Generated cases per operation and mode (positive, negative): over 1,000 requests in all."""

MIN_REQUESTS = 1000

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    negative_data_rejection,
    unsupported_method,
]


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    """A live server: memory database, the built-in plugins, a looping scripted model."""
    app = create_app(
        settings(builtin_plugins=["math", "info"], thread_lock_timeout=0.5),
        engine_kwargs={"model": scripted()},
    )
    with live_server(app) as url:
        yield url


def _fuzz(operation: Any, mode: GenerationMode, url: str, sent: list[str]) -> str | None:
    """Run the generated cases of one operation; the failure report, or None."""

    @given(case=operation.as_strategy(generation_mode=mode))
    @hsettings(
        max_examples=EXAMPLES_PER_MODE,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    def run(case: Any) -> None:
        sent.append(operation.label)
        case.call_and_validate(base_url=url, checks=CHECKS, timeout=30)

    try:
        run()
    except Unsatisfiable:
        assert mode is GenerationMode.NEGATIVE, operation.label  # nothing to get wrong: no input
    except Exception as exc:  # a failed check: report every operation, then fail once
        return f"{operation.label} ({mode.value}): {exc}"
    return None


def test_no_server_errors_and_the_schema_is_the_truth(server_url: str) -> None:
    schema = schemathesis.openapi.from_url(f"{server_url}/openapi.json")
    sent: list[str] = []
    failures: list[str] = []
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 10
    for operation in operations:
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            failure = _fuzz(operation, mode, server_url, sent)
            if failure:
                failures.append(failure)
    assert failures == [], "\n\n".join(failures)
    assert len(sent) >= MIN_REQUESTS, {label: sent.count(label) for label in set(sent)}
