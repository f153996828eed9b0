"""Hermes's own settings files — `<home>/config.yaml` and `<home>/.env` — read as Hermes reads them.

With `--home ~/.hermes` the provider, model, compression and memory settings the user gave
Hermes apply here too. `load_hermes_layer` reads both files and translates every Hermes key we
have a setting for into the nested dict `config.toml` produces (so config.py's loading,
validation and origin labels work unchanged); keys we have no setting for are ignored quietly.

- `config.yaml`: a regular file of at most 1 MB (the regular-file reader), parsed with PyYAML's
  safe loader; a document whose aliases expand to more than `MAX_YAML_NODES` nodes (a "billion
  laughs") or that nests too deeply is refused before anything walks it. `${VAR}` references in
  values are expanded from the environment, as Hermes expands them. Hermes's legacy spellings are
  understood: `model: "name"`, root-level `provider`/`base_url`/`context_length`/`max_turns`,
  `api_base`, `model.model`/`model.name`.
- `.env`: KEY=VALUE lines as Hermes's loader reads them (`export ` prefixes, `#` comments, single
  or double quotes with `\\"`/`\\\\` escapes in double quotes, a UTF-8 BOM). Its values act as
  environment variables below the real environment; they are never put into `os.environ` (so
  they never reach a tool's subprocess) and never logged.
- Providers: Hermes's provider names map onto ours — `anthropic` (and the Anthropic-wire MiniMax
  endpoints) onto `anthropic`, everything that speaks OpenAI chat completions (`custom` and its
  local aliases, `openrouter`, `openai`, `lmstudio`, DeepSeek, xAI, …, a named `providers:` /
  `custom_providers:` entry) onto `openai` with its base URL — and the key is the one Hermes
  would send: `model.api_key`, then the provider's own variables; for a custom endpoint only a
  variable gated on its host (Hermes never sends OPENAI_API_KEY to an unrelated server), else
  "no-key-required". A provider we cannot serve (OAuth sign-ins, Bedrock, Codex, …) is one line
  naming the file and key, never the demo. With no provider named, Hermes's own auto-detection
  is followed (a `base_url` means that endpoint; OPENROUTER_API_KEY/OPENAI_API_KEY mean
  OpenRouter; ANTHROPIC_API_KEY means Anthropic).
- `compression.in_place`: Hermes's default is true, so a home with a config.yaml that does not
  mention it compacts in place, as Hermes would in that home (config.toml can still say false).
- `fallback_providers` / `fallback_model` become config.toml's chain shape, `mcp_servers` passes
  through unchanged.

Every problem is a `HermesConfigError` whose text is one line naming the file and the key.
Standard library and PyYAML only; nothing here imports the rest of hermes-tui but the file reader.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from hermes_tui.store.regular_files import FileTooLargeError, read_regular_bytes

CONFIG_YAML = "config.yaml"
DOTENV = ".env"
MAX_YAML_BYTES = 1 << 20
MAX_DOTENV_BYTES = 256 << 10
MAX_YAML_NODES = 100_000
NO_KEY = "no-key-required"  # what Hermes sends a custom endpoint that needs no key

_TRUE_WORDS = ("1", "true", "yes", "on")
_FALSE_WORDS = ("0", "false", "no", "off", "")
_ENV_REF = re.compile(r"\$\{([^}]+)\}")

# Hermes key -> (our dotted key, kind). Kinds: bool, int, float, str.
_SIMPLE: dict[str, tuple[str, str]] = {
    "model.context_length": ("model.context_length", "int"),
    "model.max_tokens": ("model.max_tokens", "int"),
    "compression.enabled": ("compression.enabled", "bool"),
    "compression.threshold": ("compression.threshold", "float"),
    "compression.target_ratio": ("compression.target_ratio", "float"),
    "compression.protect_first_n": ("compression.protect_first_n", "int"),
    "compression.protect_last_n": ("compression.protect_last_n", "int"),
    "compression.hygiene_hard_message_limit": ("compression.hygiene_hard_message_limit", "int"),
    "compression.abort_on_summary_failure": ("compression.abort_on_summary_failure", "bool"),
    "compression.in_place": ("compression.in_place", "bool"),
    "auxiliary.compression.model": ("auxiliary.compression.model", "str"),
    "auxiliary.compression.timeout": ("auxiliary.compression.timeout", "float"),
    "agent.max_turns": ("agent.max_turns", "int"),
    "agent.api_max_retries": ("agent.api_max_retries", "int"),
    "memory.memory_enabled": ("memory.memory_enabled", "bool"),
    "memory.user_profile_enabled": ("memory.user_profile_enabled", "bool"),
    "memory.memory_char_limit": ("memory.memory_char_limit", "int"),
    "memory.user_char_limit": ("memory.user_char_limit", "int"),
    "memory.nudge_interval": ("memory.nudge_interval", "int"),
    "memory.provider": ("memory.provider", "str"),
    "skills.creation_nudge_interval": ("skills.creation_nudge_interval", "int"),
    "skills.guard_agent_created": ("skills.guard_agent_created", "bool"),
    "sessions.auto_prune": ("sessions.auto_prune", "bool"),
    "sessions.retention_days": ("sessions.retention_days", "int"),
    "sessions.vacuum_after_prune": ("sessions.vacuum_after_prune", "bool"),
    "sessions.min_interval_hours": ("sessions.min_interval_hours", "int"),
    "prompt_caching.cache_ttl": ("prompt_caching.cache_ttl", "str"),
    "security.redact_secrets": ("security.redact_secrets", "bool"),
    "display.busy_input_mode": ("display.busy_input_mode", "word"),
}

# Hermes's provider aliases (hermes_cli/auth.py) for the providers we can serve.
_ALIASES = {
    "claude": "anthropic",
    "claude-code": "anthropic",
    "glm": "zai",
    "z-ai": "zai",
    "z.ai": "zai",
    "zhipu": "zai",
    "x-ai": "xai",
    "x.ai": "xai",
    "grok": "xai",
    "kimi": "kimi-coding",
    "kimi-for-coding": "kimi-coding",
    "moonshot": "kimi-coding",
    "kimi-cn": "kimi-coding-cn",
    "moonshot-cn": "kimi-coding-cn",
    "hf": "huggingface",
    "hugging-face": "huggingface",
    "huggingface-hub": "huggingface",
    "lm-studio": "lmstudio",
    "lm_studio": "lmstudio",
    "minimax-china": "minimax-cn",
    "minimax_cn": "minimax-cn",
    "openai-api": "openai",
    "ollama": "custom",
    "vllm": "custom",
    "llamacpp": "custom",
    "llama.cpp": "custom",
    "llama-cpp": "custom",
}
OPENROUTER_BASE_URL = "https://openrouter.ai/api/v1"
# Hermes provider -> (our provider, its endpoint, the variables holding its key, in order).
_KNOWN: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "anthropic": ("anthropic", "", ("ANTHROPIC_API_KEY", "ANTHROPIC_TOKEN")),
    "minimax": ("anthropic", "https://api.minimax.io/anthropic", ("MINIMAX_API_KEY",)),
    "minimax-cn": ("anthropic", "https://api.minimaxi.com/anthropic", ("MINIMAX_CN_API_KEY",)),
    "openai": ("openai", "https://api.openai.com/v1", ("OPENAI_API_KEY",)),
    "openrouter": ("openai", OPENROUTER_BASE_URL, ("OPENROUTER_API_KEY", "OPENAI_API_KEY")),
    "lmstudio": ("openai", "http://127.0.0.1:1234/v1", ("LM_API_KEY",)),
    "deepseek": ("openai", "https://api.deepseek.com/v1", ("DEEPSEEK_API_KEY",)),
    "xai": ("openai", "https://api.x.ai/v1", ("XAI_API_KEY",)),
    "zai": ("openai", "https://api.z.ai/api/paas/v4", ("GLM_API_KEY", "ZAI_API_KEY", "Z_AI_API_KEY")),
    "kimi-coding": ("openai", "https://api.moonshot.ai/v1", ("KIMI_API_KEY", "KIMI_CODING_API_KEY")),
    "kimi-coding-cn": ("openai", "https://api.moonshot.cn/v1", ("KIMI_CN_API_KEY",)),
    "nvidia": ("openai", "https://integrate.api.nvidia.com/v1", ("NVIDIA_API_KEY",)),
    "huggingface": ("openai", "https://router.huggingface.co/v1", ("HF_TOKEN",)),
    "arcee": ("openai", "https://api.arcee.ai/api/v1", ("ARCEEAI_API_KEY",)),
    "gmi": ("openai", "https://api.gmi-serving.com/v1", ("GMI_API_KEY",)),
    "alibaba": ("openai", "https://dashscope-intl.aliyuncs.com/compatible-mode/v1", ("DASHSCOPE_API_KEY",)),
    "xiaomi": ("openai", "https://api.xiaomimimo.com/v1", ("XIAOMI_API_KEY",)),
}
_CANNOT_SERVE = {
    "nous": "signs in with OAuth (Nous Portal)",
    "openai-codex": "signs in with OAuth (ChatGPT Codex)",
    "xai-oauth": "signs in with OAuth",
    "qwen-oauth": "signs in with OAuth",
    "minimax-oauth": "signs in with OAuth",
    "copilot": "signs in through GitHub Copilot",
    "copilot-acp": "runs an external agent process",
    "bedrock": "uses AWS credentials and Bedrock's own API",
    "azure-foundry": "uses Azure Foundry's own routing",
    "gemini": "uses Google's own API",
}


class HermesConfigError(ValueError):
    """A problem in config.yaml or .env; the message is one line naming the file and key."""


@dataclass
class HermesLayer:
    """What a Hermes home's files set, in config.toml's shape, and where each value came from."""

    config_file: Path
    present: bool = False  # config.yaml exists
    data: dict[str, Any] = field(default_factory=dict)  # nested, our section/key names
    hermes_keys: dict[str, str] = field(default_factory=dict)  # our dotted key -> the Hermes key it came from
    chain: dict[str, Any] = field(default_factory=dict)  # fallback_providers / fallback_model, config.toml's shape
    mcp_servers: dict[str, Any] = field(default_factory=dict)
    dotenv: dict[str, str] = field(default_factory=dict, repr=False)
    api_key: str = field(default="", repr=False)  # the key Hermes would send the provider config.yaml names
    provider_error: str = ""  # config.yaml names a provider we cannot serve (raised unless overridden)

    def label(self, dotted: str) -> str:
        return f"{self.config_file}: '{self.hermes_keys.get(dotted, dotted)}'"

    def set(self, dotted: str, value: Any, hermes_key: str) -> None:
        section: dict[str, Any] = self.data
        *parents, last = dotted.split(".")
        for part in parents:
            section = section.setdefault(part, {})
        section[last] = value
        self.hermes_keys[dotted] = hermes_key

    def get(self, dotted: str) -> Any:
        value: Any = self.data
        for part in dotted.split("."):
            if not isinstance(value, dict) or part not in value:
                return None
            value = value[part]
        return value


# --------------------------------------------------------------------------- .env


def parse_env_value(raw: str) -> str:
    """One value as Hermes's .env reader takes it: quotes stripped, `\\"` and `\\\\` in double quotes."""
    value = raw.strip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        inner, out, i = value[1:-1], [], 0
        while i < len(inner):
            if inner[i] == "\\" and i + 1 < len(inner) and inner[i + 1] in '"\\':
                out.append(inner[i + 1])
                i += 2
                continue
            out.append(inner[i])
            i += 1
        return "".join(out)
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1]
    return value


