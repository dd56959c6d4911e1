"""Every action of the agent tool is a command, and every parameter of it an argument or option of that command.

The agent tool declares each operation once, in its registry (``kgtoolkit._tool.registry()``: the action's
name and its ``Param`` records). The command line declares its commands as readable Typer signatures, so this
test holds the two together, name by name: the action ``alias_predicate`` is the command ``alias-predicate``,
and its parameter ``alias`` is that command's ``ALIAS`` argument. A parameter matches a command's parameter of
the same name, option name (``--as-of`` is ``as_of``) or metavar (``OBJECT`` is ``object``); the CLI's few other
spellings are the tables below, each with its reason. The matched pair must agree in meaning too: the same
kind of value (a flag for a boolean, a repeatable option or a list argument for an array, …), required in both
when the action requires it, and the same default.

The checks are one function, :func:`parity_problems`, so the last tests can prove it fails on an action
without a command and on a parameter without an option.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import click
import pytest
import typer.main

from kgtoolkit import _tool
from kgtoolkit._tool import Action, Param
from kgtoolkit.cli import app

COMMANDS: dict[str, click.Command] = typer.main.get_command(app).commands  # type: ignore[attr-defined]

#: A parameter every command that has it spells its own way: tool name → (CLI name, why).
RENAMED: dict[str, tuple[str, str]] = {
    "current_only": ("current", "a flag: --current reads as the question it asks"),
    "predicates": (
        "predicate",
        "a repeatable --predicate P, one predicate each time (follow's PREDICATE... "
        "argument keeps the name predicates)",
    ),
    "properties": ("prop", "--property KEY=VALUE, repeatable: a JSON object is awkward to type in a shell"),
    "codes": ("code", "a repeatable --code C, one finding code each time"),
}

#: One action's parameter the command takes under another name or in another form: (action, parameter) →
#: (the command's parameter, or None when the command has none; why).
EXCEPTIONS: dict[tuple[str, str], tuple[str | None, str]] = {
    ("supersede", "object"): (None, "not offered: the tool's older name of old_object, which is the OLD argument"),
    ("merge", "subject"): ("source", "the command reads `merge SOURCE TARGET`: fold SOURCE into TARGET"),
    ("merge", "object"): ("target", "the command reads `merge SOURCE TARGET`: fold SOURCE into TARGET"),
    ("rename_predicate", "predicate"): ("old", "the command reads `rename-predicate OLD NEW`"),
    ("rename_predicate", "new_predicate"): ("new", "the command reads `rename-predicate OLD NEW`"),
    ("conflicts", "name"): ("entity", "the command reads `conflicts [ENTITY]`, as aliases does"),
    ("diff", "name"): ("entity", "--entity, as export names the same filter"),
    ("diff", "by"): ("known", "--known, a flag, says by known; without it, by valid (the default)"),
}

#: Pairs that carry the same meaning in another form, so their kind, requirement and default differ on
#: purpose: (action, parameter) → why.
OTHER_FORM: dict[tuple[str, str], str] = {
    ("diff", "by"): "a string (valid or known) in the tool, the flag --known on the command line",
    ("path", "source"): "optional on the command line: `kgtoolkit path` with no entity prints the graph's location "
    "(what it did before it named paths)",
    ("path", "target"): "optional on the command line with source; given a source alone it is invalid_request",
}

#: Actions answered by one command of a group: action → (the group's subcommand, why).
IN_GROUP: dict[str, tuple[str, str]] = {
    "forecast": (
        "predict",
        "`kgtoolkit forecast predict` answers it; `forecast evaluate` scores the model, an analyst's act",
    ),
}

#: Commands that are no action of the agent tool, and why (a new command is listed here or gets its action).
CLI_ONLY: dict[str, str] = {
    "config": "changes the graph's settings: an administrator's act, not an agent's",
    "tool": "the agent tool itself, on stdin and stdout",
    "mcp": "the MCP server, another door",
    "dashboard": "the Streamlit dashboard, another door",
    "index": "builds the search index on disk; find (an action) searches it",
    "import": "reads a file on the machine running the command",
    "export": "writes a file on the machine running the command",
    "copy": "copies a whole graph between databases",
    "report": "writes an HTML report on the machine running the command",
    "generate": "writes a synthetic graph for benchmarks",
    "demo": "writes the demo graph",
    "where": "prints which graph the commands use",
}


def command_of(action: str) -> str:
    """The command of an action: ``alias_predicate`` → ``alias-predicate``."""
    return action.replace("_", "-")


def _names(param: click.Parameter) -> set[str]:
    """Every name a command's parameter answers to: its own, its long options', its metavar's."""
    names = {param.name or ""}
    names |= {o[2:].replace("-", "_") for o in (*param.opts, *param.secondary_opts) if o.startswith("--")}
    if param.param_type_name == "argument" and param.metavar:
        names.add(param.metavar.strip("[]. ").lower())
    return names


