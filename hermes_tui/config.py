"""Settings with Hermes's defaults, resolved as flags > environment > <home>/config.toml >
<home>/config.yaml (Hermes's own settings, with <home>/.env) > defaults.

Owns: the typed `Settings` tree, the home-folder layout (`Home`: created 0700, a warning line
for an existing looser one), TOML loading with strict validation (unknown keys, wrong types and
out-of-range numbers are a one-line `ConfigError` naming where the value came from: the file and
key, the environment variable or the flag), the Hermes layer (`hermes_config`: config.yaml's keys
translated into ours, validated by the same rules and named "config.yaml: 'key'"; .env's values
act as environment variables below the real ones, never copied into `os.environ`), and
provider/key resolution (which provider runs, with which key and base URL). Never imports
Textual, Rich or an SDK.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import tomllib
from collections import ChainMap
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_type_hints

from hermes_tui.config_chain import KEYS as CHAIN_KEYS
from hermes_tui.config_chain import ChainConfigError, ChainSettings, parse_chain
from hermes_tui.config_quick import KEY as QUICK_COMMANDS_KEY
from hermes_tui.config_quick import QuickCommand, QuickCommandsError, parse_quick_commands
from hermes_tui.hermes_config import HermesConfigError, HermesLayer, load_hermes_layer
from hermes_tui.store.file_modes import PRIVATE_DIR_MODE, looser_than, make_private_dir, permission_bits
from hermes_tui.store.regular_files import FileTooLargeError, read_regular_bytes

DEFAULT_HOME = "~/.hermes-tui"
MAX_CONFIG_BYTES = 1 << 20  # config.toml is read whole; anything bigger is a mistake (or /dev/zero)
PROVIDERS = ("demo", "openai", "anthropic")


class ConfigError(Exception):
    """A configuration problem the user can fix; its message is one clear line."""


# --------------------------------------------------------------------------- sections


@dataclass
class ModelSettings:
    provider: str = ""  # "" = auto: anthropic key > openai key > demo
    name: str = ""  # "" = the provider's default model
    base_url: str = ""
    api_key: str = field(default="", repr=False)  # never rendered: it may come from .env or config.yaml
    context_length: int = 0  # 0 = known window for the model, else 128,000
    max_tokens: int = 4096
    reasoning_effort: str = ""


@dataclass
class CompressionSettings:
    enabled: bool = True
    threshold: float = 0.50
    target_ratio: float = 0.20
    protect_first_n: int = 3
    protect_last_n: int = 20
    hygiene_hard_message_limit: int = 400
    abort_on_summary_failure: bool = False
    # True: compact in place as Hermes does since 2026-06 (one session id for life, the replaced rows
    # kept as compacted); False (ours): continue in a child session. A Hermes home's config.yaml
    # gives Hermes's default, true, unless it says otherwise.
    in_place: bool = False


@dataclass
class AuxiliaryTaskSettings:
    provider: str = "auto"
    model: str = ""
    base_url: str = ""
    api_key: str = field(default="", repr=False)
    timeout: float = 120.0


@dataclass
class AuxiliarySettings:
    compression: AuxiliaryTaskSettings = field(default_factory=AuxiliaryTaskSettings)


@dataclass
class AgentSettings:
    max_turns: int = 90
    api_max_retries: int = 3


@dataclass
class MemorySettings:
    memory_enabled: bool = True
    user_profile_enabled: bool = True
    memory_char_limit: int = 2200
    user_char_limit: int = 1375
    nudge_interval: int = 10
    provider: str = ""  # one external memory provider by name ("session_recall" ships with hermes-tui)


@dataclass
class SkillsSettings:
    creation_nudge_interval: int = 10
    guard_agent_created: bool = False  # screen SKILL.md the agent writes for injection patterns


@dataclass
class PluginsSettings:
    enabled: list[str] = field(default_factory=list)  # plugin names (entry-point group hermes_tui.plugins)


@dataclass
class SessionsSettings:
    auto_title: bool = True  # name an untitled session after its first exchange (the auxiliary model)
    auto_prune: bool = False
    retention_days: int = 90
    vacuum_after_prune: bool = True
    min_interval_hours: int = 24


@dataclass
class PromptCachingSettings:
    cache_ttl: str = "5m"


@dataclass
class ToolsSettings:
    read_max_bytes: int = 256_000
    terminal_timeout: float = 120.0
    auto_approve: bool = False
    allow_paths: list[str] = field(default_factory=list)  # folders outside cwd the file tools use freely
    permission_mode: str = "ask"  # ask | accept_edits | read_only | yolo (core/tools/permissions.py)
    env_passthrough: list[str] = field(default_factory=list)  # credential-like variables shell commands still see
    env_strip: list[str] = field(default_factory=list)  # more variables removed from shell commands' environment


@dataclass
class DisplaySettings:
    # What Enter does with text typed while a turn runs (Hermes's display.busy_input_mode):
    # queue (sent as its own turn when the turn ends), steer (read by the model after its next
    # tool call) or interrupt (the turn stops and the text goes out next). Alt+Enter does the other
    # of queue and steer.
    busy_input_mode: str = "queue"


@dataclass
class SecuritySettings:
    # Mask secrets (API keys, tokens, passwords, private keys) in everything written or exported:
    # state.db rows and records, titles, /save and `export` files, headless output. False = verbatim.
    redact_secrets: bool = True


@dataclass
class TimeoutsSettings:
    """Provider-call limits in seconds (0 = off): fail a dead provider in well under a minute per attempt.

    connect: TCP/TLS set-up. first_byte: from sending the request until the model streams its first
    content. idle: the longest silence between two pieces of content; keep-alives do not count.
    """

    connect: float = 10.0
    first_byte: float = 45.0
    idle: float = 30.0

    def problem(self) -> str:
        """'' when valid, else one line naming the bad key (the same rules config loading applies)."""
        for name in ("connect", "first_byte", "idle"):
            value = getattr(self, name)
            ok, wanted = NUMBER_RULES[f"timeouts.{name}"]
            if not math.isfinite(value) or not ok(value):
                return f"'timeouts.{name}' must be {wanted}, got {value}"
        return ""


# --- [checkpoints] (issue 19): shadow-git snapshots of the working folder before the agent changes files


@dataclass
class CheckpointsSettings:
    """Snapshots of the working folder in a shadow git store under the home (`core/checkpoints`)."""

    enabled: bool = True  # off: no snapshots are taken (--no-checkpoints); /rollback still reads old ones
    max_file_mb: float = 10.0  # files larger than this are left out of a snapshot
    max_files: int = 50_000  # a folder with more files than this is not snapshotted (said in the Review log)
    retention_days: int = 7  # snapshots older than this, and folders untouched as long, are pruned


CHECKPOINT_NUMBER_RULES: dict[str, tuple[Callable[[float], bool], str]] = {
    "checkpoints.max_file_mb": (lambda v: v > 0, "> 0 MB"),
    "checkpoints.max_files": (lambda v: v >= 1, ">= 1"),
    "checkpoints.retention_days": (lambda v: v >= 1, ">= 1"),
}
# Flags that turn a setting off (`--no-checkpoints` sets checkpoints.enabled = false).
NEGATING_FLAG_SETTINGS: dict[str, str] = {"--no-checkpoints": "checkpoints.enabled"}

# --- end [checkpoints]


@dataclass
class Settings:
    model: ModelSettings = field(default_factory=ModelSettings)
    compression: CompressionSettings = field(default_factory=CompressionSettings)
    auxiliary: AuxiliarySettings = field(default_factory=AuxiliarySettings)
    agent: AgentSettings = field(default_factory=AgentSettings)
    memory: MemorySettings = field(default_factory=MemorySettings)
    skills: SkillsSettings = field(default_factory=SkillsSettings)
    plugins: PluginsSettings = field(default_factory=PluginsSettings)
    sessions: SessionsSettings = field(default_factory=SessionsSettings)
    prompt_caching: PromptCachingSettings = field(default_factory=PromptCachingSettings)
    tools: ToolsSettings = field(default_factory=ToolsSettings)
    display: DisplaySettings = field(default_factory=DisplaySettings)
    timeouts: TimeoutsSettings = field(default_factory=TimeoutsSettings)
    security: SecuritySettings = field(default_factory=SecuritySettings)
    checkpoints: CheckpointsSettings = field(default_factory=CheckpointsSettings)
    # fallback providers/models and credential pools (top-level keys, see hermes_tui.config_chain)
    chain: ChainSettings = field(default_factory=ChainSettings)
    keymap: dict[str, str] = field(default_factory=dict)  # binding id -> keys (checked by keymap_config)
    quick_commands: dict[str, QuickCommand] = field(default_factory=dict)  # [quick_commands.NAME] (config_quick)
    mcp_servers: dict[str, Any] = field(default_factory=dict)  # NAME -> table (checked by core.mcp.config)
    # Not settings: the home's .env (environment variables below the real ones) and where
    # model.provider came from (named in provider errors).
    dotenv: dict[str, str] = field(default_factory=dict, repr=False)
    provider_origin: str = ""
    # where each value not at its default came from (dotted key -> the file, variable or flag), for /config
    origins: dict[str, str] = field(default_factory=dict, repr=False, compare=False)


# Settings fields no file or flag sets through the generic loader.
_INTERNAL_FIELDS = frozenset({"chain", "mcp_servers", "quick_commands", "dotenv", "provider_origin", "origins"})


def env_view(settings: Settings, env: Mapping[str, str] | None = None) -> Mapping[str, str]:
    """The environment the settings see: the real one (or `env`) over the home's .env."""
    return ChainMap(dict(os.environ if env is None else env), settings.dotenv)


