"""redact_sensitive_text: every rule category (positive and near-miss), masking, the global switch
(read at import, then set from the settings), code files and the deliberately unredacted URL query
parameters (§4.3)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from hermes_tui.core.context.redact import mask_token, redact_sensitive_text, redaction_enabled, set_redaction_enabled

REPO_ROOT = Path(__file__).resolve().parents[2]

VENDOR_KEYS = [
    "sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12",
    "sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3",
    "sk-or-v1-0123456789abcdef0123456789",
    "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6",
    "pplx-1234567890abcdefghij",
    "gsk_1234567890abcdefghijkl",
    "xai-1234567890abcdefghijklmnopqrstuv",
    "sk_1234567890abcdefghijkl",
    "hf_1234567890abcdefghijkl",
    "r8_1234567890abcdefghijkl",
    "ghp_1234567890abcdefghijklmnopqrstuvwxyz",
    "gho_1234567890abcdefghijkl",
    "ghu_1234567890abcdefghijkl",
    "ghs_1234567890abcdefghijkl",
    "ghr_1234567890abcdefghijkl",
    "github_pat_11ABCDEFG0123456789_abcdefghij",
    "xoxb-1234567890-abcdefghijkl",
    "xoxp-1234567890-abcdefghijkl",
    "tvly-1234567890abcdefghij",
    "exa_1234567890abcdefghij",
    "fc-1234567890abcdefghij",
    "bb_live_1234567890abcdefghij",
    "fal_1234567890abcdefghij",
    "gAAAAABlZ2V0dGluZ3Rva2VuZm9yY29kZXhlbmNyeXB0ZWQ",
    "AKIAIOSFODNN7EXAMPLE",
    "dop_v1_0123456789abcdef0123456789abcdef",
    "doo_v1_0123456789abcdef0123456789abcdef",
    "sk_live_1234567890abcdefghij",
    "sk_test_1234567890abcdefghij",
    "rk_live_1234567890abcdefghij",
    "SG.abcdefghij1234567890.ABCDEFGHIJ0987654321",
    "npm_1234567890abcdefghijkl",
    "pypi-AgEIcHlwaS5vcmcCJDEyMzQ1Njc4",
    "am_1234567890abcdefghijkl",
    "syt_1234567890abcdefghijkl",
    "retaindb_1234567890abcdefghij",
    "hsk-1234567890abcdefghij",
    "mem0_1234567890abcdefghij",
    "brv_1234567890abcdefghij",
    "fw-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",  # Fireworks, both spellings, and project keys
    "fw_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "fpk_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "ntn_1234567890abcdefghijABCDEFG",  # Notion
    "xapp-1-A0123456789-1234567890123-abcdef0123456789abcdef",  # Slack app-level
    "dop_v1_AbCdEf0123456789abcdef0123456789",  # DigitalOcean, not only lower-case hex
    "doo_v1_0123456789ABCDEFabcdef0123456789",
    "sntrys_eyJpYXQiOjE3MDAwMDAwMDB9_abcDEF123456",  # Sentry auth tokens
]


@pytest.mark.parametrize("key", VENDOR_KEYS)
def test_vendor_prefixes_are_masked(key: str) -> None:
    out = redact_sensitive_text(f"key: {key} (keep it safe)", force=True)
    assert key not in out
    assert mask_token(key) in out
    assert out.startswith("key: ") and out.endswith(" (keep it safe)")


@pytest.mark.parametrize(
    "text",
    [
        "the task-manager sk-short flag",  # too short after the prefix
        "run ask-questions-later.sh",  # prefix inside a word
        "AKIA is an AWS key prefix",
        "use hf_transfer for speed",
        "run fw-update then fw_version_check_for_all_the_devices_in_the_lab",  # Fireworks needs 30+ alnum
        "fw-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-suffix is a branch name",
        "set token_count and ntn_ is Notion's prefix; xapp-1 alone; dop_v1_ too",
        "the xapp-config file and a dop_v1_short token",
    ],
)
def test_vendor_near_misses_are_left_alone(text: str) -> None:
    assert redact_sensitive_text(text, force=True) == text


def test_every_gated_prefix_is_followed_by_the_run_the_gate_looks_for() -> None:
    """The prefix loop is skipped unless `[-_.]` + 10 token characters occur; a new prefix must fit that."""
    from hermes_tui.core.context import redact

    gated = [literal for literal, _rule in redact._VENDOR_LITERALS if literal not in redact._UNGATED_PREFIXES]
    assert gated and all(literal[-1] in "-_." for literal in gated)
    for key in VENDOR_KEYS:  # each sample key opens the gate or starts with an ungated prefix
        assert redact._SEPARATED_RUN_RE.search(key) or key.startswith(tuple(redact._UNGATED_PREFIXES)), key


def test_masking_rule() -> None:
    assert mask_token("short-token") == "***"
    assert mask_token("a" * 17) == "***"
    assert mask_token("abcdef0123456789wxyz") == "***wxyz"  # never more than 4 characters of a secret
    assert mask_token("***wxyz") == "***wxyz"  # masking twice changes nothing


class TestEnvAssignments:
    def test_positive(self) -> None:
        out = redact_sensitive_text('export MY_SERVICE_TOKEN="hunter2-hunter2-hunter2"\nDB_PASSWORD=pw', force=True)
        assert out == 'export MY_SERVICE_TOKEN="***ter2"\nDB_PASSWORD=***'

    def test_near_miss(self) -> None:
        text = "my_token=abc is lowercase; TOKENIZER_PATH is mentioned without a value"
        assert redact_sensitive_text(text, force=True) == text


class TestJsonFields:
    def test_positive(self) -> None:
        out = redact_sensitive_text('{"apiKey": "abcdefghijklmnopqrstu", "Password": "pw"}', force=True)
        assert out == '{"apiKey": "***rstu", "Password": "***"}'

    def test_near_miss(self) -> None:
        text = '{"token_count": "123456789012345678901", "tokens": "abcdefghijklmnopqrstuvwxyz"}'
        assert redact_sensitive_text(text, force=True) == text


class TestAuthorizationHeaders:
    @pytest.mark.parametrize(
        ("text", "redacted"),
        [
            ("Authorization: Bearer abcdefghijklmnopqrstuvwxyz012", "Authorization: Bearer ***z012"),
            ("Authorization: token 0123456789abcdef0123456789abcdef", "Authorization: token ***cdef"),
            ("authorization: TOKEN abc123def456", "authorization: TOKEN ***"),
            ("Proxy-Authorization: Basic dXNlcjpwYXNzd29yZDEyMw==", "Proxy-Authorization: Basic ***Mw=="),
            ("Authorization: dXNlcjpwYXNzd29yZDEyMzQ1Ng", "Authorization: ***Q1Ng"),
            (
                "curl -H 'Authorization: Digest a1b2c3d4e5f6a7b8c9d0' https://api.example.org",
                "curl -H 'Authorization: Digest ***c9d0' https://api.example.org",
            ),
            (
                'headers = {"Authorization": "Bearer abcdef0123456789xyzw"}',
                'headers = {"Authorization": "Bearer ***xyzw"}',
            ),
            ("PROXY-AUTHORIZATION: Bearer 9f8e7d6c5b4a3928", "PROXY-AUTHORIZATION: Bearer ***"),
        ],
    )
    def test_any_scheme_is_masked(self, text: str, redacted: str) -> None:
        assert redact_sensitive_text(text, force=True) == redacted

    @pytest.mark.parametrize(
        "text",
        [
            "The bearer of this letter is welcome.",
            "the Authorization: header is missing",
            "send Authorization: Bearer",
            "Authorization: Bearer $API_TOKEN",
            "Authorization: <token>",
            "Proxy-Authorization: ${PROXY_AUTH}",
        ],
    )
    def test_prose_and_placeholders_stay(self, text: str) -> None:
        assert redact_sensitive_text(text, force=True) == text


class TestTelegram:
    def test_positive(self) -> None:
        out = redact_sensitive_text("bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1 ok", force=True)
        assert out == "bot***saw1 ok"  # the bot id goes too: no more than 4 characters of the token

    def test_near_miss(self) -> None:
        text = "at 12345678:short it failed"
        assert redact_sensitive_text(text, force=True) == text


class TestPrivateKeys:
    def test_positive(self) -> None:
        pem = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE=\n-----END OPENSSH PRIVATE KEY-----"
        assert redact_sensitive_text(f"key:\n{pem}\ndone", force=True) == "key:\n[REDACTED PRIVATE KEY]\ndone"

    def test_unterminated_key_is_still_removed(self) -> None:
        out = redact_sensitive_text("-----BEGIN RSA PRIVATE KEY-----\nMIIEow", force=True)
        assert out == "[REDACTED PRIVATE KEY]"

    def test_near_miss(self) -> None:
        text = "-----BEGIN PUBLIC KEY-----\nMFkwEwYH\n-----END PUBLIC KEY-----"
        assert redact_sensitive_text(text, force=True) == text


class TestConnectionStrings:
    @pytest.mark.parametrize("scheme", ["postgres", "postgresql", "mysql", "mongodb", "mongodb+srv", "redis", "amqp"])
    def test_positive(self, scheme: str) -> None:
        out = redact_sensitive_text(f"url {scheme}://admin:s3cr3t@db.internal:5432/app", force=True)
        assert out == f"url {scheme}://admin:***@db.internal:5432/app"

    @pytest.mark.parametrize(
        ("url", "redacted"),
        [
            ("https://user:pass@example.org/login", "https://user:***@example.org/login"),
            ("ftp://anon:hunter2@files.example.org/", "ftp://anon:***@files.example.org/"),
            (
                "git clone https://x-access-token:abc123def456@github.com/o/r.git",
                "git clone https://x-access-token:***@github.com/o/r.git",
            ),
            ("smb://DOMAIN;bob:Winter2026!@fileserver/share", "smb://DOMAIN;bob:***@fileserver/share"),
        ],
    )
    def test_any_scheme_with_a_password(self, url: str, redacted: str) -> None:
        assert redact_sensitive_text(url, force=True) == redacted

    @pytest.mark.parametrize(
        ("url", "redacted"),
        [
            (
                "git remote set-url origin https://ghx0123456789abcdefABCDEF@github.com/o/r.git",
                "git remote set-url origin https://***CDEF@github.com/o/r.git",
            ),
            (
                "SENTRY_DSN=https://0123456789abcdef0123456789abcdef@o450123.ingest.sentry.io/4501234",
                "SENTRY_DSN=https://***cdef@o450123.ingest.sentry.io/4501234",
            ),
            ("dsn = 'https://a1b2c3d4e5@sentry.example.org/7'", "dsn = 'https://***@sentry.example.org/7'"),
            ("wss://abcdefghijklmnopqrstuvwx@stream.example.org", "wss://***uvwx@stream.example.org"),
        ],
    )
    def test_a_token_alone_in_the_user_info(self, url: str, redacted: str) -> None:
        assert redact_sensitive_text(url, force=True) == redacted

    @pytest.mark.parametrize(
        "text",
        [
            "https://example.org/docs/page?ref=home",  # no user-info at all
            "https://deploy-bot@git.example.org/team/repo.git",  # a user name: no digit, under 20
            "ssh://git@github.com/org/repo.git",
            "see https://example.org/@someone and mail a.person@example.org",
        ],
    )
    def test_user_names_and_plain_urls_stay(self, text: str) -> None:
        assert redact_sensitive_text(text, force=True) == text

    @pytest.mark.parametrize(
        "text",
        [
            "postgres://db.internal:5432/app",
            "ssh://git@github.com:22/org/repo.git",  # a user name alone is no secret
            "mail me at bob@example.org: https://example.org/a:b",
        ],
    )
    def test_near_miss(self, text: str) -> None:
        assert redact_sensitive_text(text, force=True) == text


class TestJwt:
    def test_positive(self) -> None:
        jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N"
        out = redact_sensitive_text(f"token {jwt} end", force=True)
        assert jwt not in out and out == f"token {mask_token(jwt)} end"

    def test_near_miss(self) -> None:
        text = "the string eyJ is a base64 prefix"
        assert redact_sensitive_text(text, force=True) == text


class TestFormBodies:
    def test_positive(self) -> None:
        body = "grant_type=refresh_token&refresh_token=abcdefghijklmnopqrstuv&client_id=app&code=xyz"
        out = redact_sensitive_text(body, force=True)
        assert out == "grant_type=refresh_token&refresh_token=***stuv&client_id=app&code=***"

    def test_near_miss_when_not_the_whole_text(self) -> None:
        text = "the callback got grant_type=refresh_token&client_id=app in the notes"
        assert redact_sensitive_text(text, force=True) == text


class TestPhoneNumbers:
    def test_positive(self) -> None:
        assert redact_sensitive_text("call +14155552671 now", force=True) == "call +****2671 now"
        assert redact_sensitive_text("short +4912345 line", force=True) == "short +****45 line"

    def test_near_miss(self) -> None:
        text = "version +12345 and 1e+1234567 and +1 555"
        assert redact_sensitive_text(text, force=True) == text


def test_url_query_parameters_are_deliberately_kept() -> None:
    text = "open https://example.org/callback?code=abc123&state=xyz&token=plain"
    assert redact_sensitive_text(text, force=True) == text


def test_known_credential_shapes_inside_urls_are_still_caught() -> None:
    out = redact_sensitive_text("https://api.example.org/v1?key=sk-proj-Ab12Cd34Ef56Gh78Ij90", force=True)
    assert "sk-proj-Ab12Cd34Ef56Gh78Ij90" not in out


def test_code_files_skip_env_and_json_rules() -> None:
    text = 'API_TOKEN = "abcdefghijklmnopqrstuvwx"\nconfig = {"password": "abcdefghijklmnopqrstuvwx"}'
    assert redact_sensitive_text(text, force=True, code_file=True) == text
    leaked = "key = 'sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12'"
    assert "Ab12Cd34Ef56Gh78Ij90Kl12" not in redact_sensitive_text(leaked, force=True, code_file=True)


def test_non_text_and_empty_values_pass_through() -> None:
    assert redact_sensitive_text("") == ""
    assert redact_sensitive_text(None) is None  # type: ignore[arg-type]


@pytest.mark.subprocess
@pytest.mark.parametrize(("value", "redacted"), [("false", False), ("0", False), ("true", True), ("", True)])
def test_global_switch_is_read_at_import(value: str, redacted: bool) -> None:
    code = (
        "from hermes_tui.core.context.redact import redact_sensitive_text as r\n"
        "key = 'sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12'\n"
        "print(r(key) != key, r(key, force=True) != key)"
    )
    env = {"PATH": "/usr/bin:/bin", "HERMES_REDACT_SECRETS": value}
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, env=env, capture_output=True, text=True)
    assert out.stdout.split() == [str(redacted), "True"], out.stderr


def test_the_switch_follows_the_setting_and_never_the_environment_later(monkeypatch: pytest.MonkeyPatch) -> None:
    key = "sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12"
    assert redaction_enabled()
    monkeypatch.setenv("HERMES_REDACT_SECRETS", "false")  # what `export HERMES_REDACT_SECRETS=false` would do
    assert redact_sensitive_text(key) != key
    try:
        set_redaction_enabled(False)  # the settings said so at start-up
        assert redact_sensitive_text(key) == key and redact_sensitive_text(key, force=True) != key
    finally:
        set_redaction_enabled(True)


class TestKeyValueCredentials:
    """`password: x`, `password=x` in a sentence, config files with lowercase keys (§4.3 additions)."""

    @pytest.mark.parametrize(
        ("text", "redacted"),
        [
            ("password: hunter2", "password: ***"),
            ("I set password=hunter2 in the notes", "I set password=*** in the notes"),
            ("The login is admin, password: Tr0ub4dor&3.", "The login is admin, password: ***."),
            ("Password: correct-horse-battery-staple", "Password: ***aple"),
            ("db_password = 's3cr3t with spaces'", "db_password = '***aces'"),
            ('passphrase="open sesame 42"', 'passphrase="***"'),
            ("database:\n  user: app\n  password: hunter2\n", "database:\n  user: app\n  password: ***\n"),
            ("secret_key: abcd1234efgh5678", "secret_key: ***"),
            ("client_secret=8f2b1c9d0e7a6b5c4d3e", "client_secret=***4d3e"),
            ("api_key: 8f2b1c9d0e7a6b5c", "api_key: ***"),
            ("auth_token = tok_1234567890abcdef", "auth_token = ***cdef"),
        ],
    )
    def test_positive(self, text: str, redacted: str) -> None:
        assert redact_sensitive_text(text, force=True) == redacted

    def test_lowercase_aws_credentials_file(self) -> None:
        text = (
            "[default]\n"
            "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\n"
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n"
            "region = eu-west-1\n"
        )
        out = redact_sensitive_text(text, force=True)
        assert out == ("[default]\naws_access_key_id = ***MPLE\naws_secret_access_key = ***EKEY\nregion = eu-west-1\n")
        exported = redact_sensitive_text("export aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCY", force=True)
        assert exported == "export aws_secret_access_key=***fiCY"

    @pytest.mark.parametrize(
        "text",
        [
            "Enter your password when prompted, then press Enter.",
            "Forgot your password? Reset it from the login page.",
            "The password policy: at least 12 characters.",
            "Passwords: rotate them every quarter.",
            "the archive is password-protected",
            "password: must be at least 12 characters",
            "password: <your password here>",
            "password: ${DB_PASSWORD}",
            "password: null",
            "token count: 5 and max_tokens=4096",
            "the token: embedding, the tokenizer: cl100k",
            "secret: sauce",
            "key: value, public_key: none",
            "open https://example.org/reset?password=abc123&next=home",
        ],
    )
    def test_prose_and_placeholders_stay(self, text: str) -> None:
        assert redact_sensitive_text(text, force=True) == text

    def test_code_files_keep_assignments(self) -> None:
        text = 'password = request.form["password"]\ntoken = os.environ["TOKEN"]'
        assert redact_sensitive_text(text, force=True, code_file=True) == text


class TestPasswordFlags:
    @pytest.mark.parametrize(
        ("text", "redacted"),
        [
            ("mysql -u root -pS3cr3tPass -h db.internal app", "mysql -u root -p*** -h db.internal app"),
            ("mysqldump -uroot -p'S3cret!' shop > shop.sql", "mysqldump -uroot -p'***' shop > shop.sql"),
            ("/usr/bin/mariadb -pverysecretpassword123", "/usr/bin/mariadb -p***d123"),
            ("mysql --password=hunter2 app", "mysql --password=*** app"),
            ("pg_dump --dbname=app --password=hunter2", "pg_dump --dbname=app --password=***"),
            (
                "docker login -u bob --password hunter2 registry.example.org",
                "docker login -u bob --password *** registry.example.org",
            ),
            ("sshpass -p hunter2 ssh deploy@host", "sshpass -p *** ssh deploy@host"),
            ("sshpass -phunter2 ssh deploy@host", "sshpass -p*** ssh deploy@host"),
            ("redis-cli -h cache -a s3cr3tpass ping", "redis-cli -h cache -a *** ping"),
        ],
    )
    def test_positive(self, text: str, redacted: str) -> None:
        assert redact_sensitive_text(text, force=True) == redacted
        assert redact_sensitive_text(text, force=True, code_file=True) == redacted  # shell scripts too

    @pytest.mark.parametrize(
        "text",
        [
            "mkdir -p build/out && cp -p a.txt b.txt",
            "ssh -p 2222 deploy@host",
            "docker run -p 8080:80 nginx",
            "git log -p -- src/",
            "python -m pytest -p no:cacheprovider",
            "mysql -u root -p app",  # a bare -p asks for the password: nothing to hide
            "mysql -h db -P 3306 --protocol=tcp app",
            "use the --password flag to pass it",  # no value after `=`
        ],
    )
    def test_other_p_flags_stay(self, text: str) -> None:
        assert redact_sensitive_text(text, force=True) == text


SECRETS_BY_RULE = [
    ("sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12", "key sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12"),
    ("hunter2-hunter2-hunter2", 'export MY_SERVICE_TOKEN="hunter2-hunter2-hunter2"'),
    ("abcdefghijklmnopqrstu", '{"apiKey": "abcdefghijklmnopqrstu"}'),
    ("correct-horse-battery-staple", "password: correct-horse-battery-staple"),
    ("verysecretpassword123", "mysql -pverysecretpassword123"),
    ("abcdefghijklmnopqrstuvwxyz012", "Authorization: Bearer abcdefghijklmnopqrstuvwxyz012"),
    ("0123456789abcdef0123456789abcdef", "Authorization: token 0123456789abcdef0123456789abcdef"),
    ("dXNlcjpwYXNzd29yZDEyMw==", "Proxy-Authorization: Basic dXNlcjpwYXNzd29yZDEyMw=="),
    ("0123456789abcdef0123456789abcdef", "https://0123456789abcdef0123456789abcdef@o1.ingest.sentry.io/2"),
    ("fw_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "key fw_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"),
    ("123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1", "bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1"),
    ("s3cr3t-but-rather-long", "postgres://admin:s3cr3t-but-rather-long@db/app"),
    (
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
        "t eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
    ),
    ("abcdefghijklmnopqrstuv", "grant_type=refresh_token&refresh_token=abcdefghijklmnopqrstuv"),
    ("14155552671", "call +14155552671"),
    ("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
]


@pytest.mark.parametrize(("secret", "text"), SECRETS_BY_RULE)
def test_no_rule_leaves_more_than_four_characters_of_a_secret(secret: str, text: str) -> None:
    out = redact_sensitive_text(text, force=True)
    visible = [secret[i : i + 5] for i in range(len(secret) - 4) if secret[i : i + 5] in out]
    assert not visible, (out, visible)
    assert redact_sensitive_text(out, force=True) == out  # redacting again changes nothing