def _declared(param: click.Parameter) -> Any:
    """The Python type a command's parameter is declared with: ``int``, ``float``, ``str``, …"""
    descriptor = getattr(param, "type_descriptor", None)  # Typer keeps the annotation it built the parameter from
    if descriptor is not None:
        return descriptor.annotation
    return {"integer": int, "float": float, "boolean": bool}.get(param.type.name, str)  # plain click


def _kind(param: click.Parameter) -> str:
    """The JSON type a command's parameter takes, as the registry would say it."""
    if getattr(param, "is_flag", False):
        return "boolean"
    if param.multiple or param.nargs != 1:
        return "array"
    return {int: "integer", float: "number", bool: "boolean"}.get(_declared(param), "string")


#: The kinds a command may give a parameter of each JSON type (an object is JSON text, or KEY=VALUE pairs).
KINDS: dict[str, set[str]] = {
    "string": {"string"},
    "boolean": {"boolean"},
    "integer": {"integer"},
    "number": {"number"},
    "array": {"array"},
    "object": {"string", "array"},
}


def _match(action: str, param: Param, command: click.Command) -> tuple[click.Parameter | None, str | None]:
    """The command's parameter that carries ``param``, and a problem when there is none or it is listed wrongly."""
    listed = EXCEPTIONS.get((action, param.name))
    wanted = listed[0] if listed else RENAMED.get(param.name, (param.name, ""))[0]
    found = next((c for c in command.params if param.name in _names(c)), None)
    if found is not None:
        stale = listed is not None and listed[0] != found.name
        return found, (
            f"{action}.{param.name} matches {found.name} by name: strike it from EXCEPTIONS" if stale else None
        )
    if wanted is None:
        return None, None
    found = next((c for c in command.params if wanted in _names(c)), None)
    if found is None:
        return None, f"{action}.{param.name}: the command `{command_of(action)}` has no argument or option for it"
    return found, None


def _disagreement(action: str, param: Param, cli: click.Parameter) -> str | None:
    """How ``cli`` differs in meaning from ``param``: kind, required, default; None when they agree."""
    if (action, param.name) in OTHER_FORM:
        return None
    where = f"{action}.{param.name} (the command's {cli.name})"
    if _kind(cli) not in KINDS[param.type]:
        return f"{where}: the tool takes a JSON {param.type}, the command a {_kind(cli)}"
    if param.required and not cli.required:
        return f"{where}: required by the tool, optional on the command line"
    if param.default is not None and not cli.required and cli.default != param.default:
        return f"{where}: default {param.default!r} in the tool, {cli.default!r} on the command line"
    return None


