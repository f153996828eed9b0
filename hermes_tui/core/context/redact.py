"""Secret redaction for text that leaves its origin: stored rows, exports, summaries, printed output.

Owns `redact_sensitive_text(text, *, force=False, code_file=False)`: rule categories applied in a
fixed order (vendor key prefixes, ENV assignments, JSON fields, `key: value` / `key=value`
credentials in prose and config files, password flags of commands, Authorization and
Proxy-Authorization headers of any scheme, Telegram bot tokens, PEM private keys, passwords and
token-only user-info in URLs (Sentry DSNs among them), JWTs, form bodies, E.164 phone numbers),
each gated by a cheap substring pre-check. No rule leaves more than 4 characters of a secret
visible (`mask_token`: "***" or "***" + the last 4). General URL query parameters are
deliberately left alone (redacting them breaks OAuth and magic links); known credential shapes
inside URLs are still caught by the prefix and JWT rules, and a URL's user-info always is.

The switch: HERMES_REDACT_SECRETS is read once, at import; the front-ends then set it from the
settings (`[security] redact_secrets`, which that variable overrides) with
`set_redaction_enabled` at start-up. Nothing reads the environment again, so a command the model
runs (`export HERMES_REDACT_SECRETS=false`) cannot turn redaction off mid-session.
"""

from __future__ import annotations

import os
import re

_FALSE_WORDS = frozenset({"0", "false", "no", "off"})
REDACTION_ENABLED: bool = os.environ.get("HERMES_REDACT_SECRETS", "true").strip().lower() not in _FALSE_WORDS

_MASK = "***"
_MASK_MIN_LENGTH = 18
_VISIBLE_TAIL = 4  # the most characters of a secret any rule leaves visible

_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_NOT_TOKEN_AFTER = r"(?![A-Za-z0-9_\-])"

# Every pattern below starts with a literal (or a small literal set) so the regex engine can skip
# ahead quickly; the "not preceded by a token character" checks are done by hand in the callbacks.