# --------------------------------------------------------------------------- home


@dataclass(frozen=True)
class Home:
    """The home folder, laid out like Hermes's so `--home ~/.hermes` works on a real install."""

    root: Path

    @property
    def state_db(self) -> Path:
        return self.root / "state.db"

    @property
    def config_file(self) -> Path:
        return self.root / "config.toml"

    @property
    def memories(self) -> Path:
        return self.root / "memories"

    @property
    def skills(self) -> Path:
        return self.root / "skills"

    def ensure(self) -> Home:
        """Create the folders, private (0700) from the start; a home we cannot use is a ConfigError."""
        try:
            for folder in (self.root, self.memories, self.skills):
                make_private_dir(folder)
        except OSError as exc:
            raise ConfigError(f"cannot use home folder {self.root}: {exc.strerror or exc}") from None
        if not os.access(self.root, os.R_OK | os.W_OK | os.X_OK):
            raise ConfigError(f"cannot use home folder {self.root}: not readable and writable")
        return self

    def require_existing(self) -> Home:
        """For the read commands: the folder must exist and be readable (it may be read-only)."""
        if not self.root.is_dir():
            raise ConfigError(f"home folder {self.root} does not exist")
        if not os.access(self.root, os.R_OK | os.X_OK):
            raise ConfigError(f"cannot read home folder {self.root}")
        return self

    @property
    def writable(self) -> bool:
        """Can state.db be written here (the folder, and the file when it exists)?"""
        folder_ok = os.access(self.root, os.W_OK | os.X_OK)
        return folder_ok and (not self.state_db.exists() or os.access(self.state_db, os.W_OK))

    def permission_warning(self) -> str | None:
        """One line when the existing home folder lets group or others in (it should be 0700)."""
        try:
            mode = permission_bits(self.root)
        except OSError:
            return None
        if not looser_than(mode, PRIVATE_DIR_MODE):
            return None
        return (
            f"warning: home folder {self.root} is {mode:04o}, readable by other users;"
            f" `chmod 700 {self.root}` makes it private"
        )