def parity_problems(actions: Iterable[Action], commands: Mapping[str, click.Command]) -> list[str]:
    """Everything that keeps the command line from matching the agent tool's actions, one line each."""
    problems: list[str] = []
    for act in actions:
        command = commands.get(command_of(act.name))
        if act.name in IN_GROUP and command is not None:  # a group (Typer's own click: read its commands)
            command = getattr(command, "commands", {}).get(IN_GROUP[act.name][0])
        if command is None:
            problems.append(f"the action {act.name} has no command `kgtoolkit {command_of(act.name)}`")
            continue
        for param in act.params:
            cli, problem = _match(act.name, param, command)
            if problem is None and cli is not None:
                problem = _disagreement(act.name, param, cli)
            if problem is not None:
                problems.append(problem)
    return problems


# ---------------------------------------------------------------------- the real registry and app


def test_every_action_is_a_command_with_every_parameter() -> None:
    problems = parity_problems(_tool.registry().values(), COMMANDS)
    assert not problems, "the command line and the agent tool disagree:\n" + "\n".join(problems)


@pytest.mark.parametrize("action", list(_tool.registry()))
def test_each_action_has_its_command(action: str) -> None:
    assert command_of(action) in COMMANDS, f"add the command `kgtoolkit {command_of(action)}` for the action {action}"


def test_every_other_command_says_why_it_is_no_action() -> None:
    actions = {command_of(a) for a in _tool.registry()}
    others = set(COMMANDS) - actions
    assert others == set(CLI_ONLY), (
        "a command that is no agent action is listed in CLI_ONLY with its reason, "
        f"and only such a command: unlisted {sorted(others - set(CLI_ONLY))}, listed "
        f"but an action or gone {sorted(set(CLI_ONLY) - others)}"
    )


def test_the_tables_name_real_parameters_and_say_why() -> None:
    registry = _tool.registry()
    for action, name in (*EXCEPTIONS, *OTHER_FORM):
        assert action in registry and registry[action].param(name) is not None, (action, name)
    for name in RENAMED:
        assert name in _tool.PARAMETERS, name
    reasons = [r for _, r in EXCEPTIONS.values()] + list(OTHER_FORM.values()) + [r for _, r in RENAMED.values()]
    assert all(len(r) > 20 for r in [*reasons, *CLI_ONLY.values()])


def test_the_renamed_spellings_are_used() -> None:
    """A rename nobody needs any more (the command took the tool's name) is struck from the table."""
    used = set()
    for act in _tool.registry().values():
        command = COMMANDS[command_of(act.name)]
        for param in act.params:
            if param.name in RENAMED and not any(param.name in _names(c) for c in command.params):
                used.add(param.name)
    assert used == set(RENAMED)


# ---------------------------------------------------------------------- the check fails when it must


def _action(name: str, *params: Param) -> Action:
    """An action that is not registered: only for proving the check, never dispatched."""

    def handler(kg: Any, p: dict[str, Any]) -> Any:
        raise AssertionError("never called")

    return Action(name, "An action made up to prove that the parity check notices it.", params, handler)


def test_an_action_without_a_command_fails_the_check() -> None:
    made_up = _action("forget", _tool.PARAMETERS["name"].but(required=True))
    problems = parity_problems([*_tool.registry().values(), made_up], COMMANDS)
    assert problems == ["the action forget has no command `kgtoolkit forget`"]


def test_a_parameter_without_an_option_fails_the_check() -> None:
    stats = _tool.registry()["stats"]
    widened = _action("stats", *stats.params, _tool.PARAMETERS["as_of"])
    assert parity_problems([stats], COMMANDS) == []
    assert parity_problems([widened], COMMANDS) == ["stats.as_of: the command `stats` has no argument or option for it"]


def test_a_parameter_of_another_meaning_fails_the_check() -> None:
    query = _tool.registry()["query"]
    changed = _action(
        "query",
        *(
            p.but(default=5) if p.name == "offset" else p.but(type="string") if p.name == "current_only" else p
            for p in query.params
        ),
    )
    assert parity_problems([changed], COMMANDS) == [
        "query.current_only (the command's current): the tool takes a JSON string, the command a boolean",
        "query.offset (the command's offset): default 5 in the tool, 0 on the command line",
    ]
