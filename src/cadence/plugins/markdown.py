"""Agents defined in Markdown: a ``.md`` file with YAML front matter becomes a plugin.

A file such as ``examples/agents/meeting-notes.md``::

    ---
    name: meeting_notes
    description: Turns meeting notes or transcripts into a short summary with decisions and actions.
    capabilities: [summarize meeting notes, list decisions and action items]
    tools: [summarize_text]
    response_suggestion: Start with the decisions, then the action items with their owners.
    ---
    You summarize meetings. ...   (the system prompt, kept exactly as written)

is loaded by the plugin manager (:meth:`~cadence.plugins.manager.PluginManager.load`) from
``CADENCE_AGENTS_DIR`` and from packages that ship ``.md`` agents (entry point group
``cadence.agents``), after the Python plugins, so its ``tools`` can name any tool of a loaded
plugin or of a built-in plugin. It becomes an ordinary :class:`~cadence.plugins.bundle.PluginBundle`
(source ``markdown``) and is routed to like any plugin in every mode.

A file that cannot be used is skipped with one reason naming the file and the line
(:class:`MarkdownAgentError`): no front matter, invalid YAML, a missing, unknown or repeated field,
an unknown tool, a name already taken. The front-matter reference is docs/agents-in-markdown.md.
"""

from __future__ import annotations

import codecs
import logging
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pydantic
import yaml
from langchain_core.language_models import BaseChatModel
from langchain_core.tools import BaseTool

from cadence.errors import PluginValidationError
from cadence.sdk.agent import BaseAgent
from cadence.sdk.approval import approval_declaration, requires_approval
from cadence.sdk.metadata import AgentType, LLMRequirements, PluginMetadata
from cadence.sdk.plugin import BasePlugin
from cadence.sdk.tools import BACK_TOOL_NAME

logger = logging.getLogger(__name__)

AGENTS_ENTRY_POINT_GROUP = "cadence.agents"
"""Entry point group of packages shipping ``.md`` agents: each value names a package holding them."""

FRONT_MATTER_FENCE = "---"
"""The line that opens and closes the front matter."""

FIELDS: dict[str, str] = {
    "name": "the agent's unique name (letters, digits, spaces, '-' or '_')",
    "description": "what the agent does, in one sentence (at least 10 characters)",
    "version": "a version such as 1.0.0 (default 1.0.0)",
    "capabilities": "a list of short phrases saying what the agent can do",
    "tools": "a list of tool names from loaded plugins and built-ins",
    "model": "provider:model for this agent (default: the configured model)",
    "temperature": "sampling temperature for this agent's model (0 to 2)",
    "max_tokens": "maximum output tokens of this agent's model",
    "response_suggestion": "how the final answer should be presented",
    "agent_type": "specialized (default), general or utility",
}
"""The front matter's fields and what each holds (the reference is docs/agents-in-markdown.md)."""

REQUIRED_FIELDS = ("name", "description")


class MarkdownAgentError(PluginValidationError):
    """A Markdown agent file cannot be used; the message names the file and the line."""

    code = "markdown_agent_invalid"

    def __init__(self, path: Path | str, line: int | None, problem: str) -> None:
        where = f"{path}, line {line}" if line else f"{path}"
        super().__init__(f"{where}: {problem}")
        self.path = str(path)
        self.line = line
        self.problem = problem


@dataclass
class AgentDefinition:
    """A parsed Markdown agent: its front matter, its system prompt, where each field was written."""

    path: Path
    fields: dict[str, Any]
    prompt: str
    lines: dict[str, int] = field(default_factory=dict)
    """The line of each front-matter key in the file (1-based)."""

    @property
    def name(self) -> str:
        """The ``name`` field."""
        return str(self.fields["name"])

    @property
    def tool_names(self) -> list[str]:
        """The ``tools`` field (empty when absent)."""
        return list(self.fields.get("tools") or [])

    def line_of(self, key: str) -> int | None:
        """The line where ``key`` was written (None when it was not)."""
        return self.lines.get(key)


# -- parsing -------------------------------------------------------------------------------------
class _DuplicateKey(yaml.MarkedYAMLError):
    """A mapping of the front matter names the same key twice (YAML would keep the last silently)."""


