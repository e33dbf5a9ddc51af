"""`idea hosts check` as a user runs it, against a real sshd: one line per check, exit 0 or 1."""

import json
import os
import subprocess
import sys

import pytest

from idea import __version__

pytestmark = pytest.mark.timeout(120)

IDEA = [sys.executable, "-m", "idea"]


@pytest.fixture
def world(sshd, tmp_path):
    """A user whose home trusts the sshd's host key and whose hosts.json names four hosts."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True, mode=0o700)
    (home / ".ssh" / "known_hosts").write_text(sshd.known_hosts.read_text(encoding="utf-8"))
    config = tmp_path / "config"
    config.mkdir()
    same = sshd.write("bin/idea", f"#!/bin/sh\necho 'idea {__version__}'\n", mode=0o755)
    other = sshd.write("bin/idea-old", "#!/bin/sh\necho 'idea 0.0.1'\n", mode=0o755)

    def entry(idea, **more):
        return {
            "ssh": f"{sshd.user}@127.0.0.1:{sshd.port}",
            "identity_file": str(sshd.client_key),
            "root": str(sshd.work),
            "idea": idea,
            **more,
        }

    hosts = {
        "good": entry(str(same)),
        "old": entry(str(other)),
        "bare": entry(str(sshd.work / "bin" / "no-idea-here")),
        "noroot": entry(str(same), root="/no/such/checkout"),
    }
    (config / "hosts.json").write_text(json.dumps({"version": 1, "hosts": hosts}))
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SSH_AUTH_SOCK")
    }
    env.update(HOME=str(home), IDEA_CONFIG_DIR=str(config))
    return env


def idea(env, *args):
    return subprocess.run(
        [*IDEA, *args],
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        check=False,
    )


def lines(out):
    return {line.split()[0]: line.split()[1:] for line in out.stdout.splitlines()}


def test_a_host_where_everything_works(world):
    out = idea(world, "hosts", "check", "good")
    assert out.returncode == 0, out.stdout + out.stderr
    checks = lines(out)
    assert list(checks) == ["connect", "idea", "root", "forwarding"]
    assert all(words[0] == "ok" for words in checks.values()), out.stdout
    assert __version__ in out.stdout


def test_another_version_on_the_host(world):
    out = idea(world, "hosts", "check", "old", "--json")
    assert out.returncode == 1
    report = json.loads(out.stdout)
    assert report["host"] == "old" and report["ok"] is False
    by_check = {row["check"]: row for row in report["checks"]}
    assert by_check["idea"]["status"] == "failed"
    assert by_check["idea"]["code"] == "HOST_IDEA_VERSION"
    assert "0.0.1" in by_check["idea"]["detail"] and __version__ in by_check["idea"]["detail"]
    assert [by_check[c]["status"] for c in ("connect", "root", "forwarding")] == ["ok"] * 3


def test_no_idea_on_the_host(world):
    out = idea(world, "hosts", "check", "bare")
    assert out.returncode == 1
    assert lines(out)["idea"][:2] == ["failed", "HOST_IDEA_MISSING:"], out.stdout


def test_a_root_that_is_not_there(world):
    out = idea(world, "hosts", "check", "noroot")
    assert out.returncode == 1
    assert lines(out)["root"][:2] == ["failed", "NOT_FOUND:"], out.stdout


def test_an_unknown_host_key_fails_the_connection_and_skips_the_rest(world, tmp_path):
    (tmp_path / "home" / ".ssh" / "known_hosts").write_text("")
    out = idea(world, "hosts", "check", "good")
    assert out.returncode == 1
    checks = lines(out)
    assert checks["connect"][:2] == ["failed", "HOST_KEY_UNKNOWN:"]
    assert "SHA256:" in out.stdout
    assert [checks[c][0] for c in ("idea", "root", "forwarding")] == ["skipped"] * 3


def test_an_unknown_name_is_a_usage_error_naming_the_hosts(world):
    out = idea(world, "hosts", "check", "nope")
    assert out.returncode == 2
    assert "configured: bare, good, noroot, old" in out.stderr


def test_list_shows_the_configured_hosts(world, sshd):
    out = idea(world, "hosts", "list", "--json")
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert [row["name"] for row in rows] == ["bare", "good", "noroot", "old"]
    assert rows[1]["ssh"] == f"{sshd.user}@127.0.0.1:{sshd.port}"
    plain = idea(world, "hosts", "list")
    assert plain.stdout.splitlines()[1].split()[:2] == ["good", rows[1]["ssh"]]
