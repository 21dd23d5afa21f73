"""Public testing helpers: a scripted chat model for your own tests and replays.

>>> from cadence.testing import ScriptedChatModel
>>> model = ScriptedChatModel.from_items([
...     {"tool_calls": [{"name": "goto_math_agent", "args": {}}]},
...     {"content": "2+2=4"},
...     {"content": ""},
...     {"content": "The answer is 4."},
... ])
"""

from cadence.models.scripted import ModelCallRecord, ScriptedChatModel, load_script

__all__ = ["ModelCallRecord", "ScriptedChatModel", "load_script"]