def parse_dotenv(text: str) -> dict[str, str]:
    """KEY=VALUE lines (`export ` prefix, `#` comments, blank lines skipped); the last one of a key wins."""
    values: dict[str, str] = {}
    for line in text.lstrip("\ufeff").splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        if line.startswith("export "):
            line = line[len("export ") :]
        key, _, value = line.partition("=")
        key = key.strip()
        if key:
            values[key] = parse_env_value(value)
    return values


def read_dotenv(path: Path) -> dict[str, str]:
    """`<home>/.env` parsed ({} when there is none); any problem reading it is one line."""
    try:
        raw = read_regular_bytes(path, limit=MAX_DOTENV_BYTES)
    except FileNotFoundError:
        return {}
    except FileTooLargeError as exc:
        raise HermesConfigError(f"{path}: {exc}; a .env file is a few KB") from None
    except OSError as exc:
        raise HermesConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return parse_dotenv(raw.decode("utf-8", "replace"))


# --------------------------------------------------------------------------- config.yaml


def _count_nodes(root: Any, path: Path) -> None:
    """Refuse a document whose nodes, aliases expanded, exceed MAX_YAML_NODES (walked, never built)."""
    import yaml

    seen = 0
    stack = [root]
    while stack:
        node = stack.pop()
        seen += 1
        if seen > MAX_YAML_NODES:
            raise HermesConfigError(
                f"{path}: more than {MAX_YAML_NODES:,} YAML nodes once its aliases are expanded; refused"
            )
        if isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                stack.extend((key, value))


