"""`hermes-tui completion bash|zsh|fish`: shell completion scripts generated from the argument parser.

Nothing is typed twice: `commands_from_parser` reads the commands, their options, the fixed
choices of their values and of their positional arguments from the one argparse parser
(`hermes_tui.cli.build_parser`), keeping only the global flags a command takes (the caller says
which, from `cli.GLOBAL_FLAGS`). The three renderers turn that into a script: bash (a `complete -F`
function), zsh (the same function through zsh's `bashcompinit`) and fish (`complete` lines with
each option's help). Values are completed where they are known: fixed choices, the provider
names, folders for `--home`, files for `--output`. Pure text work: no imports beyond argparse.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

SHELLS = ("bash", "zsh", "fish")
PROGRAM = "hermes-tui"
FOLDER_METAVARS = ("DIR",)
FILE_METAVARS = ("FILE",)


@dataclass(frozen=True)
class Option:
    spellings: tuple[str, ...]  # "--continue", "-c"
    help: str
    takes_value: bool
    values: tuple[str, ...] = ()  # the words its value may be (empty: any)
    complete: str = ""  # "dir" or "file": complete the value as a path


@dataclass(frozen=True)
class CommandSpec:
    name: str  # "" = hermes-tui itself (the TUI)
    help: str
    options: tuple[Option, ...]
    arguments: tuple[str, ...] = ()  # the words its first positional argument may be


def _option(action: argparse.Action, value_words: Mapping[str, Sequence[str]]) -> Option:
    takes_value = action.nargs not in (0, "?")  # an optional value ("-c [TITLE]") is not completed
    long_name = next((s for s in action.option_strings if s.startswith("--")), action.option_strings[0])
    values = tuple(str(c) for c in action.choices) if action.choices else tuple(value_words.get(long_name, ()))
    metavar = action.metavar if isinstance(action.metavar, str) else ""
    complete = "dir" if metavar in FOLDER_METAVARS else "file" if metavar in FILE_METAVARS else ""
    help_text = action.help if isinstance(action.help, str) and action.help != argparse.SUPPRESS else ""
    return Option(tuple(action.option_strings), help_text, takes_value, values, complete)


def _spec(
    name: str,
    help_text: str,
    parser: argparse.ArgumentParser,
    applies: Callable[[str, str], bool],
    value_words: Mapping[str, Sequence[str]],
) -> CommandSpec:
    options: list[Option] = []
    arguments: tuple[str, ...] = ()
    for action in parser._actions:  # argparse keeps no public list of a parser's actions
        if isinstance(action, argparse._SubParsersAction):
            continue
        if not action.option_strings:
            if action.choices and not arguments:
                arguments = tuple(str(c) for c in action.choices)
            continue
        if not applies(action.option_strings[0], name):
            continue
        options.append(_option(action, value_words))
    return CommandSpec(name, help_text, tuple(options), arguments)


def commands_from_parser(
    parser: argparse.ArgumentParser,
    applies: Callable[[str, str], bool],
    value_words: Mapping[str, Sequence[str]] | None = None,
) -> list[CommandSpec]:
    """hermes-tui itself (named "") and each command, with the options `applies(flag, command)` keeps."""
    words = value_words or {}
    specs = [_spec("", parser.description or "", parser, applies, words)]
    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
        for name, sub in action.choices.items():
            specs.append(_spec(name, helps.get(name, ""), sub, applies, words))
    return specs


# --------------------------------------------------------------------------- bash (and zsh)


def _words(items: Sequence[str]) -> str:
    return " ".join(items)


def bash_script(specs: Sequence[CommandSpec]) -> str:
    commands = [spec.name for spec in specs if spec.name]
    valued = sorted({s for spec in specs for option in spec.options if option.takes_value for s in option.spellings})
    value_cases: list[str] = []
    option_cases: list[str] = []
    for spec in specs:
        for option in spec.options:
            if not option.takes_value:
                continue
            pattern = "|".join(f'"{spec.name}:{s}"' for s in option.spellings)
            if option.values:
                body = f'COMPREPLY=($(compgen -W "{_words(option.values)}" -- "$cur"))'
            elif option.complete == "dir":
                body = 'COMPREPLY=($(compgen -d -- "$cur"))'
            elif option.complete == "file":
                body = 'COMPREPLY=($(compgen -f -- "$cur"))'
            else:
                body = "COMPREPLY=()"
            value_cases.append(f"        {pattern}) {body}; return ;;")
        flags = _words([s for option in spec.options for s in option.spellings])
        words = f'"{_words(spec.arguments)}"' if spec.arguments else '""'
        if not spec.name:
            words = f'"{_words(commands)}"'
        option_cases.append(f'        "{spec.name}") flags="{flags}"; words={words} ;;')
    lines = [
        f"# {PROGRAM} completion for bash (generated by `{PROGRAM} completion bash`)",
        "_hermes_tui() {",
        '    local cur="${COMP_WORDS[COMP_CWORD]}" prev="" command="" word i skip=0',
        '    (( COMP_CWORD > 0 )) && prev="${COMP_WORDS[COMP_CWORD-1]}"',
        "    for (( i = 1; i < COMP_CWORD; i++ )); do",
        '        word="${COMP_WORDS[i]}"',
        "        if (( skip )); then skip=0; continue; fi",
        '        case "$word" in',
        f"            {'|'.join(valued) or '--'}) skip=1 ;;",
        f'            {"|".join(commands)}) command="$word"; break ;;',
        "        esac",
        "    done",
        '    if [[ -n "$prev" && "$prev" == -* ]]; then case "$command:$prev" in',
        *value_cases,
        "    esac; fi",
        '    local flags="" words=""',
        '    case "$command" in',
        *option_cases,
        "    esac",
        '    if [[ "$cur" == -* ]]; then',
        '        COMPREPLY=($(compgen -W "$flags" -- "$cur"))',
        "    else",
        '        COMPREPLY=($(compgen -W "$words" -- "$cur"))',
        "    fi",
        "}",
        f"complete -F _hermes_tui {PROGRAM}",
        "",
    ]
    return "\n".join(lines)


def zsh_script(specs: Sequence[CommandSpec]) -> str:
    return "\n".join(
        [
            f"# {PROGRAM} completion for zsh (generated by `{PROGRAM} completion zsh`): the bash",
            "# completion through zsh's bashcompinit.",
            "autoload -Uz compinit bashcompinit",
            "(( $+functions[compdef] )) || compinit",
            "bashcompinit",
            bash_script(specs).split("\n", 1)[1],
        ]
    )


# --------------------------------------------------------------------------- fish


def _fish_quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def fish_script(specs: Sequence[CommandSpec]) -> str:
    commands = [spec.name for spec in specs if spec.name]
    lines = [
        f"# {PROGRAM} completion for fish (generated by `{PROGRAM} completion fish`)",
        f"complete -c {PROGRAM} -f",
    ]
    for spec in specs:
        if spec.name:
            condition = f"__fish_seen_subcommand_from {spec.name}"
            lines.append(f"complete -c {PROGRAM} -n '__fish_use_subcommand' -a {spec.name} -d {_fish_quote(spec.help)}")
        else:
            condition = "not __fish_seen_subcommand_from " + " ".join(commands)
        for option in spec.options:
            parts = [f"complete -c {PROGRAM} -n {_fish_quote(condition)}"]
            for spelling in option.spellings:
                parts.append(f"-l {spelling[2:]}" if spelling.startswith("--") else f"-s {spelling[1:]}")
            if option.values:
                parts.append(f"-x -a {_fish_quote(' '.join(option.values))}")
            elif option.complete == "dir":
                parts.append("-x -a '(__fish_complete_directories)'")
            elif option.complete == "file":
                parts.append("-r -F")
            elif option.takes_value:
                parts.append("-x")
            if option.help:
                parts.append(f"-d {_fish_quote(option.help)}")
            lines.append(" ".join(parts))
        if spec.name and spec.arguments:
            lines.append(
                f"complete -c {PROGRAM} -n {_fish_quote(condition)} -a {_fish_quote(' '.join(spec.arguments))}"
            )
    return "\n".join(lines) + "\n"


RENDERERS: dict[str, Callable[[Sequence[CommandSpec]], str]] = {
    "bash": bash_script,
    "zsh": zsh_script,
    "fish": fish_script,
}


def completion_script(shell: str, specs: Sequence[CommandSpec]) -> str:
    """The completion script for `shell` (one of SHELLS)."""
    return RENDERERS[shell](specs)
