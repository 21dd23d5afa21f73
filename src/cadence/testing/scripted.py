"""The scripted chat model (it lives with the models in :mod:`cadence.models.scripted`).

Kept here so ``from cadence.testing.scripted import ScriptedChatModel`` keeps working.
"""

from __future__ import annotations

from cadence.models.scripted import (
    ModelCallRecord,
    ScriptedChatModel,
    ScriptedModelError,
    load_script,
)

__all__ = ["ModelCallRecord", "ScriptedChatModel", "ScriptedModelError", "load_script"]
