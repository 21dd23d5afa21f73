"""Probes: a Markdown agent borrowing a tool keeps the tool's owner's rule of asking a human first."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import call

from cadence.sdk import BaseAgent, BasePlugin, PluginMetadata, tool
from cadence.sdk.approval import approval_declaration

PAID: list[int] = []


@tool
def pay(amount: int) -> str:
    """Pay a bill. amount: how much, in euros."""
    PAID.append(amount)
    return f"paid {amount}"


class BankAgent(BaseAgent):
    """The bank plugin's agent."""

    def get_tools(self) -> list[Any]:
        return [pay]

    def get_system_prompt(self) -> str:
        return "You pay bills."


class BankPlugin(BasePlugin):
    """A plugin whose every tool needs a human's approval (PluginMetadata.requires_approval)."""

    @classmethod
    def get_metadata(cls) -> PluginMetadata:
        return PluginMetadata(
            name="bank", version="1.0.0", description="Pays bills for the user.", requires_approval=True
        )

    @classmethod
    def create_agent(cls) -> BaseAgent:
        return BankAgent(cls.get_metadata())


async def test_a_borrowed_tool_of_a_plugin_that_requires_approval_waits_for_it(
    engine_factory, tmp_path: Path
) -> None:
    # the Markdown agent ran 'pay' at once: the plugin's requires_approval stayed with the plugin
    (tmp_path / "payer.md").write_text(
        "---\nname: payer\ndescription: Pays the bills the user names.\ntools: [pay]\n---\nYou pay bills.\n"
    )
    PAID.clear()
    engine, _ = engine_factory(
        [call("pay", amount=500), {"content": "Paid 500 euros."}],
        plugins=[BankPlugin],
        agents_dir=[tmp_path],
        builtin_plugins=[],
    )
    paused = await engine.ainvoke("Pay the 500 euro bill.", agent="payer", thread_id="p1")
    assert paused.interrupted and PAID == []
    [pending] = paused.approvals
    assert (pending["tool"], pending["agent"]) == ("pay", "payer")
    assert "bank plugin requires approval" in str(pending)
    result = await engine.aresume({pending["id"]: "approve"}, thread_id="p1")
    assert result.response == "Paid 500 euros." and PAID == [500]
    # the plugin's own tool object is left as it was
    assert approval_declaration(pay) == (False, None)
