"""Screening text the agent wants to remember: prompt injection and exfiltration patterns.

Memory entries and skills are read back into every future system prompt, so a hostile web page or
tool output that talks the model into "remembering" an instruction would persist it. `scan_text`
returns the reason a text looks like an injected instruction, a smuggling trick or a secret-leaking
command, or "" when it looks like an ordinary note. The patterns are deliberately narrow: a false
positive refuses a legitimate note (the model can reword it), a false negative persists an attack.
"""

from __future__ import annotations

import re

INVISIBLE_CHARS = frozenset("\u200b\u200c\u200d\u2060\ufeff\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")

_INJECTION = [
    (
        r"\b(ignore|disregard|forget|override)\s+(all\s+|any\s+)?(the\s+)?(previous|prior|above|earlier|preceding)\s+"
        r"(instructions|directions|rules|prompts?|messages)",
        "an instruction to ignore earlier instructions",
    ),
    (
        r"\b(ignore|disregard|bypass)\s+(your|the)\s+(system\s+prompt|instructions|guidelines|safety)",
        "an instruction to ignore the system prompt",
    ),
    (r"\byou\s+are\s+now\s+(a|an|in|no\s+longer)\b", "an attempt to change the agent's role"),
    (r"\bnew\s+(system\s+)?instructions\s*:", "injected instructions"),
    (r"<\|?\s*(im_start|im_end|system|endoftext)\s*\|?>", "chat-template control tokens"),
    (r"</?\s*system\s*>", "a fake system tag"),
    (
        r"\b(do\s+not|don't|never)\s+(tell|inform|mention\s+(this\s+)?to)\s+the\s+user\b",
        "an instruction to hide something from the user",
    ),
    (r"\bwithout\s+(telling|asking|informing)\s+the\s+user\b", "an instruction to act behind the user's back"),
]

_EXFILTRATION = [
    (
        r"\b(curl|wget|nc|ncat|netcat)\b[^\n]*(\$\(|`|\$\{?[A-Z_]*(KEY|TOKEN|SECRET|PASSWORD))",
        "a command that sends local data or secrets over the network",
    ),
    (
        r"\b(curl|wget)\b[^\n]*(-d|--data|--upload-file|-F|-T)\s*[^\n]*(\.ssh|\.env|\.aws|id_rsa|/etc/passwd|credentials)",
        "a command that uploads credentials",
    ),
    (
        r"(cat|base64|xxd)\s+[^\n|]*(\.ssh/|id_rsa|\.aws/credentials|\.netrc)[^\n]*\|",
        "a pipeline that reads private keys or credentials",
    ),
    (
        r"\b(send|post|upload|forward|exfiltrate)\b[^\n]{0,60}\b(api[_ -]?keys?|tokens?|passwords?|secrets?|"
        r"credentials|ssh keys?)\b[^\n]{0,60}\b(to|at)\b",
        "an instruction to send secrets somewhere",
    ),
]

_SECRETS = [
    (r"-----BEGIN [A-Z ]*PRIVATE KEY-----", "a private key"),
    (r"\bsk-(ant-)?[A-Za-z0-9_-]{20,}", "an API key"),
    (r"\bAKIA[0-9A-Z]{16}\b", "an AWS access key"),
    (r"\bgh[pousr]_[A-Za-z0-9]{30,}", "a GitHub token"),
    (r"\bxox[abpr]-[A-Za-z0-9-]{10,}", "a Slack token"),
]

_COMPILED = [(re.compile(pattern, re.IGNORECASE), reason) for pattern, reason in (*_INJECTION, *_EXFILTRATION)] + [
    (re.compile(pattern), reason) for pattern, reason in _SECRETS
]


def scan_text(text: str) -> str:
    """Why `text` must not be remembered ("" when it looks fine)."""
    hidden = sorted({f"U+{ord(ch):04X}" for ch in text if ch in INVISIBLE_CHARS})
    if hidden:
        return f"invisible or direction-changing characters ({', '.join(hidden)})"
    for pattern, reason in _COMPILED:
        if pattern.search(text):
            return reason
    return ""