def resolve_home(flag: str | None = None, env: Mapping[str, str] | None = None) -> Home:
    env = os.environ if env is None else env
    raw = flag or env.get("HERMES_TUI_HOME") or DEFAULT_HOME
    return Home(Path(raw).expanduser())


# --------------------------------------------------------------------------- loading

# The command-line flags that set a setting (the CLI builds its overrides from this table, and an
# error in a flag's value names the flag).
FLAG_SETTINGS: dict[str, str] = {
    "--provider": "model.provider",
    "--model": "model.name",
    "--base-url": "model.base_url",
    "--context-length": "model.context_length",
    "--yes": "tools.auto_approve",
}

_ENV_OVERRIDES: dict[str, str] = {
    "HERMES_TUI_PROVIDER": "model.provider",
    "HERMES_TUI_MODEL": "model.name",
    "HERMES_TUI_BASE_URL": "model.base_url",
    "HERMES_TUI_CONTEXT_LENGTH": "model.context_length",
    "HERMES_REDACT_SECRETS": "security.redact_secrets",  # Hermes's name for the switch
}
_ENV_TRUE = ("1", "true", "yes", "on")
_ENV_FALSE = ("0", "false", "no", "off")

# The smallest context window the agent accepts (the same figure as the core's
# MINIMUM_CONTEXT_LENGTH; a test keeps them equal).
MINIMUM_CONTEXT_LENGTH = 64_000

