"""Settings with Hermes's defaults, resolved as flags > environment > <home>/config.toml > defaults.

Owns: the typed `Settings` tree, the home-folder layout (`Home`), TOML loading with strict
validation (unknown keys and wrong types are a `ConfigError` naming the file and the key),
and provider/key resolution (which provider runs, with which key and base URL).
Never imports Textual, Rich or an SDK.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_type_hints

DEFAULT_HOME = "~/.hermes-tui"
PROVIDERS = ("demo", "openai", "anthropic")


class ConfigError(Exception):
    """A configuration problem the user can fix; its message is one clear line."""


# --------------------------------------------------------------------------- sections


@dataclass
class ModelSettings:
    provider: str = ""  # "" = auto: anthropic key > openai key > demo
    name: str = ""  # "" = the provider's default model
    base_url: str = ""
    api_key: str = ""
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


@dataclass
class AuxiliaryTaskSettings:
    provider: str = "auto"
    model: str = ""
    base_url: str = ""
    api_key: str = ""
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


@dataclass
class SkillsSettings:
    creation_nudge_interval: int = 10


@dataclass
class SessionsSettings:
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
        """'' when valid, else one line naming the bad key."""
        for name in ("connect", "first_byte", "idle"):
            value = getattr(self, name)
            if not value >= 0 or value == float("inf"):
                return f"'timeouts.{name}' must be a number of seconds >= 0 (0 turns it off), got {value}"
        return ""


@dataclass
class Settings:
    model: ModelSettings = field(default_factory=ModelSettings)
    compression: CompressionSettings = field(default_factory=CompressionSettings)
    auxiliary: AuxiliarySettings = field(default_factory=AuxiliarySettings)
    agent: AgentSettings = field(default_factory=AgentSettings)
    memory: MemorySettings = field(default_factory=MemorySettings)
    skills: SkillsSettings = field(default_factory=SkillsSettings)
    sessions: SessionsSettings = field(default_factory=SessionsSettings)
    prompt_caching: PromptCachingSettings = field(default_factory=PromptCachingSettings)
    tools: ToolsSettings = field(default_factory=ToolsSettings)
    timeouts: TimeoutsSettings = field(default_factory=TimeoutsSettings)


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
        """Create the folders; a home we cannot create or write is a ConfigError."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            self.memories.mkdir(exist_ok=True)
            self.skills.mkdir(exist_ok=True)
        except OSError as exc:
            raise ConfigError(f"cannot use home folder {self.root}: {exc.strerror or exc}") from None
        if not os.access(self.root, os.R_OK | os.W_OK | os.X_OK):
            raise ConfigError(f"cannot use home folder {self.root}: not readable and writable")
        return self


def resolve_home(flag: str | None = None, env: Mapping[str, str] | None = None) -> Home:
    env = os.environ if env is None else env
    raw = flag or env.get("HERMES_TUI_HOME") or DEFAULT_HOME
    return Home(Path(raw).expanduser())


# --------------------------------------------------------------------------- loading


def _type_name(tp: Any) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string"}.get(tp, str(tp))


def _coerce(value: Any, tp: Any, where: str) -> Any:
    if tp is bool:
        if isinstance(value, bool):
            return value
    elif tp is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    elif tp is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    elif tp is str and isinstance(value, str):
        return value
    raise ConfigError(f"{where} must be {_type_name(tp)}, got {type(value).__name__} {value!r}")


def _apply(target: Any, data: Mapping[str, Any], origin: str, prefix: str = "") -> None:
    hints = get_type_hints(type(target))
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        if key not in hints:
            raise ConfigError(f"{origin}: unknown key '{dotted}'")
        tp = hints[key]
        if dataclasses.is_dataclass(tp):
            if not isinstance(value, Mapping):
                raise ConfigError(f"{origin}: '{dotted}' must be a table")
            _apply(getattr(target, key), value, origin, dotted + ".")
        else:
            setattr(target, key, _coerce(value, tp, f"{origin}: '{dotted}'"))


