"""The file-access rules on real folders: what is free, what needs approval and why, what is unusable."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hermes_tui.core.tools import file_policy as policy
from hermes_tui.core.tools.file_policy import UnusablePath, assess_path, pseudo_filesystem_reason, visible_path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    (folder / "src").mkdir(parents=True)
    (folder / "src" / "app.py").write_text("print('hi')\n")
    return folder


def reasons(raw: str, cwd: Path, access: policy.Access = "read", **extra: object) -> tuple[str, ...]:
    return assess_path(raw, access, cwd=cwd, **extra).reasons  # type: ignore[arg-type]


# --------------------------------------------------------------------------- free and outside


@pytest.mark.parametrize("raw", ["src/app.py", "./src/../src/app.py", "new/file.txt", "."])
def test_paths_inside_the_working_folder_are_free(project: Path, raw: str) -> None:
    verdict = assess_path(raw, "write", cwd=project)
    assert verdict.reasons == ()
    assert verdict.resolved == (project / raw).resolve()


def test_dot_dot_that_climbs_out_is_outside(project: Path, tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("s")
    verdict = assess_path("src/../../secret.txt", "read", cwd=project)
    assert verdict.resolved == tmp_path / "secret.txt"
    assert verdict.reasons == (policy.OUTSIDE,)


def test_absolute_paths_outside_need_approval(project: Path, tmp_path: Path) -> None:
    assert reasons(str(tmp_path / "elsewhere.txt"), project) == (policy.OUTSIDE,)
    assert reasons(str(project / "src" / "app.py"), project) == ()


def test_a_folder_that_only_starts_with_the_same_name_is_outside(project: Path, tmp_path: Path) -> None:
    sibling = tmp_path / "project-evil"
    sibling.mkdir()
    assert reasons(str(sibling / "x.txt"), project) == (policy.OUTSIDE,)


def test_tilde_expands_to_the_users_home(project: Path) -> None:
    home = Path(os.environ["HOME"])
    verdict = assess_path("~/notes.txt", "read", cwd=project)
    assert verdict.written == home / "notes.txt"
    assert verdict.reasons == (policy.OUTSIDE,)


def test_a_symlink_inside_pointing_outside_is_caught_and_named(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("x")
    (project / "innocent.txt").symlink_to(outside)
    verdict = assess_path("innocent.txt", "read", cwd=project)
    assert verdict.resolved == outside and verdict.via_link
    assert verdict.reasons == (f"{policy.SYMLINK_OUT} (to {outside})",)


def test_a_symlinked_folder_pointing_outside_is_caught_for_new_files_too(project: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (project / "out").symlink_to(elsewhere, target_is_directory=True)
    verdict = assess_path("out/new.txt", "write", cwd=project)
    assert verdict.resolved == elsewhere / "new.txt"
    assert verdict.target.kind == "missing"
    assert verdict.reasons[0].startswith(policy.SYMLINK_OUT)


def test_a_symlink_inside_pointing_inside_is_free(project: Path) -> None:
    (project / "alias.py").symlink_to(project / "src" / "app.py")
    verdict = assess_path("alias.py", "write", cwd=project)
    assert verdict.reasons == () and verdict.resolved == project / "src" / "app.py"


def test_a_broken_symlink_resolves_to_where_it_points(project: Path, tmp_path: Path) -> None:
    (project / "dangling").symlink_to(tmp_path / "gone" / "file.txt")
    verdict = assess_path("dangling", "write", cwd=project)
    assert verdict.resolved == tmp_path / "gone" / "file.txt"
    assert verdict.target.kind == "missing"
    assert verdict.reasons[0].startswith(policy.SYMLINK_OUT)


def test_a_working_folder_reached_through_a_symlink_still_counts_as_inside(project: Path, tmp_path: Path) -> None:
    link = tmp_path / "project-link"
    link.symlink_to(project, target_is_directory=True)
    assert reasons("src/app.py", link) == ()


# --------------------------------------------------------------------------- the allow list


def test_the_allow_list_opens_a_folder_but_not_its_sensitive_files(project: Path, tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    allow = [str(shared)]
    assert reasons(str(shared / "data.csv"), project, allow_paths=allow) == ()
    assert reasons(str(shared / ".env"), project, allow_paths=allow) == (policy.ENV_FILE,)
    assert reasons(str(tmp_path / "other.txt"), project, allow_paths=allow) == (policy.OUTSIDE_ALLOWED,)


def test_allow_list_entries_with_tilde_work_and_relative_ones_are_ignored(project: Path) -> None:
    home = Path(os.environ["HOME"])
    (home / "datasets").mkdir(parents=True)
    assert reasons("~/datasets/a.csv", project, allow_paths=["~/datasets"]) == ()
    assert reasons("~/datasets/a.csv", project, allow_paths=["datasets", ""]) == (policy.OUTSIDE,)


# --------------------------------------------------------------------------- sensitive everywhere


@pytest.mark.parametrize(
    ("relative", "expected"),
    [
        (".bashrc", policy.SHELL_STARTUP),
        (".zshrc", policy.SHELL_STARTUP),
        (".profile", policy.SHELL_STARTUP),
        (".bash_profile", policy.SHELL_STARTUP),
        (".bash_history", policy.SHELL_HISTORY),
        (".ssh/config", policy.SSH),
        (".ssh/id_ed25519", policy.SSH),
        (".aws/credentials", f"{policy.CREDENTIALS} (.aws/...)"),
        (".netrc", f"{policy.CREDENTIALS} (.netrc)"),
        (".git-credentials", f"{policy.CREDENTIALS} (.git-credentials)"),
        (".pgpass", f"{policy.CREDENTIALS} (.pgpass)"),
        (".docker/config.json", f"{policy.CREDENTIALS} (.docker/config.json)"),
        (".kube/config", f"{policy.CREDENTIALS} (.kube/config)"),
        (".config/gcloud/credentials.db", f"{policy.CREDENTIALS} (.config/gcloud/...)"),
        (".env", policy.ENV_FILE),
        ("deploy/.env.production", policy.ENV_FILE),
        ("keys/id_rsa", f"{policy.PRIVATE_KEY} (id_rsa)"),
        ("certs/server.pem", f"{policy.PRIVATE_KEY} (.pem file)"),
    ],
)
def test_sensitive_files_need_approval_even_inside_the_working_folder(
    project: Path, relative: str, expected: str
) -> None:
    for access in ("read", "write"):
        found = reasons(relative, project, access)
        assert expected in found, (access, found)
        assert policy.OUTSIDE not in found


@pytest.mark.parametrize(
    "relative", [".env.example", "src/id_utils.py", "docs/profile.md", "gcloud/main.go", "a.key.md"]
)
def test_look_alikes_are_free(project: Path, relative: str) -> None:
    assert reasons(relative, project, "write") == ()


def test_fish_config_in_the_home_folder_is_a_shell_start_up_file(tmp_path: Path) -> None:
    home = Path(os.environ["HOME"])
    fish = home / ".config" / "fish" / "functions" / "ls.fish"
    assert policy.SHELL_STARTUP in reasons(str(fish), home)


def test_a_symlink_named_harmlessly_to_a_sensitive_file_is_caught(project: Path) -> None:
    (project / ".env").write_text("TOKEN=x\n")
    (project / "settings.txt").symlink_to(project / ".env")
    assert reasons("settings.txt", project) == (policy.ENV_FILE,)


def test_files_that_run_code_are_sensitive_to_write_only(project: Path) -> None:
    for relative in (".git/hooks/pre-commit", ".git/config", ".envrc"):
        assert reasons(relative, project, "write") == (policy.RUNS_CODE,)
        assert reasons(relative, project, "read") == ()


def test_system_configuration_needs_approval_even_with_the_root_allowed(project: Path) -> None:
    assert reasons("/etc/shadow", project, allow_paths=["/"]) == (policy.SYSTEM_CONFIG,)
    assert set(reasons("/etc/shadow", project)) == {policy.OUTSIDE, policy.SYSTEM_CONFIG}


def test_hermes_home_is_sensitive_wherever_it_is(project: Path) -> None:
    home = project / "hermes-home"
    home.mkdir()
    assert reasons("hermes-home/state.db", project, home=home) == (policy.HERMES_HOME,)
    assert reasons("hermes-home/config.toml", project, "write", home=home) == (policy.HERMES_HOME,)
    default_home = Path(os.environ["HOME"]) / ".hermes-tui" / "state.db"
    assert policy.HERMES_HOME in reasons(str(default_home), project)


def test_hermes_home_named_by_the_environment_is_sensitive(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HERMES_TUI_HOME", str(project / "h"))
    assert reasons("h/state.db-wal", project) == (policy.HERMES_HOME,)


@pytest.mark.parametrize("path", ["/proc/kmsg", "/proc/self/status", "/sys/kernel", "/dev/zero", "/dev"])
def test_the_kernels_live_files_are_never_touched(path: str) -> None:
    reason = pseudo_filesystem_reason(Path(path))
    assert reason is not None and "terminal tool" in reason


def test_other_system_paths_are_not_pseudo_files() -> None:
    for path in ("/etc/hosts", "/devices/x", "/procedures", "/home/u/dev/x"):
        assert pseudo_filesystem_reason(Path(path)) is None


# --------------------------------------------------------------------------- odd text


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("a\nb.txt", "a\\x0ab.txt"),
        ("evil\x1b[2K.txt", "evil\\x1b[2K.txt"),
        ("invoice\u202egpj.exe", "invoice\\u202egpj.exe"),
        ("zero\u200bwidth.txt", "zero\\u200bwidth.txt"),
        ("latin\udce9.txt", "latin\\xe9.txt"),  # the byte 0xE9 of a non-UTF-8 name
    ],
)
def test_odd_characters_need_approval_and_are_shown_escaped(project: Path, name: str, shown: str) -> None:
    verdict = assess_path(name, "write", cwd=project)
    assert verdict.reasons == (policy.ODD_NAME,)
    assert verdict.shown == visible_path(str(project)) + "/" + shown


def test_a_real_file_with_a_non_utf8_name_is_found(project: Path) -> None:
    raw_name = b"caf\xe9.txt"
    with open(os.path.join(os.fsencode(project), raw_name), "wb") as handle:
        handle.write(b"x\n")
    verdict = assess_path(os.fsdecode(raw_name), "read", cwd=project)
    assert verdict.target.kind == "file" and verdict.reasons == (policy.ODD_NAME,)


def test_backslashes_are_doubled_so_an_escape_cannot_be_faked() -> None:
    assert visible_path("a\\x1b.txt") == "a\\\\x1b.txt"
    assert visible_path("a\x1b.txt") == "a\\x1b.txt"


@pytest.mark.parametrize(("raw", "fragment"), [("a\0b", "NUL byte"), ("bad\ud800.txt", "lone surrogate")])
def test_paths_no_file_can_have_are_unusable(project: Path, raw: str, fragment: str) -> None:
    with pytest.raises(UnusablePath, match=fragment) as caught:
        assess_path(raw, "read", cwd=project)
    assert "\0" not in str(caught.value) and "\ud800" not in str(caught.value)