# Every number in Settings and the values it may take (a test checks that none is missing).
NUMBER_RULES: dict[str, tuple[Callable[[float], bool], str]] = {
    "model.context_length": (
        lambda v: v == 0 or v >= MINIMUM_CONTEXT_LENGTH,
        f"0 (the model's known window) or at least {MINIMUM_CONTEXT_LENGTH:,} tokens",
    ),
    "model.max_tokens": (lambda v: v >= 1, ">= 1"),
    "compression.threshold": (lambda v: 0 < v <= 1, "in (0, 1]"),
    "compression.target_ratio": (lambda v: 0 < v < 1, "in (0, 1)"),
    "compression.protect_first_n": (lambda v: v >= 0, ">= 0"),
    "compression.protect_last_n": (lambda v: v >= 0, ">= 0"),
    "compression.hygiene_hard_message_limit": (lambda v: v >= 1, ">= 1"),
    "auxiliary.compression.timeout": (lambda v: v > 0, "> 0 seconds"),
    "agent.max_turns": (lambda v: v >= 1, ">= 1"),
    "agent.api_max_retries": (lambda v: v >= 0, ">= 0"),
    "memory.memory_char_limit": (lambda v: v >= 1, ">= 1"),
    "memory.user_char_limit": (lambda v: v >= 1, ">= 1"),
    "memory.nudge_interval": (lambda v: v >= 0, ">= 0 (0 = never)"),
    "skills.creation_nudge_interval": (lambda v: v >= 0, ">= 0 (0 = never)"),
    "sessions.retention_days": (lambda v: v >= 1, ">= 1"),
    "sessions.min_interval_hours": (lambda v: v >= 0, ">= 0"),
    "tools.read_max_bytes": (lambda v: v >= 1, ">= 1"),
    "tools.terminal_timeout": (lambda v: v > 0, "> 0 seconds"),
    "timeouts.connect": (lambda v: v >= 0, ">= 0 seconds (0 turns it off)"),
    "timeouts.first_byte": (lambda v: v >= 0, ">= 0 seconds (0 turns it off)"),
    "timeouts.idle": (lambda v: v >= 0, ">= 0 seconds (0 turns it off)"),
}

NUMBER_RULES.update(CHECKPOINT_NUMBER_RULES)

_CHOICES: dict[str, tuple[str, ...]] = {
    "prompt_caching.cache_ttl": ("5m", "1h"),
    "tools.permission_mode": ("ask", "accept_edits", "read_only", "yolo"),
    "display.busy_input_mode": ("queue", "steer", "interrupt"),
}
_URL_SETTINGS = ("model.base_url", "auxiliary.compression.base_url")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class _Origins:
    """Where each setting's value came from, so an error names the flag, variable or file+key."""

    def __init__(self, config_file: Path) -> None:
        self.config_file = config_file
        self._labels: dict[str, str] = {}

    def set(self, dotted: str, label: str) -> None:
        self._labels[dotted] = label

    @property
    def labelled(self) -> set[str]:
        return set(self._labels)

    def label(self, dotted: str) -> str:
        return self._labels.get(dotted) or f"default '{dotted}'"

    def file_label(self, dotted: str) -> str:
        return f"{self.config_file}: '{dotted}'"

    def sources(self) -> dict[str, str]:
        """Each set value's source: the file (without the key), the environment variable or the flag."""
        return {dotted: label.removesuffix(f": '{dotted}'") for dotted, label in self._labels.items()}


def _type_name(tp: Any) -> str:
    names = {
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        str: "a string",
        list[str]: "a list of strings",
        dict[str, str]: "a table of strings",
        dict[str, Any]: "a table",
    }
    return names.get(tp, str(tp))