class _FrontMatterLoader(yaml.SafeLoader):
    """The safe YAML loader, refusing a key written twice in one mapping.

    ``written`` keeps each top-level field's text as written (a scalar's text, or a list of them),
    before YAML reads ``yes`` as true, ``1.10`` as 1.1 or ``2024-01-01`` as a date.
    """

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.written: dict[Any, str | list[str]] = {}
        self.key_lines: dict[str, int] = {}
        """The 0-based line of each top-level key (quoted or not)."""

    def construct_document(self, node: yaml.Node) -> Any:
        """The document; the top-level mapping's texts as written go to ``written``."""
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                if not isinstance(key_node, yaml.ScalarNode):
                    continue
                self.key_lines.setdefault(key_node.value, key_node.start_mark.line)
                if isinstance(value_node, yaml.ScalarNode):
                    self.written[key_node.value] = value_node.value
                elif isinstance(value_node, yaml.SequenceNode) and all(
                    isinstance(item, yaml.ScalarNode) for item in value_node.value
                ):
                    self.written[key_node.value] = [item.value for item in value_node.value]
        return super().construct_document(node)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        """The mapping of ``node``; a repeated key raises :class:`_DuplicateKey` at its second line."""
        seen: dict[Any, yaml.Mark] = {}
        for key_node, _value in node.value:
            key = self.construct_object(key_node, deep=True)
            try:
                first = seen.get(key)
            except TypeError:  # an unhashable key: the base loader reports it
                break
            if first is not None:
                raise _DuplicateKey(
                    problem=f"the field {key!r} is written twice (first on line {first.line + 2}); keep one",
                    problem_mark=key_node.start_mark,
                )
            seen[key] = key_node.start_mark
        return super().construct_mapping(node, deep=deep)


def _key_lines(front: list[str], first_line: int) -> dict[str, int]:
    """The 1-based file line of each top-level key of the front matter."""
    lines: dict[str, int] = {}
    for offset, text in enumerate(front):
        match = re.match(r"^([A-Za-z_][A-Za-z0-9_-]*)\s*:", text)
        if match and match.group(1) not in lines:
            lines[match.group(1)] = first_line + offset
    return lines


def _string_list(
    defn: Mapping[str, Any], written: Mapping[Any, Any], key: str, path: Path, line: int | None
) -> list[str]:
    """A list-of-names field: its items as written (``[yes, 1.10]`` is 'yes', '1.10'), or one comma list."""
    value = defn.get(key)
    if value is None:
        return []
    if isinstance(value, str):  # "tools: summarize_text" or "a, b"
        value = [part.strip() for part in value.split(",") if part.strip()]
    elif isinstance(value, list) and isinstance(written.get(key), list):
        value = [text if item is not None else None for item, text in zip(value, written[key], strict=True)]
    if not isinstance(value, list) or not all(isinstance(v, str | int | float) for v in value):
        raise MarkdownAgentError(path, line, f"'{key}' must be a list of names, e.g. {key}: [first, second]")
    return [str(v).strip() for v in value if str(v).strip()]