def parse_yaml(text: str, path: Path) -> dict[str, Any]:
    """The document as a dict ({} for an empty file); a bad document is one HermesConfigError line."""
    import yaml

    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return {}
        _count_nodes(node, path)
        data = loader.construct_document(node)
    except yaml.YAMLError as exc:
        first = " ".join(str(exc).split())
        raise HermesConfigError(f"{path}: not valid YAML: {first[:200]}") from None
    except RecursionError:
        raise HermesConfigError(f"{path}: not valid YAML: nested too deeply") from None
    finally:
        loader.dispose()
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise HermesConfigError(f"{path}: must be a mapping of settings, got {type(data).__name__}")
    return data


def read_config_yaml(path: Path) -> dict[str, Any] | None:
    """config.yaml parsed, None when there is none."""
    try:
        raw = read_regular_bytes(path, limit=MAX_YAML_BYTES)
    except FileNotFoundError:
        return None
    except FileTooLargeError as exc:
        raise HermesConfigError(f"{path}: {exc}; a config file is a few KB") from None
    except OSError as exc:
        raise HermesConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise HermesConfigError(f"{path}: not UTF-8 text (byte {exc.start}); save it as UTF-8") from None
    return parse_yaml(text, path)


def _expand(value: Any, env: Mapping[str, str]) -> Any:
    """`${VAR}` in string values replaced from `env` (an unknown reference stays as written)."""
    if isinstance(value, str):
        return _ENV_REF.sub(lambda m: env.get(m.group(1), m.group(0)), value)
    if isinstance(value, dict):
        return {key: _expand(item, env) for key, item in value.items()}
    if isinstance(value, list):
        return [_expand(item, env) for item in value]
    return value