def _validate(settings: Settings, origin: str) -> None:
    c = settings.compression
    if not 0.0 < c.threshold <= 1.0:
        raise ConfigError(f"{origin}: 'compression.threshold' must be in (0, 1], got {c.threshold}")
    if not 0.0 < c.target_ratio < 1.0:
        raise ConfigError(f"{origin}: 'compression.target_ratio' must be in (0, 1), got {c.target_ratio}")
    for name in ("protect_first_n", "protect_last_n"):
        if getattr(c, name) < 0:
            raise ConfigError(f"{origin}: 'compression.{name}' must be >= 0")
    if settings.model.provider and settings.model.provider not in PROVIDERS:
        raise ConfigError(
            f"{origin}: unknown provider '{settings.model.provider}' (choose from {', '.join(PROVIDERS)})"
        )
    if settings.model.context_length < 0:
        raise ConfigError(f"{origin}: 'model.context_length' must be >= 0")
    if settings.agent.max_turns < 1:
        raise ConfigError(f"{origin}: 'agent.max_turns' must be >= 1")
    if settings.prompt_caching.cache_ttl not in ("5m", "1h"):
        raise ConfigError(f'{origin}: \'prompt_caching.cache_ttl\' must be "5m" or "1h"')


def load_config_file(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None


_ENV_OVERRIDES: dict[str, tuple[str, str]] = {
    "HERMES_TUI_PROVIDER": ("model", "provider"),
    "HERMES_TUI_MODEL": ("model", "name"),
    "HERMES_TUI_BASE_URL": ("model", "base_url"),
    "HERMES_TUI_CONTEXT_LENGTH": ("model", "context_length"),
}


def _env_layer(env: Mapping[str, str]) -> dict[str, Any]:
    layer: dict[str, Any] = {}
    for var, (section, key) in _ENV_OVERRIDES.items():
        raw = env.get(var)
        if raw is None or raw == "":
            continue
        value: Any = raw
        if key == "context_length":
            try:
                value = int(raw)
            except ValueError:
                raise ConfigError(f"environment: {var} must be an integer, got {raw!r}") from None
        layer.setdefault(section, {})[key] = value
    return layer


def load_settings(
    home: Home,
    overrides: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
) -> Settings:
    """Defaults, then config.toml, then the environment, then flag overrides (nested dict)."""
    env = os.environ if env is None else env
    settings = Settings()
    _apply(settings, load_config_file(home.config_file), str(home.config_file))
    _apply(settings, _env_layer(env), "environment")
    if overrides:
        _apply(settings, overrides, "command line")
    _validate(settings, str(home.config_file))
    return settings


# --------------------------------------------------------------------------- provider choice


DEFAULT_MODELS = {"demo": "demo", "openai": "gpt-4o-mini", "anthropic": "claude-sonnet-5"}


@dataclass(frozen=True)
class ProviderChoice:
    """Which provider runs, resolved from settings and the environment."""

    provider: str
    model: str
    api_key: str
    base_url: str
    is_demo: bool
    reason: str = ""  # why this provider was picked (shown in the UI for the demo fallback)


def resolve_provider(settings: Settings, env: Mapping[str, str] | None = None) -> ProviderChoice:
    """Pick the provider: explicit choice (which then needs its key) or auto by available keys."""
    env = os.environ if env is None else env
    m = settings.model
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
            raise ConfigError("provider 'openai' needs an API key: set OPENAI_API_KEY (or --base-url)")
        return ProviderChoice("openai", m.name or DEFAULT_MODELS["openai"], key, base_url, False)
    base_url = m.base_url or env.get("ANTHROPIC_BASE_URL", "")
    key = anthropic_key
    if not key and base_url:
        key = "not-needed"
    if not key:
        raise ConfigError("provider 'anthropic' needs an API key: set ANTHROPIC_API_KEY (or --base-url)")
    return ProviderChoice("anthropic", m.name or DEFAULT_MODELS["anthropic"], key, base_url, False)