def parse_agent_text(text: str, path: Path | str = "<agent>") -> AgentDefinition:
    """Parse a Markdown agent (front matter and body); raises :class:`MarkdownAgentError`."""
    path = Path(path)
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != FRONT_MATTER_FENCE:
        raise MarkdownAgentError(
            path, 1, "no front matter: the file must start with a '---' line, the fields, then '---'"
        )
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == FRONT_MATTER_FENCE), None)
    if end is None:
        raise MarkdownAgentError(path, 1, "the front matter opened on line 1 is never closed with '---'")
    front = lines[1:end]
    loader = _FrontMatterLoader("\n".join(front))
    try:
        data = loader.get_single_data() if any(s.strip() for s in front) else {}
    except _DuplicateKey as exc:
        line = exc.problem_mark.line + 2 if exc.problem_mark is not None else 2
        raise MarkdownAgentError(path, line, str(exc.problem)) from None
    except yaml.YAMLError as exc:
        # where the broken construct starts (an unclosed bracket), else where the parser stopped
        mark = getattr(exc, "context_mark", None) or getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 2
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        if "'\\t'" in problem:  # YAML's "found character '\t' that cannot start any token"
            column = f" (column {exc.problem_mark.column + 1})" if getattr(exc, "problem_mark", None) else ""
            raise MarkdownAgentError(
                path, line, f"a tab character{column}: write the front matter with spaces, not tabs"
            ) from None
        raise MarkdownAgentError(path, line, f"invalid front matter (YAML: {problem})") from None
    finally:
        loader.dispose()
    if not isinstance(data, dict):
        raise MarkdownAgentError(path, 2, "the front matter must be 'field: value' lines")
    # the line of each key in the file (the front matter starts on line 2); a regex for what YAML missed
    key_lines = {**_key_lines(front, 2), **{k: line + 2 for k, line in loader.key_lines.items()}}
    unknown = [str(k) for k in data if k not in FIELDS]
    if unknown:
        key = unknown[0]
        raise MarkdownAgentError(
            path, key_lines.get(key), f"unknown field {key!r}; the fields are: {', '.join(FIELDS)}"
        )
    for key in REQUIRED_FIELDS:
        if not data.get(key) or not str(data[key]).strip():
            raise MarkdownAgentError(path, key_lines.get(key, 2), f"the '{key}' field is missing or empty")
    fields = dict(data)
    for key in ("name", "description", "version", "model", "response_suggestion", "agent_type"):
        value = data.get(key)
        if value is None or isinstance(value, str):
            continue
        written = loader.written.get(key)
        if not isinstance(written, str):  # a list or a mapping
            raise MarkdownAgentError(path, key_lines.get(key), f"'{key}' must be text")
        # text as written, not YAML's reading of it ("version: 1.10" is not 1.1, "name: yes" not True)
        fields[key] = written
    for key, example in (("temperature", "0.2"), ("max_tokens", "400")):
        if isinstance(data.get(key), bool):  # YAML reads yes/no/true/on as a boolean, pydantic as 1 or 0
            raise MarkdownAgentError(
                path, key_lines.get(key), f"'{key}' must be a number, e.g. {key}: {example}"
            )
    fields["capabilities"] = _string_list(
        data, loader.written, "capabilities", path, key_lines.get("capabilities")
    )
    fields["tools"] = _string_list(data, loader.written, "tools", path, key_lines.get("tools"))
    prompt = "\n".join(lines[end + 1 :]).strip("\n")
    if not prompt.strip():
        raise MarkdownAgentError(
            path, end + 1, "the system prompt (the text after the front matter) is empty"
        )
    return AgentDefinition(path=path, fields=fields, prompt=prompt, lines=key_lines)


def parse_agent_file(path: Path | str) -> AgentDefinition:
    """Read and parse a Markdown agent file; raises :class:`MarkdownAgentError`."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise MarkdownAgentError(path, None, f"cannot be read ({type(exc).__name__}: {exc})") from None
    # UTF-16 with its byte order mark is what some editors write as "Unicode"; anything else is UTF-8
    encoding = "utf-16" if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) else "utf-8"
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1 if encoding == "utf-8" else None
        raise MarkdownAgentError(
            path,
            line,
            f"is not {encoding.upper()} text (byte {data[exc.start]:#04x}); save the file as UTF-8",
        ) from None
    return parse_agent_text(text, path)


def build_metadata(defn: AgentDefinition) -> PluginMetadata:
    """The plugin metadata of a definition; raises :class:`MarkdownAgentError` naming the field's line."""
    f = defn.fields
    llm: LLMRequirements | None = None
    try:
        if any(f.get(k) is not None for k in ("model", "temperature", "max_tokens")):
            llm = LLMRequirements(
                model=str(f["model"]).strip() if f.get("model") else None,
                temperature=f.get("temperature"),
                max_tokens=f.get("max_tokens"),
            )
        return PluginMetadata(
            name=str(f["name"]),
            version=str(f.get("version") or "1.0.0"),
            description=str(f["description"]),
            capabilities=list(f.get("capabilities") or []),
            agent_type=AgentType(str(f.get("agent_type") or "specialized").strip().lower()),
            llm_requirements=llm,
            response_suggestion=str(f["response_suggestion"]).strip()
            if f.get("response_suggestion")
            else None,
        )
    except ValueError as exc:
        key, problem = _field_problem(exc)
        raise MarkdownAgentError(defn.path, defn.line_of(key), problem) from None