def _coerce(value: Any, kind: str) -> Any:
    """Hermes reads numbers and switches leniently ("0.5", "yes"); anything else is left for validation."""
    if kind == "bool" and isinstance(value, str) and value.strip().lower() in _TRUE_WORDS + _FALSE_WORDS:
        return value.strip().lower() in _TRUE_WORDS
    if kind in ("int", "float") and isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return value
        if kind == "int" and math.isfinite(number) and number == int(number):
            return int(number)
        return number if kind == "float" else value
    if kind == "float" and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if kind == "word" and isinstance(value, str):  # a choice, read as Hermes does ("Steer " is "steer")
        return value.strip().lower()
    return value


def _section(data: Mapping[str, Any], dotted: str) -> Any:
    value: Any = data
    for part in dotted.split("."):
        if not isinstance(value, Mapping):
            return None
        value = value.get(part)
    return value


def _model_section(data: dict[str, Any]) -> dict[str, Any]:
    """`model` as Hermes normalises it: a string is the model name; root-level and alias keys fill gaps."""
    raw = data.get("model")
    model: dict[str, Any] = dict(raw) if isinstance(raw, Mapping) else ({"default": raw} if raw else {})
    for key in ("provider", "base_url", "context_length"):
        if data.get(key) and not model.get(key):
            model[key] = data[key]
    for alias in (data.get("api_base"), model.get("api_base")):
        if alias and not model.get("base_url"):
            model["base_url"] = alias
    if not model.get("default"):
        model["default"] = model.get("model") or model.get("name") or ""
    return model


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _host(url: str) -> str:
    try:
        return (urlparse(url).hostname or "").lower().rstrip(".")
    except ValueError:
        return ""


