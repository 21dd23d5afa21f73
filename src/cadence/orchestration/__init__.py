"""Orchestration: the Cadence coordinator graph and its nodes.

Modules, one concept each: ``state`` (AgentState, plugin context), ``coordinator``,
``control_tools`` (the routing tools: ``goto_*``, the supervisor's ``transfer_to_*``),
``hops`` (hop counting and guards), ``suspend``, ``synthesizer``, ``tones``, ``prompts``, ``safety`` (message
filtering), ``tool_logging``, ``turn`` (per-turn context and trace), ``graph``
(the six-phase builder) and ``engine`` (the public entry point).
"""