def _field_problem(exc: ValueError) -> tuple[str, str]:
    """The front-matter key an error is about, and the problem in one line."""
    if isinstance(exc, pydantic.ValidationError):
        err = exc.errors()[0]
        loc = [str(p) for p in err.get("loc", ())]
        key = loc[-1] if loc else "name"
        msg = str(err.get("msg", "invalid value")).removeprefix("Value error, ")
        return key, f"'{key}': {msg}"
    text = str(exc)
    if "AgentType" in text or "is not a valid" in text:
        return "agent_type", f"'agent_type' must be one of: {', '.join(t.value for t in AgentType)}"
    return "name", text


# -- the agent and its plugin class -----------------------------------------------------------------
class MarkdownAgent(BaseAgent):
    """The agent of a Markdown file: its body as the system prompt, its tools borrowed by name.

    ``owners`` are the agents whose tools it borrows; when one of them has no model (a built-in
    plugin that is not loaded as an agent), it gets this agent's model, so a tool that uses its
    plugin's model (``summarize_text``'s abstractive summary) works here too.
    """

    def __init__(
        self,
        metadata: PluginMetadata,
        prompt: str,
        tools: Sequence[BaseTool],
        owners: Sequence[BaseAgent] = (),
        source: str = "",
    ) -> None:
        super().__init__(metadata)
        self.prompt = prompt
        self.tools = list(tools)
        self.owners = list(owners)
        self.source = source

    def get_tools(self) -> list[BaseTool]:
        """The tools named in the front matter."""
        return list(self.tools)

    def get_system_prompt(self) -> str:
        """The file's body, as written."""
        return self.prompt

    def bind_model(self, model: BaseChatModel, tools: Sequence[BaseTool] | None = None) -> None:
        """Bind ``model`` with the tools; owners of borrowed tools without a model get it too."""
        super().bind_model(model, tools)
        for owner in self.owners:
            if owner.model is None:
                owner.bind_model(model)


class MarkdownPlugin(BasePlugin):
    """Base of the plugin classes made from Markdown files (one subclass per file)."""

    definition: AgentDefinition
    metadata: PluginMetadata
    tools: list[BaseTool]
    owners: list[BaseAgent]

    @classmethod
    def get_metadata(cls) -> PluginMetadata:
        """The metadata built from the front matter."""
        return cls.metadata

    @classmethod
    def create_agent(cls) -> BaseAgent:
        """A :class:`MarkdownAgent` with the file's prompt and tools."""
        return MarkdownAgent(
            cls.metadata, cls.definition.prompt, cls.tools, cls.owners, str(cls.definition.path)
        )

    @classmethod
    def health_check(cls) -> dict[str, Any]:
        """Healthy; the details name the file and the tools."""
        tools = ", ".join(t.name for t in cls.tools) or "no tools"
        return {"healthy": True, "details": f"markdown agent ({tools})"}


# -- tools by name ------------------------------------------------------------------------------------
ToolSource = tuple[BaseTool, BaseAgent | None, str]
"""A tool, the agent that owns it, and the plugin it comes from."""


class ToolCatalog:
    """The tools a Markdown agent may name: those of the loaded plugins, then those of the built-ins.

    Built-in plugins that are not loaded as agents are asked for their tools only when a file
    names a tool the loaded plugins do not have (creating their agents lazily).
    """

    def __init__(
        self,
        loaded: Iterable[tuple[str, BaseAgent, Sequence[BaseTool]]],
        extra_sources: Callable[[], Iterable[tuple[str, BaseAgent]]] | None = None,
    ) -> None:
        self._tools: dict[str, ToolSource] = {}
        for plugin, agent, tools in loaded:
            self._add(plugin, agent, tools)
        self._extra_sources = extra_sources
        self._extras_loaded = extra_sources is None

    def _add(self, plugin: str, agent: BaseAgent | None, tools: Iterable[BaseTool]) -> None:
        for t in tools:
            if t.name != BACK_TOOL_NAME and t.name not in self._tools:
                self._tools[t.name] = (t, agent, plugin)

    def _load_extras(self) -> None:
        if self._extras_loaded or self._extra_sources is None:
            return
        self._extras_loaded = True
        for plugin, agent in self._extra_sources():
            try:
                self._add(plugin, agent, agent.get_tools())
            except Exception as exc:  # a broken built-in only loses its tools
                logger.warning("tools unavailable", extra={"plugin": plugin, "error": str(exc)})

    def get(self, name: str) -> ToolSource | None:
        """The tool called ``name`` (None when no plugin has it)."""
        if name not in self._tools:
            self._load_extras()
        return self._tools.get(name)

    def names(self) -> list[str]:
        """Every known tool name, sorted."""
        self._load_extras()
        return sorted(self._tools)