def _host_is(url: str, domain: str) -> bool:
    host = _host(url)
    return host == domain or host.endswith("." + domain)


def _host_derived_key(url: str, env: Mapping[str, str]) -> str:
    """Hermes's `<VENDOR>_API_KEY` guess from a custom endpoint's host (never for IPs or localhost)."""
    host = _host(url)
    if not host or host == "localhost" or ":" in host or any(ch.isdigit() for ch in host.split(".")[-1]):
        return ""
    labels = [label for label in host.split(".") if label]
    while labels and labels[0] in ("api", "www"):
        labels.pop(0)
    if len(labels) < 2:
        return ""
    vendor = "".join(ch if ch.isalnum() else "_" for ch in labels[-2]).upper()
    if not vendor or not vendor[0].isalpha() or vendor in ("OPENAI", "OPENROUTER", "OLLAMA"):
        return ""
    return env.get(f"{vendor}_API_KEY", "").strip()


def _custom_key(base_url: str, explicit: str, key_env: str, env: Mapping[str, str]) -> str:
    """The key Hermes sends a custom endpoint: explicit, else only variables gated on its host."""
    candidates = [
        explicit,
        env.get(key_env, "") if key_env else "",
        env.get("OLLAMA_API_KEY", "") if _host_is(base_url, "ollama.com") else "",
        env.get("OPENAI_API_KEY", "") if _host_is(base_url, "openai.com") else "",
        env.get("OPENROUTER_API_KEY", "") if _host_is(base_url, "openrouter.ai") else "",
        _host_derived_key(base_url, env),
    ]
    return next((c.strip() for c in candidates if c and c.strip()), "") or NO_KEY


def _named_custom(data: Mapping[str, Any], name: str) -> dict[str, Any] | None:
    """A `providers: {name: {...}}` or `custom_providers: [{name: ...}]` entry, as Hermes names them."""
    providers = data.get("providers")
    if isinstance(providers, Mapping):
        for key, entry in providers.items():
            if isinstance(entry, Mapping) and (str(key).lower() == name or _text(entry.get("name")).lower() == name):
                return dict(entry)
    custom = data.get("custom_providers")
    if isinstance(custom, list):
        for entry in custom:
            if isinstance(entry, Mapping) and _text(entry.get("name")).lower() == name:
                return dict(entry)
    return None


@dataclass(frozen=True)
class _Route:
    provider: str  # ours: openai | anthropic
    base_url: str
    api_key: str