def _coerce(value: Any, tp: Any, label: str) -> Any:
    if tp is bool:
        if isinstance(value, bool):
            return value
    elif tp is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    elif tp is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if not math.isfinite(value):
                raise ConfigError(f"{label} must be a finite number, got {value!r}")
            return float(value)
    elif tp is str and isinstance(value, str):
        return value
    elif tp == list[str] and isinstance(value, list) and all(isinstance(item, str) for item in value):
        return list(value)
    elif (
        tp in (dict[str, str], dict[str, Any])
        and isinstance(value, Mapping)
        and (tp == dict[str, Any] or all(isinstance(v, str) for v in value.values()))
    ):
        return {str(key): item for key, item in value.items()}
    raise ConfigError(f"{label} must be {_type_name(tp)}, got {type(value).__name__} {value!r}")


def _apply(
    target: Any,
    data: Mapping[str, Any],
    origins: _Origins,
    source: str,
    label_of: Callable[[str], str],
    prefix: str = "",
) -> None:
    """Set `data` (a nested mapping from `source`) on `target`, checking keys and types.

    Records each value's origin label (`label_of(dotted key)`) for the range checks.
    """
    hints = get_type_hints(type(target))
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        label = label_of(dotted)
        if key not in hints or (not prefix and key in _INTERNAL_FIELDS):
            raise ConfigError(f"{source}: unknown key '{dotted}'")
        tp = hints[key]
        if dataclasses.is_dataclass(tp):
            if not isinstance(value, Mapping):
                raise ConfigError(f"{label} must be a table")
            _apply(getattr(target, key), value, origins, source, label_of, dotted + ".")
        else:
            setattr(target, key, _coerce(value, tp, label))
            origins.set(dotted, label)


def _get(settings: Settings, dotted: str) -> Any:
    value: Any = settings
    for part in dotted.split("."):
        value = getattr(value, part)
    return value


def _validate(settings: Settings, origins: _Origins) -> None:
    """Range and choice rules for every value; the error names where the bad value came from."""
    for dotted, (ok, wanted) in NUMBER_RULES.items():
        value = _get(settings, dotted)
        if not ok(value):
            raise ConfigError(f"{origins.label(dotted)} must be {wanted}, got {value!r}")
    for dotted, allowed in _CHOICES.items():
        value = _get(settings, dotted)
        if value not in allowed:
            choices = " or ".join(f'"{choice}"' for choice in allowed)
            raise ConfigError(f"{origins.label(dotted)} must be {choices}, got {value!r}")
    provider = settings.model.provider
    if provider and provider not in PROVIDERS:
        raise ConfigError(
            f"{origins.label('model.provider')}: unknown provider '{provider}' (choose from {', '.join(PROVIDERS)})"
        )
    aux_provider = settings.auxiliary.compression.provider.strip().lower()
    if aux_provider not in ("auto", *PROVIDERS):
        raise ConfigError(
            f"{origins.label('auxiliary.compression.provider')}: unknown provider"
            f" '{settings.auxiliary.compression.provider}' (choose from auto, {', '.join(PROVIDERS)})"
        )
    for dotted in _URL_SETTINGS:
        url = _get(settings, dotted)
        if url and not url.startswith(("http://", "https://")):
            raise ConfigError(f"{origins.label(dotted)} must be an http:// or https:// URL, got {url!r}")
    for entry in settings.tools.allow_paths:
        if not entry.startswith(("/", "~")) or "\0" in entry:
            raise ConfigError(
                f"{origins.label('tools.allow_paths')} entries must be absolute folder paths (starting with / or ~),"
                f" got {entry!r}"
            )
    _validate_env_lists(settings.tools, origins)


def _validate_env_lists(tools: ToolsSettings, origins: _Origins) -> None:
    """[tools] env_passthrough / env_strip: variable names, and no name in both."""
    for key in ("env_passthrough", "env_strip"):
        for name in getattr(tools, key):
            if _ENV_NAME.fullmatch(name) is None:
                raise ConfigError(
                    f"{origins.label(f'tools.{key}')} entries must be environment variable names"
                    f" (letters, digits and _), got {name!r}"
                )
    both = sorted(set(tools.env_passthrough) & set(tools.env_strip))
    if both:
        raise ConfigError(
            f"{origins.label('tools.env_strip')}: {', '.join(both)} is also in 'tools.env_passthrough'; keep it in one"
        )