# (literals for the pre-check, regex of the whole token)
_VENDOR_TOKENS: tuple[tuple[tuple[str, ...], str], ...] = (
    # LLM vendors
    (("sk-",), r"sk-[A-Za-z0-9_\-]{10,}"),  # OpenAI, OpenRouter (sk-or-), Anthropic (sk-ant-)
    (("AIza",), r"AIza[0-9A-Za-z_\-]{30,}"),  # Google
    (("pplx-",), r"pplx-[A-Za-z0-9]{10,}"),  # Perplexity
    (("gsk_",), r"gsk_[A-Za-z0-9]{10,}"),  # Groq
    (("xai-",), r"xai-[A-Za-z0-9]{30,}"),  # xAI
    (("sk_",), r"sk_[A-Za-z0-9_]{10,}"),  # ElevenLabs; also Stripe sk_live_/sk_test_
    (("fw-", "fw_"), r"fw[\-_][A-Za-z0-9]{30,}"),  # Fireworks
    (("fpk_",), r"fpk_[A-Za-z0-9]{30,}"),  # Fireworks project keys
    (("hf_",), r"hf_[A-Za-z0-9]{10,}"),  # HuggingFace
    (("r8_",), r"r8_[A-Za-z0-9]{10,}"),  # Replicate
    # GitHub
    (("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), r"gh[pousr]_[A-Za-z0-9]{10,}"),
    (("github_pat_",), r"github_pat_[A-Za-z0-9_]{10,}"),
    # Slack
    (("xoxb-", "xoxa-", "xoxp-", "xoxr-", "xoxs-"), r"xox[baprs]-[A-Za-z0-9\-]{10,}"),
    (("xapp-",), r"xapp-\d+-[A-Za-z0-9\-]{10,}"),  # app-level tokens
    # Notion, Sentry auth tokens
    (("ntn_",), r"ntn_[A-Za-z0-9]{10,}"),
    (("sntrys_", "sntryu_"), r"sntry[su]_[A-Za-z0-9_=+/]{20,}"),
    # search and scraping
    (("tvly-",), r"tvly-[A-Za-z0-9\-]{10,}"),
    (("exa_",), r"exa_[A-Za-z0-9]{10,}"),
    (("fc-",), r"fc-[A-Za-z0-9]{10,}"),
    (("bb_live_",), r"bb_live_[A-Za-z0-9_\-]{10,}"),
    (("fal_",), r"fal_[A-Za-z0-9_\-]{10,}"),
    # Codex encrypted payloads (Fernet)
    (("gAAAA",), r"gAAAA[A-Za-z0-9_\-=]{20,}"),
    # cloud
    (("AKIA",), r"AKIA[0-9A-Z]{16}"),
    (("dop_v1_",), r"dop_v1_[A-Za-z0-9]{10,}"),  # DigitalOcean personal and OAuth tokens
    (("doo_v1_",), r"doo_v1_[A-Za-z0-9]{10,}"),
    # payments and email
    (("rk_live_",), r"rk_live_[A-Za-z0-9]{10,}"),
    (("SG.",), r"SG\.[A-Za-z0-9_\-]{10,}(?:\.[A-Za-z0-9_\-]{10,})?"),
    # package registries
    (("npm_",), r"npm_[A-Za-z0-9]{10,}"),
    (("pypi-",), r"pypi-[A-Za-z0-9_\-]{10,}"),
    # others: AgentMail, Matrix, memory providers
    (("am_",), r"am_[A-Za-z0-9_\-]{10,}"),
    (("syt_",), r"syt_[A-Za-z0-9_\-]{10,}"),
    (("retaindb_",), r"retaindb_[A-Za-z0-9_\-]{10,}"),
    (("hsk-",), r"hsk-[A-Za-z0-9_\-]{10,}"),
    (("mem0_",), r"mem0_[A-Za-z0-9_\-]{10,}"),
    (("brv_",), r"brv_[A-Za-z0-9_\-]{10,}"),
)
_VENDOR_RULES: tuple[tuple[tuple[str, ...], re.Pattern[str]], ...] = tuple(
    (literals, re.compile(pattern + _NOT_TOKEN_AFTER)) for literals, pattern in _VENDOR_TOKENS
)

# Flat (literal, rule) pairs: a rule runs once per literal found (cheap for short texts, and a
# second run over already-masked text finds nothing new).
_VENDOR_LITERALS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (literal, pattern) for literals, pattern in _VENDOR_RULES for literal in literals
)
# Every prefix ending in '-', '_' or '.' is followed by 10+ characters of [A-Za-z0-9_-] in its
# rule, so text without such a run (most prose and code) needs only the few other prefixes checked.
_SEPARATED_RUN_RE = re.compile(r"[\-_.][A-Za-z0-9_\-]{10}")
_UNGATED_PREFIXES = frozenset({"AIza", "gAAAA", "AKIA", "sntrys_", "sntryu_"})
_UNGATED_LITERALS = tuple((literal, rule) for literal, rule in _VENDOR_LITERALS if literal in _UNGATED_PREFIXES)

_ENV_NAME_WORDS = ("API_KEY", "APIKEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH")
_ENV_RE = re.compile("(?:" + "|".join(_ENV_NAME_WORDS) + r")[A-Z0-9_]*(\s*=\s*)(['\"]?)([^\s'\"]+)(\2)")
_ENV_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")

_JSON_KEYS = (
    "api_key|apiKey|token|secret|password|access_token|refresh_token|auth_token|bearer|"
    "secret_value|raw_secret|secret_input|key_material"
)
_JSON_RE = re.compile(r'("(?i:' + _JSON_KEYS + r')"\s*:\s*")((?:[^"\\]|\\.)*)(")')

# `Authorization: <scheme> <credential>` or `Authorization: <credential>`, Proxy-Authorization too,
# as a header line, a curl -H argument or a dict/JSON entry (`"Authorization": "Bearer x"`).
_AUTH_SCHEMES = "bearer|basic|token|digest|negotiate|ntlm|oauth|bot|apikey|api-key|key|hoba|mutual|sso|aws4-hmac-sha256"
_AUTHORIZATION_RE = re.compile(
    r"(?i:authorization)['\"]?[ \t]*[:=][ \t]*['\"]?"
    r"(?:(?i:(" + _AUTH_SCHEMES + r"))[ \t]+)?"
    r"([^\s'\",;]+)"
)
_AUTH_SCHEME_WORDS = frozenset(_AUTH_SCHEMES.split("|"))

_TELEGRAM_RE = re.compile(r":[\-\w]{30,}")

_PEM_RE = re.compile(r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END[A-Z0-9 ]*PRIVATE KEY-----|\Z)")
_PEM_REPLACEMENT = "[REDACTED PRIVATE KEY]"

# scheme://user:password@host — any scheme; the user name stays, the password goes.
_URL_CREDENTIALS_RE = re.compile(r"://([^:/\s@'\"<>]+):([^@\s/'\"<>]+)@")  # after a scheme's last letter
# scheme://TOKEN@host — a credential alone in the user-info (`git remote set-url origin
# https://ghp_x@github.com/...`, Sentry DSNs `https://<key>@o1.ingest.sentry.io/2`). A user name
# alone is no secret, so only what looks like a token goes: 8+ characters with a digit, or 20+.
_URL_TOKEN_USERINFO_RE = re.compile(r"://([^:/\s@'\"<>]{8,})@")
_USERINFO_TOKEN_LENGTH = 20

# `password: x`, `db_password = "x"`, `aws_secret_access_key=...` in prose, YAML, INI, .env and
# command lines: a key name ENDING in one of these words, then `:` or `=` on the same line. Found
# on an ASCII-lowercased copy of the text (no case-insensitive regex: that scans 15x slower).
_KEY_SEPARATOR_RE = re.compile(r"(?:pass(?:word|wd|phrase)|secret|token|key)([ \t]*[:=][ \t]*)")
_VALUE_RE = re.compile(r"\"([^\"\n]+)\"|'([^'\n]+)'|([^\s'\"]+)")
_STRONG_KEY_ENDINGS = (
    "password", "passwd", "passphrase", "secret_access_key", "secretaccesskey", "secret_key", "secretkey",
    "private_key", "privatekey",
)  # fmt: skip
# also words of prose ("the token: embedding"): their value must look like a key
_WEAK_KEY_ENDINGS = ("secret", "token", "api_key", "apikey", "access_key", "accesskey")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_KEY_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.")
_KEY_WORDS = ("pass", "secret", "token", "key")  # looked for in the lower-cased text
# Values that are not secrets: placeholders, references and the words prose puts after "password:".
_NOT_SECRET_VALUES = frozenset(
    {
        "none", "null", "nil", "true", "false", "yes", "no", "required", "optional", "empty", "unset",
        "redacted", "hidden", "is", "was", "must", "should", "will", "can", "the", "a", "an", "to", "be",
        "and", "or", "not", "of", "for", "in", "on", "at", "if", "when", "as", "with",
    }
)  # fmt: skip
_SENTENCE_END = ".,;:!?)"

# Password flags of commands: `mysql -pSECRET`, `sshpass -p SECRET`, `--password=SECRET`, ...
# (No leading look-behinds: a pattern that starts with a literal is found by a fast scan; the
# "not inside a word" checks are done in the callbacks.)
_PASSWORD_OPTION_RE = re.compile(r"--(?:password|passwd|pass)=(['\"]?)([^\s'\"]+)\1")
_PASSWORD_COMMANDS = ("mysql", "mariadb", "sshpass", "redis-cli", "docker", "podman", "mongo")
# One shell segment (up to a newline, |, ; or &) that starts with a command taking a password flag.
_COMMAND_SEGMENT_RE = re.compile(
    r"(?:mysql\w*|mariadb[\w\-]*|sshpass|redis-cli|docker|podman|mongo\w*)(?![\w\-.])[^\n|;&]*"
)
_COMMAND_NAME_CHARS = _WORD_CHARS | {"-", "."}
_MYSQL_P_RE = re.compile(r"(?<=\s)-p(['\"]?)([^\s'\"]+)\1")  # attached only: a bare `-p` asks for it
_SSHPASS_P_RE = re.compile(r"(?<=\s)-p\s*(['\"]?)([^\s'\"]+)\1")
_REDIS_A_RE = re.compile(r"(?<=\s)(?:-a|--pass)\s+(['\"]?)([^\s'\"]+)\1")
_PASSWORD_SPACE_RE = re.compile(r"(?<=\s)--(?:password|passwd)\s+(['\"]?)([^\s'\"\-][^\s'\"]*)\1")

_JWT_RE = re.compile(r"eyJ[A-Za-z0-9_\-]{10,}(?:\.[A-Za-z0-9_\-]{4,}){0,2}(?![A-Za-z0-9_\-.])")

_FORM_BODY_RE = re.compile(r"[A-Za-z0-9_.\-\[\]%]+=[^&\s]*(?:&[A-Za-z0-9_.\-\[\]%]+=[^&\s]*)*")
_FORM_SENSITIVE_KEYS = frozenset(
    {
        "access_token",
        "refresh_token",
        "id_token",
        "token",
        "api_key",
        "apikey",
        "client_secret",
        "password",
        "auth",
        "jwt",
        "session",
        "secret",
        "key",
        "code",
        "signature",
        "x-amz-signature",
    }
)

_PHONE_RE = re.compile(r"\+(\d{7,15})(?![\d\w])")


def mask_token(token: str) -> str:
    """Short tokens become "***"; longer ones keep only their last 4 characters ("***wxyz").

    Already-masked text (starting with "***") is returned as is, so redacting twice changes nothing.
    """
    if token.startswith(_MASK):
        return token
    if len(token) < _MASK_MIN_LENGTH:
        return _MASK
    return f"{_MASK}{token[-_VISIBLE_TAIL:]}"


def _mask_phone(digits: str) -> str:
    if len(digits) >= 10:
        return f"+****{digits[-4:]}"
    return f"+****{digits[-2:]}"


def _preceded_by(text: str, index: int, chars: frozenset[str]) -> bool:
    return index > 0 and text[index - 1] in chars


def _vendor_replacement(m: re.Match[str]) -> str:
    return m.group(0) if _preceded_by(m.string, m.start(), _TOKEN_CHARS) else mask_token(m.group(0))


def _redact_vendor(text: str) -> str:
    literals = _VENDOR_LITERALS if _SEPARATED_RUN_RE.search(text) else _UNGATED_LITERALS
    for literal, rule in literals:
        if literal in text:
            text = rule.sub(_vendor_replacement, text)
    return text


def _env_replacement(m: re.Match[str]) -> str:
    text, start = m.string, m.start()
    while start > 0 and text[start - 1] in _ENV_NAME_CHARS:
        start -= 1
    if _preceded_by(text, start, _WORD_CHARS):
        return m.group(0)
    return m.group(0)[: m.start(1) - m.start()] + f"{m.group(1)}{m.group(2)}{mask_token(m.group(3))}{m.group(4)}"


def _redact_env(text: str) -> str:
    if "=" not in text or not any(word in text for word in _ENV_NAME_WORDS):
        return text
    return _ENV_RE.sub(_env_replacement, text)


def _redact_json(text: str) -> str:
    if '"' not in text or ":" not in text:
        return text
    return _JSON_RE.sub(lambda m: f"{m.group(1)}{mask_token(m.group(2))}{m.group(3)}", text)


def _authorization_replacement(m: re.Match[str]) -> str:
    credential = m.group(2)
    if is_placeholder(credential) or credential.lower() in _AUTH_SCHEME_WORDS:
        return m.group(0)  # `Authorization: $TOKEN`, a scheme named without its credential
    if m.group(1) is None and credential.isalpha() and credential.islower():
        return m.group(0)  # prose: "the Authorization: header is missing"
    whole, start = m.group(0), m.start()
    return whole[: m.start(2) - start] + mask_token(credential)


def _redact_authorization(text: str) -> str:
    if "uthorization" not in text and "UTHORIZATION" not in text:
        return text
    return _AUTHORIZATION_RE.sub(_authorization_replacement, text)


def _redact_telegram(text: str) -> str:
    """`(bot)?<8+ digits>:<30+ token chars>` becomes "bot***" + the last 4 characters."""
    if ":" not in text:
        return text
    pieces: list[str] = []
    last = 0
    for m in _TELEGRAM_RE.finditer(text):
        digits_start = m.start()
        while digits_start > 0 and text[digits_start - 1].isdigit():
            digits_start -= 1
        if m.start() - digits_start < 8 or digits_start < last:
            continue
        before = digits_start - 3 if text[max(0, digits_start - 3) : digits_start] == "bot" else digits_start
        if _preceded_by(text, before, _WORD_CHARS):
            continue
        pieces += [text[last:digits_start], mask_token(text[digits_start : m.end()])]
        last = m.end()
    if not pieces:
        return text
    return "".join(pieces) + text[last:]


def _redact_pem(text: str) -> str:
    if "PRIVATE KEY-----" not in text:
        return text
    return _PEM_RE.sub(_PEM_REPLACEMENT, text)


def _userinfo_token_replacement(m: re.Match[str]) -> str:
    token = m.group(1)
    if not _preceded_by(m.string, m.start(), _TOKEN_CHARS) or token.startswith(_MASK):
        return m.group(0)
    if len(token) < _USERINFO_TOKEN_LENGTH and not any(c.isdigit() for c in token):
        return m.group(0)  # `https://deploy-bot@host`: a user name
    return f"://{mask_token(token)}@"


def _redact_url_credentials(text: str) -> str:
    if "://" not in text or "@" not in text:
        return text
    text = _URL_CREDENTIALS_RE.sub(
        lambda m: f"://{m.group(1)}:{_MASK}@" if _preceded_by(m.string, m.start(), _TOKEN_CHARS) else m.group(0), text
    )
    return _URL_TOKEN_USERINFO_RE.sub(_userinfo_token_replacement, text)


def is_placeholder(value: str) -> bool:
    """`$VAR`, `${VAR}`, `<your password>`, `{{ secret }}`, `%s`, `***`... and prose words."""
    return value.startswith(("$", "<", "{", "%", "*", "[")) or value.lower() in _NOT_SECRET_VALUES


def _key_value_masked(text: str, key_end: int, value: re.Match[str]) -> str | None:
    """The masked `key<sep>value` tail (from `key_end`), or None when the value is no secret."""
    name_start = key_end
    while name_start > 0 and text[name_start - 1] in _KEY_NAME_CHARS:
        name_start -= 1
    if name_start > 0 and text[name_start - 1] in "?&/":
        return None  # a URL query parameter (deliberately kept) or a URL's user name
    name = text[name_start:key_end].lower().replace("-", "_").replace(".", "_")
    strong = name.endswith(_STRONG_KEY_ENDINGS)
    if not strong and not name.endswith(_WEAK_KEY_ENDINGS):
        return None  # `key: value`, `public_key: ...`, `tokens: 3`
    quote = '"' if value.group(1) is not None else "'" if value.group(2) is not None else ""
    secret = value.group(1) if quote == '"' else value.group(2) if quote else value.group(3)
    tail = ""
    if not quote:
        while secret and secret[-1] in _SENTENCE_END:
            secret, tail = secret[:-1], secret[-1] + tail
    if not secret or is_placeholder(secret):
        return None
    if not strong and (secret.isalpha() or len(secret) < 6):
        return None  # "the token: embedding", "secret: sauce" — prose, not a key
    return f"{quote}{mask_token(secret)}{quote}{tail}"


def _redact_key_values(text: str) -> str:
    if "=" not in text and ":" not in text:
        return text
    folded = text.lower()
    if len(folded) != len(text):  # a few non-ASCII characters change length when lowercased
        folded = text.translate(_ASCII_LOWER)
    if not any(word in folded for word in _KEY_WORDS):
        return text
    pieces: list[str] = []
    last = 0
    for hit in _KEY_SEPARATOR_RE.finditer(folded):
        if hit.start() < last:
            continue
        value = _VALUE_RE.match(text, hit.end())
        if value is None:
            continue
        masked = _key_value_masked(text, hit.start(1), value)
        if masked is None:
            continue
        pieces += [text[last : hit.end()], masked]
        last = value.end()
    if not pieces:
        return text
    return "".join(pieces) + text[last:]


def _mask_group_2(m: re.Match[str]) -> str:
    """Mask group 2 (the secret) of a flag match, keeping everything around it."""
    whole, start = m.group(0), m.start()
    return whole[: m.start(2) - start] + mask_token(m.group(2)) + whole[m.end(2) - start :]


def _command_segment_replacement(m: re.Match[str]) -> str:
    segment = m.group(0)
    if _preceded_by(m.string, m.start(), _COMMAND_NAME_CHARS):
        return segment  # "xmysql", "my-docker": not the command
    if segment.startswith(("mysql", "mariadb")):  # -pSECRET (attached only: a bare -p asks for it)
        segment = _MYSQL_P_RE.sub(_mask_group_2, segment)
    elif segment.startswith("sshpass"):  # sshpass -p SECRET
        segment = _SSHPASS_P_RE.sub(_mask_group_2, segment)
    elif segment.startswith("redis-cli"):  # redis-cli -a SECRET
        segment = _REDIS_A_RE.sub(_mask_group_2, segment)
    return _PASSWORD_SPACE_RE.sub(_mask_group_2, segment)  # --password SECRET


def _password_option_replacement(m: re.Match[str]) -> str:
    return m.group(0) if _preceded_by(m.string, m.start(), _COMMAND_NAME_CHARS) else _mask_group_2(m)


def _redact_password_flags(text: str) -> str:
    if "--pass" in text:
        text = _PASSWORD_OPTION_RE.sub(_password_option_replacement, text)
    if ("-p" in text or "-a" in text or "--pass" in text) and any(c in text for c in _PASSWORD_COMMANDS):
        text = _COMMAND_SEGMENT_RE.sub(_command_segment_replacement, text)
    return text


def _redact_jwt(text: str) -> str:
    if "eyJ" not in text:
        return text
    return _JWT_RE.sub(
        lambda m: m.group(0) if _preceded_by(m.string, m.start(), _TOKEN_CHARS) else mask_token(m.group(0)), text
    )


def _redact_form_body(text: str) -> str:
    if "=" not in text:
        return text
    body = text.strip()
    if not body or len(body) > 65_536 or not _FORM_BODY_RE.fullmatch(body):
        return text
    pairs = []
    changed = False
    for pair in body.split("&"):
        key, _, value = pair.partition("=")
        if key.lower() in _FORM_SENSITIVE_KEYS and value:
            pairs.append(f"{key}={mask_token(value)}")
            changed = True
        else:
            pairs.append(pair)
    if not changed:
        return text
    lead = len(text) - len(text.lstrip())
    return text[:lead] + "&".join(pairs) + text[lead + len(body) :]


def _redact_phone(text: str) -> str:
    if "+" not in text:
        return text
    return _PHONE_RE.sub(
        lambda m: m.group(0) if _preceded_by(m.string, m.start(), _WORD_CHARS | {"+"}) else _mask_phone(m.group(1)),
        text,
    )


def redaction_enabled() -> bool:
    """Is redaction on for this process (the settings' `[security] redact_secrets`)?"""
    return REDACTION_ENABLED


def set_redaction_enabled(enabled: bool) -> None:
    """Turn redaction on or off for this process; the front-ends call it once, at start-up, from the settings."""
    global REDACTION_ENABLED
    REDACTION_ENABLED = bool(enabled)


def redact_sensitive_text(text: str, *, force: bool = False, code_file: bool = False) -> str:
    """`text` with credentials masked.

    Off when the switch is off (`redaction_enabled()`), unless `force`. `code_file=True` skips the
    ENV-assignment, JSON-field and `key: value` rules (source code is full of harmless
    `TOKEN = ...` and `password = form["password"]` lines).
    Non-string input is returned unchanged.
    """
    if not isinstance(text, str) or not text:
        return text
    if not (force or REDACTION_ENABLED):
        return text
    text = _redact_vendor(text)
    if not code_file:
        text = _redact_env(text)
        text = _redact_json(text)
        text = _redact_key_values(text)
    text = _redact_password_flags(text)
    text = _redact_authorization(text)
    text = _redact_telegram(text)
    text = _redact_pem(text)
    text = _redact_url_credentials(text)
    text = _redact_jwt(text)
    text = _redact_form_body(text)
    return _redact_phone(text)