def resolve_route(
    name: str,
    *,
    base_url: str,
    api_key: str,
    api_mode: str,
    data: Mapping[str, Any],
    env: Mapping[str, str],
    where: str,
) -> _Route:
    """Hermes's provider `name` (+ the entry's base_url/api_key) as one of ours; HermesConfigError if we cannot."""
    name = _ALIASES.get(name, name)
    if name in _CANNOT_SERVE:
        raise HermesConfigError(
            f"{where}: provider '{name}' {_CANNOT_SERVE[name]}, which hermes-tui cannot use; choose an API-key"
            " provider (openrouter, anthropic, openai, custom with a base_url, …) here or in config.toml"
        )
    wire_anthropic = api_mode.lower() in ("anthropic_messages", "anthropic")
    if name in _KNOWN:
        ours, default_url, variables = _KNOWN[name]
        if name == "openrouter":
            default_url = env.get("OPENROUTER_BASE_URL", "").strip() or default_url
            base_url = ""  # Hermes uses model.base_url for OpenRouter only when it is custom
        key = api_key or next((env[v].strip() for v in variables if env.get(v, "").strip()), "")
        return _Route(ours, (base_url or default_url).rstrip("/"), key)
    entry = _named_custom(data, name) if name != "custom" else None
    if entry is not None:
        url = _text(entry.get("base_url")) or _text(entry.get("url")) or _text(entry.get("api"))
        if not url:
            raise HermesConfigError(f"{where}: the custom provider '{name}' has no base_url")
        mode = _text(entry.get("api_mode")) or _text(entry.get("transport"))
        explicit = _text(entry.get("api_key")) or _text(entry.get("apiKey"))
        key_env = _text(entry.get("key_env")) or _text(entry.get("api_key_env"))
        ours = "anthropic" if mode.lower() in ("anthropic_messages", "anthropic") else "openai"
        return _Route(ours, url.rstrip("/"), _custom_key(url, explicit, key_env, env))
    if name == "custom":
        url = base_url or env.get("CUSTOM_BASE_URL", "").strip()
        if not url:
            raise HermesConfigError(f"{where}: provider 'custom' needs a base_url (the endpoint to call)")
        return _Route("anthropic" if wire_anthropic else "openai", url.rstrip("/"), _custom_key(url, api_key, "", env))
    raise HermesConfigError(
        f"{where}: unknown provider '{name}' (hermes-tui serves anthropic, openai, openrouter, custom and the"
        " OpenAI-compatible API-key providers)"
    )


def _auto_route(model: Mapping[str, Any], env: Mapping[str, str]) -> _Route | None:
    """Hermes's auto-detection when config.yaml names no provider."""
    base_url = _text(model.get("base_url"))
    if base_url:
        return _Route("openai", base_url.rstrip("/"), _text(model.get("api_key")) or NO_KEY)
    if env.get("OPENROUTER_API_KEY", "").strip() or env.get("OPENAI_API_KEY", "").strip():
        key = env.get("OPENROUTER_API_KEY", "").strip() or env.get("OPENAI_API_KEY", "").strip()
        return _Route("openai", env.get("OPENROUTER_BASE_URL", "").strip() or OPENROUTER_BASE_URL, key)
    if env.get("ANTHROPIC_API_KEY", "").strip():
        return _Route("anthropic", "", env["ANTHROPIC_API_KEY"].strip())
    return None


def _translate_model(layer: HermesLayer, data: dict[str, Any], env: Mapping[str, str]) -> None:
    model = _model_section(data)
    name = _text(model.get("default"))
    if name:
        layer.set("model.name", name, "model.default")
    provider = _text(model.get("provider")).lower()
    try:
        if provider and provider != "auto":
            route: _Route | None = resolve_route(
                provider,
                base_url=_text(model.get("base_url")),
                api_key=_text(model.get("api_key")) or _text(model.get("api")),
                api_mode=_text(model.get("api_mode")),
                data=data,
                env=env,
                where=f"{layer.config_file}: 'model.provider'",
            )
        else:
            route = _auto_route(model, env)
    except HermesConfigError as exc:
        layer.provider_error = str(exc)
        return
    if route is not None:
        layer.set("model.provider", route.provider, "model.provider")
        layer.set("model.base_url", route.base_url, "model.base_url")
        layer.api_key = route.api_key


def _translate_auxiliary(layer: HermesLayer, data: dict[str, Any], env: Mapping[str, str]) -> None:
    aux = _section(data, "auxiliary.compression")
    if not isinstance(aux, Mapping):
        return
    provider = _text(aux.get("provider")).lower() or "auto"
    base_url = _text(aux.get("base_url"))
    if provider in ("auto", "main") and not base_url:
        return
    where = f"{layer.config_file}: 'auxiliary.compression.provider'"
    route = resolve_route(
        "custom" if base_url and provider in ("auto", "main") else provider,
        base_url=base_url,
        api_key=_text(aux.get("api_key")),
        api_mode="",
        data=data,
        env=env,
        where=where,
    )
    layer.set("auxiliary.compression.provider", route.provider, "auxiliary.compression.provider")
    layer.set("auxiliary.compression.base_url", route.base_url, "auxiliary.compression.base_url")
    layer.set("auxiliary.compression.api_key", route.api_key, "auxiliary.compression.api_key")