def load_config_file(path: Path) -> dict[str, Any]:
    """The parsed config.toml, {} when there is none; any problem reading it is one ConfigError line.

    Only a regular file of at most MAX_CONFIG_BYTES is read (a FIFO, a device or /dev/zero behind
    a symlink is refused before it is opened); nesting too deep for the parser is an error too.
    """
    try:
        raw = read_regular_bytes(path, limit=MAX_CONFIG_BYTES)
    except FileNotFoundError:
        return {}
    except FileTooLargeError as exc:
        raise ConfigError(f"{path}: {exc}; a config file is a few KB") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start}); save it as UTF-8") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{path}: not valid TOML: arrays or tables nested too deeply") from None


def _env_layer(
    env: Mapping[str, str], dotenv: Mapping[str, str] | None = None
) -> tuple[dict[str, Any], dict[str, str]]:
    """The settings the environment sets (nested) and, per dotted key, the label of what set it:
    "environment variable X", or the .env line when only the home's .env has it."""
    layer: dict[str, Any] = {}
    labels: dict[str, str] = {}
    for var, dotted in _ENV_OVERRIDES.items():
        raw = env.get(var)
        where = f"environment variable {var}"
        if (raw is None or raw == "") and dotenv:
            raw, where = dotenv.get(var), f".env: {var}"
        if raw is None or raw == "":
            continue
        section, key = dotted.split(".")
        value: Any = raw
        if key == "context_length":
            try:
                value = int(raw.strip())
            except ValueError:
                raise ConfigError(f"{where} must be an integer, got {raw!r}") from None
        elif key == "redact_secrets":
            word = raw.strip().lower()
            if word not in _ENV_TRUE + _ENV_FALSE:
                raise ConfigError(f"{where} must be true or false, got {raw!r}")
            value = word in _ENV_TRUE
        layer.setdefault(section, {})[key] = value
        labels[dotted] = where
    return layer, labels


def _mcp_tables(data: Mapping[str, Any], source: str) -> dict[str, Any]:
    """config.toml's [mcp_servers.NAME] tables, as given (core.mcp.config checks their contents).

    With config.yaml's `mcp_servers:` they make one mapping: a name in both is config.toml's."""
    raw = data.get("mcp_servers", {})
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{source}: 'mcp_servers' must be a table of [mcp_servers.NAME] tables")
    return {str(name): entry for name, entry in raw.items()}


def _chain(hermes: HermesLayer, toml_data: Mapping[str, Any], config_file: Path) -> ChainSettings:
    """The provider chain: config.toml's keys, else config.yaml's (each key on its own)."""
    try:
        from_yaml = parse_chain(hermes.chain)
    except ChainConfigError as exc:
        raise ConfigError(f"{hermes.config_file}: {exc}") from None
    try:
        from_toml = parse_chain(toml_data)
    except ChainConfigError as exc:
        raise ConfigError(f"{config_file}: {exc}") from None
    return ChainSettings(
        fallback_providers=from_toml.fallback_providers
        if "fallback_providers" in toml_data
        else from_yaml.fallback_providers,
        fallback_model=from_toml.fallback_model if "fallback_model" in toml_data else from_yaml.fallback_model,
        credential_pool=from_toml.credential_pool,
    )


def load_hermes_files(home: Home, env: Mapping[str, str]) -> HermesLayer:
    """The home's config.yaml and .env (hermes_config); a problem is one ConfigError line."""
    try:
        return load_hermes_layer(home.root, env)
    except HermesConfigError as exc:
        raise ConfigError(str(exc)) from None