def plugin_class(defn: AgentDefinition, catalog: ToolCatalog) -> type[MarkdownPlugin]:
    """The plugin class of a definition; raises :class:`MarkdownAgentError` (bad field, unknown tool)."""
    metadata = build_metadata(defn)
    tools: list[BaseTool] = []
    owners: list[BaseAgent] = []
    for name in defn.tool_names:
        found = catalog.get(name)
        if found is None:
            available = ", ".join(catalog.names()) or "none"
            raise MarkdownAgentError(
                defn.path,
                defn.line_of("tools"),
                f"unknown tool {name!r}: no loaded plugin or built-in has it; available tools: {available}",
            )
        tool, owner, plugin = found
        if (
            owner is not None
            and owner.metadata.requires_approval
            and approval_declaration(tool)[0] is not True
        ):
            # the owning plugin asks a human before any of its tools runs: so does this agent
            reason = approval_declaration(tool)[1] or f"the {plugin} plugin requires approval"
            tool = requires_approval(tool.model_copy(), reason=reason)
        if tool in tools:
            continue
        tools.append(tool)
        if owner is not None and owner not in owners:
            owners.append(owner)
    attrs = {
        "definition": defn,
        "metadata": metadata,
        "tools": tools,
        "owners": owners,
        "__module__": __name__,
        "__doc__": f"Markdown agent {metadata.name!r} from {defn.path}.",
    }
    cls_name = "MarkdownPlugin_" + re.sub(r"\W", "_", metadata.normalized_name)
    return type(cls_name, (MarkdownPlugin,), attrs)


# -- discovery -------------------------------------------------------------------------------------------
def agent_files(directories: Iterable[Path]) -> tuple[list[Path], list[tuple[Path, str]]]:
    """The ``.md`` files of ``directories`` (sorted; hidden ones and README.md skipped), missing folders."""
    files: list[Path] = []
    missing: list[tuple[Path, str]] = []
    for directory in directories:
        directory = Path(directory).expanduser()
        if directory.is_file() and directory.suffix.lower() == ".md":
            files.append(directory)
            continue
        if not directory.is_dir():
            missing.append((directory, "agents directory does not exist or is not a folder"))
            continue
        for entry in sorted(directory.iterdir()):
            if (
                entry.is_file()
                and entry.suffix.lower() == ".md"
                and not entry.name.startswith((".", "_"))
                and entry.name.lower() != "readme.md"
            ):
                files.append(entry)
    return files, missing


def packaged_agent_dirs() -> tuple[list[Path], list[tuple[str, str, str]]]:
    """Folders of the packages registered under :data:`AGENTS_ENTRY_POINT_GROUP`, and failures.

    Each entry point's value names a package (``my_agents`` or ``my_plugin.agents``); its folder's
    ``.md`` files are agents. Failures are ``(name, location, reason)``; whatever a package raises at
    import (``SystemExit`` included) is a failure, as for Python plugins; only cancellation propagates.
    """
    from importlib.metadata import entry_points

    from cadence.plugins.containment import load_fault, reraise_cancellation

    dirs: list[Path] = []
    failed: list[tuple[str, str, str]] = []
    for ep in entry_points(group=AGENTS_ENTRY_POINT_GROUP):
        try:
            module = ep.load()
            locations = list(getattr(module, "__path__", []) or [])
            if not locations and getattr(module, "__file__", None):
                locations = [str(Path(module.__file__).parent)]
            if not locations:
                raise TypeError("is not a package with a folder of .md agents")
            dirs.extend(Path(p) for p in locations)
        except BaseException as exc:  # SystemExit at import included, as for Python plugins
            reraise_cancellation(exc)
            failed.append((ep.name, ep.value, load_fault(exc)))
    return dirs, failed


__all__ = [
    "AGENTS_ENTRY_POINT_GROUP",
    "FIELDS",
    "AgentDefinition",
    "MarkdownAgent",
    "MarkdownAgentError",
    "MarkdownPlugin",
    "ToolCatalog",
    "agent_files",
    "build_metadata",
    "packaged_agent_dirs",
    "parse_agent_file",
    "parse_agent_text",
    "plugin_class",
]