def _fallback_entry(raw: Any, data: dict[str, Any], env: Mapping[str, str], where: str) -> dict[str, Any]:
    if isinstance(raw, str):
        return {"model": raw}
    if not isinstance(raw, Mapping):
        raise HermesConfigError(f"{where} must be a mapping with provider and model")
    entry: dict[str, Any] = {"model": _text(raw.get("model"))}
    provider = _text(raw.get("provider")).lower()
    if provider:
        route = resolve_route(
            provider,
            base_url=_text(raw.get("base_url")),
            api_key=_text(raw.get("api_key")),
            api_mode=_text(raw.get("api_mode")),
            data=data,
            env=env,
            where=f"{where}.provider",
        )
        entry.update(provider=route.provider, base_url=route.base_url, api_key=route.api_key)
    length = _coerce(raw.get("context_length"), "int")
    if isinstance(length, int) and not isinstance(length, bool) and length > 0:
        entry["context_length"] = length
    return entry


def _translate_chain(layer: HermesLayer, data: dict[str, Any], env: Mapping[str, str]) -> None:
    path = layer.config_file
    providers = data.get("fallback_providers")
    if providers:
        if not isinstance(providers, list):
            raise HermesConfigError(f"{path}: 'fallback_providers' must be a list of providers")
        layer.chain["fallback_providers"] = [
            _fallback_entry(item, data, env, f"{path}: 'fallback_providers[{i}]'") for i, item in enumerate(providers)
        ]
    model = data.get("fallback_model")
    if isinstance(model, list):  # Hermes also takes a list here: a chain after fallback_providers
        chain = layer.chain.setdefault("fallback_providers", [])
        chain.extend(_fallback_entry(item, data, env, f"{path}: 'fallback_model[{i}]'") for i, item in enumerate(model))
    elif model:
        layer.chain["fallback_model"] = _fallback_entry(model, data, env, f"{path}: 'fallback_model'")


def _translate(layer: HermesLayer, data: dict[str, Any], env: Mapping[str, str]) -> None:
    if "max_turns" in data and not isinstance(_section(data, "agent.max_turns"), int):
        data = {**data, "agent": {**(data.get("agent") or {}), "max_turns": data["max_turns"]}}
    model = _model_section(data)
    for hermes_key, (dotted, kind) in _SIMPLE.items():
        source = model.get(hermes_key.split(".", 1)[1]) if hermes_key.startswith("model.") else None
        value = source if hermes_key.startswith("model.") else _section(data, hermes_key)
        if value is None:
            continue
        layer.set(dotted, _coerce(value, kind), hermes_key)
    if layer.get("compression.in_place") is None:
        layer.set("compression.in_place", True, "compression.in_place (Hermes's default)")
    _translate_model(layer, data, env)
    _translate_auxiliary(layer, data, env)
    _translate_chain(layer, data, env)
    servers = data.get("mcp_servers")
    if servers is not None:
        if not isinstance(servers, Mapping):
            raise HermesConfigError(f"{layer.config_file}: 'mcp_servers' must be a mapping of server names")
        layer.mcp_servers = dict(servers)


def load_hermes_layer(home: Path, environ: Mapping[str, str]) -> HermesLayer:
    """Read `<home>/.env` and `<home>/config.yaml` and translate them (module docstring).

    `environ` is the real environment; it wins over .env when `${VAR}` and keys are looked up.
    """
    layer = HermesLayer(config_file=home / CONFIG_YAML)
    layer.dotenv = read_dotenv(home / DOTENV)
    data = read_config_yaml(layer.config_file)
    if data is None:
        return layer
    layer.present = True
    env = {**layer.dotenv, **environ}
    _translate(layer, _expand(data, env), env)
    return layer