def load_settings(
    home: Home,
    overrides: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    *,
    hermes_files: bool = True,
) -> Settings:
    """Defaults, then config.yaml (+ .env), then config.toml, then the environment, then flag overrides.

    Every ConfigError names the source of the bad value: the file and key, the environment
    variable (or .env line), or the flag (see FLAG_SETTINGS). `hermes_files=False` leaves
    config.yaml and .env out (doctor's check of config.toml alone).
    """
    env = os.environ if env is None else env
    settings = Settings()
    origins = _Origins(home.config_file)
    hermes = load_hermes_files(home, env) if hermes_files else HermesLayer(config_file=home.root / "config.yaml")
    settings.dotenv = dict(hermes.dotenv)
    if hermes.data:
        _apply(settings, hermes.data, origins, str(hermes.config_file), hermes.label)
    data = load_config_file(home.config_file)
    settings.chain = _chain(hermes, data, home.config_file)
    settings.mcp_servers = {**hermes.mcp_servers, **_mcp_tables(data, str(home.config_file))}
    try:
        settings.quick_commands = parse_quick_commands(data.get(QUICK_COMMANDS_KEY))
    except QuickCommandsError as exc:
        raise ConfigError(f"{home.config_file}: {exc}") from None
    data = {
        key: value
        for key, value in data.items()
        if key not in CHAIN_KEYS and key not in ("mcp_servers", QUICK_COMMANDS_KEY)
    }
    yaml_provider = (settings.model.provider, settings.model.base_url) if hermes.get("model.provider") else None
    _apply(settings, data, origins, str(home.config_file), origins.file_label)
    env_layer, env_labels = _env_layer(env, settings.dotenv)
    env_label = lambda dotted: env_labels.get(dotted, f"environment variable {dotted}")  # noqa: E731
    _apply(settings, env_layer, origins, "environment", env_label)
    if overrides:
        flags = {dotted: flag for flag, dotted in FLAG_SETTINGS.items()}
        flag_label = lambda dotted: flags.get(dotted) or f"command line '{dotted}'"  # noqa: E731
        _apply(settings, overrides, origins, "command line", flag_label)
    if hermes.provider_error and "model.provider" not in origins.labelled:
        raise ConfigError(hermes.provider_error)  # the home names a provider we cannot serve: never the demo
    if yaml_provider == (settings.model.provider, settings.model.base_url) and not settings.model.api_key:
        settings.model.api_key = hermes.api_key  # the key Hermes would send that provider (config.yaml/.env)
    if "model.provider" in origins.labelled:
        settings.provider_origin = origins.label("model.provider")
    _validate(settings, origins)
    settings.origins = origins.sources()
    return settings


# --------------------------------------------------------------------------- provider choice


DEFAULT_MODELS = {"demo": "demo", "openai": "gpt-4o-mini", "anthropic": "claude-sonnet-5"}


@dataclass(frozen=True)
class ProviderChoice:
    """Which provider runs, resolved from settings and the environment."""

    provider: str
    model: str
    api_key: str = field(repr=False)  # never rendered: a repr may reach a log
    base_url: str
    is_demo: bool
    reason: str = ""  # why this provider was picked (shown in the UI for the demo fallback)


def resolve_provider(settings: Settings, env: Mapping[str, str] | None = None) -> ProviderChoice:
    """Pick the provider: explicit choice (which then needs its key) or auto by available keys.

    `env` defaults to the real environment over the home's .env (`env_view`).
    """
    env = env_view(settings) if env is None else env
    m = settings.model
    named = f" ({settings.provider_origin})" if settings.provider_origin else ""
    anthropic_key = m.api_key or env.get("ANTHROPIC_API_KEY", "")
    openai_key = m.api_key or env.get("OPENAI_API_KEY", "")
    provider = m.provider
    if provider and provider not in PROVIDERS:
        raise ConfigError(f"unknown provider '{provider}' (choose from {', '.join(PROVIDERS)})")
    reason = ""
    if not provider:
        if env.get("ANTHROPIC_API_KEY") or (m.api_key and m.name.startswith("claude")):
            provider = "anthropic"
        elif env.get("OPENAI_API_KEY") or m.api_key:
            provider = "openai"
        else:
            provider = "demo"
            reason = "no API key configured (set ANTHROPIC_API_KEY or OPENAI_API_KEY)"
    if provider == "demo":
        return ProviderChoice("demo", "demo", "", "", True, reason or "demo provider selected")
    if provider == "openai":
        base_url = m.base_url or env.get("OPENAI_BASE_URL", "")
        key = openai_key
        if not key and base_url:
            key = "not-needed"  # local servers (Ollama, vLLM, LM Studio) accept any key
        if not key:
            raise ConfigError(f"provider 'openai'{named} needs an API key: set OPENAI_API_KEY (or --base-url)")
        return ProviderChoice("openai", m.name or DEFAULT_MODELS["openai"], key, base_url, False)
    base_url = m.base_url or env.get("ANTHROPIC_BASE_URL", "")
    key = anthropic_key
    if not key and base_url:
        key = "not-needed"
    if not key:
        raise ConfigError(f"provider 'anthropic'{named} needs an API key: set ANTHROPIC_API_KEY (or --base-url)")
    return ProviderChoice("anthropic", m.name or DEFAULT_MODELS["anthropic"], key, base_url, False)
