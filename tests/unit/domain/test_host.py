"""hosts.json entries (DESIGN.md §16): every field typed and bounded, every mistake named."""

import pytest

from idea.domain.errors import HostIdeaVersion, Invalid
from idea.domain.host import (
    MAX_HOSTS,
    Host,
    check_version,
    parse_host,
    parse_hosts,
    parse_ssh,
)


def entry(**fields):
    return {"ssh": "dev@lab.example.org", "root": "/srv/project", **fields}


def invalid(raw) -> Invalid:
    with pytest.raises(Invalid) as caught:
        parse_hosts(raw)
    assert caught.value.code == "INVALID"
    return caught.value


def test_a_whole_file_parses_into_hosts_by_name():
    hosts = parse_hosts(
        {
            "version": 1,
            "hosts": {
                "lab": {
                    "ssh": "dev@lab.example.org:2222",
                    "identity_file": "~/.ssh/id_lab",
                    "root": "/home/dev/project",
                    "idea": "~/.local/bin/idea",
                },
                "gpu-1": {"ssh": "gpu1", "root": "/w"},
            },
        }
    )
    assert hosts["lab"] == Host(
        name="lab",
        user="dev",
        address="lab.example.org",
        port=2222,
        identity_file="~/.ssh/id_lab",
        root="/home/dev/project",
        idea="~/.local/bin/idea",
    )
    gpu = hosts["gpu-1"]
    assert (gpu.user, gpu.address, gpu.port, gpu.identity_file, gpu.idea) == (
        None,
        "gpu1",
        22,
        None,
        "idea",
    )


def test_an_empty_or_absent_hosts_object_means_no_hosts():
    assert parse_hosts({"version": 1, "hosts": {}}) == {}
    assert parse_hosts({}) == {}


@pytest.mark.parametrize(
    ("ssh", "expected"),
    [
        ("user@host", ("user", "host", 22)),
        ("host", (None, "host", 22)),
        ("host:2200", (None, "host", 2200)),
        ("user@[::1]:2222", ("user", "::1", 2222)),
        ("[::1]", (None, "::1", 22)),
        ("[fe80::1%eth0]:22", (None, "fe80::1%eth0", 22)),
        ("first.last@10.0.0.7", ("first.last", "10.0.0.7", 22)),
        ("me@corp.example@jump_alias", ("me@corp.example", "jump_alias", 22)),
        ("u@h:65535", ("u", "h", 65535)),
    ],
)
def test_ssh_targets_that_parse(ssh, expected):
    assert parse_ssh(ssh) == expected


@pytest.mark.parametrize(
    "ssh",
    [
        "",
        "   ",
        "@host",
        "-oProxyCommand=x@host",
        "user@-host",
        "user@",
        "host:",
        "host:0",
        "host:65536",
        "host:+22",
        "host:22x",
        "::1",
        "user@::1:22",
        "[::1",
        "[::1]2222",
        "[not-v6]:22",
        "[10.0.0.1]",
        "two words",
        "host..example",
        "host/evil",
        "ho\nst",
        "a" * 254,
        "u" * 65 + "@host",
        42,
        None,
        ["user@host"],
    ],
)
def test_ssh_targets_that_are_refused_name_the_field(ssh):
    error = invalid({"hosts": {"lab": entry(ssh=ssh)}})
    assert error.field == "hosts.lab.ssh"


def test_an_overlong_ssh_field_is_refused_before_it_is_parsed():
    error = invalid({"hosts": {"lab": entry(ssh="u@" + "h" * 400)}})
    assert error.field == "hosts.lab.ssh"
    assert "longer than" in error.message


@pytest.mark.parametrize("name", ["Lab", "-lab", "la b", "lab.x", "con", "", "é", "x" * 65])
def test_host_names_follow_the_agent_name_rules(name):
    error = invalid({"hosts": {name: entry()}})
    assert error.field == "hosts"
    assert "host name" in error.message


@pytest.mark.parametrize(
    ("root", "why"),
    [
        ("relative/path", "absolute POSIX"),
        ("C:\\work", "absolute POSIX"),
        ("~/project", "absolute POSIX"),
        ("", "must be"),
        (None, "must be"),
        (3, "must be"),
        ("/srv/a\nb", "control character"),
        ("/" + "a" * 4096, "longer than"),
    ],
)
def test_root_is_an_absolute_posix_path(root, why):
    fields = entry(root=root) if root is not None else {"ssh": "h"}
    error = invalid({"hosts": {"lab": fields}})
    assert error.field == "hosts.lab.root"
    assert why in error.message


def test_idea_is_a_command_line_that_may_hold_spaces():
    host = parse_host("lab", entry(idea="env IDEA_LOG=1 /opt/idea/bin/idea"))
    assert host.idea == "env IDEA_LOG=1 /opt/idea/bin/idea"


@pytest.mark.parametrize("idea", ["", "  ", " idea", "idea ", "idea\n--evil", 7, None, "x" * 1025])
def test_idea_must_be_a_non_empty_command(idea):
    error = invalid({"hosts": {"lab": entry(idea=idea)}})
    assert error.field == "hosts.lab.idea"


@pytest.mark.parametrize("path", ["/home/me/.ssh/id_lab", "~/.ssh/id_lab", "C:\\Users\\me\\id"])
def test_identity_file_is_absolute_or_in_the_home(path):
    assert parse_host("lab", entry(identity_file=path)).identity_file == path


@pytest.mark.parametrize("path", ["id_lab", ".ssh/id", "~", "", 1, "/a\x00b"])
def test_identity_file_that_would_depend_on_the_folder_is_refused(path):
    error = invalid({"hosts": {"lab": entry(identity_file=path)}})
    assert error.field == "hosts.lab.identity_file"


def test_an_unknown_field_is_named_rather_than_ignored():
    error = invalid({"hosts": {"lab": entry(identityfile="~/.ssh/x")}})
    assert error.field == "hosts.lab.identityfile"
    assert "identity_file" in error.message  # the known fields are listed
    assert invalid({"version": 1, "hosts": {}, "extra": 1}).field == "extra"


@pytest.mark.parametrize("version", [2, 0, "1", True, None])
def test_only_version_1_is_read(version):
    assert invalid({"version": version, "hosts": {}}).field == "version"


@pytest.mark.parametrize("raw", [[], "hosts", 1, None])
def test_the_file_must_hold_an_object(raw):
    assert invalid(raw).field == "hosts"


@pytest.mark.parametrize("hosts", [[], "lab", 3])
def test_hosts_must_be_an_object(hosts):
    assert invalid({"hosts": hosts}).field == "hosts"


@pytest.mark.parametrize("value", ["user@host", 5, [], None])
def test_an_entry_must_be_an_object(value):
    assert invalid({"hosts": {"lab": value}}).field == "hosts.lab"


def test_the_number_of_hosts_is_bounded():
    many = {f"h{i}": entry() for i in range(MAX_HOSTS + 1)}
    assert "more than" in invalid({"hosts": many}).message


def test_messages_stay_short_whatever_the_input():
    error = invalid({"hosts": {"lab": entry(ssh="u@h:" + "9" * 300)}})
    assert len(error.message) < 400


@pytest.mark.parametrize(
    ("host", "target", "endpoint"),
    [
        (Host(name="a", user="dev", address="lab", root="/r"), "dev@lab", "lab:22"),
        (Host(name="a", user=None, address="lab", port=2200, root="/r"), "lab:2200", "lab:2200"),
        (
            Host(name="a", user="u", address="::1", port=2222, root="/r"),
            "u@[::1]:2222",
            "[::1]:2222",
        ),
    ],
)
def test_ssh_target_shows_the_host_as_written(host, target, endpoint):
    assert host.ssh_target == target
    assert host.endpoint == endpoint
    assert parse_ssh(target) == (host.user, host.address, host.port)


def test_to_json_parses_back_to_the_same_host():
    host = Host(name="lab", user="u", address="::1", port=2222, identity_file="~/.ssh/k", root="/r")
    assert parse_host("lab", host.to_json()) == host


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"name": "Bad"}, "hosts"),
        ({"user": "-x"}, "hosts.lab.ssh"),
        ({"address": "a b"}, "hosts.lab.ssh"),
        ({"port": 0}, "hosts.lab.ssh"),
        ({"port": 70000}, "hosts.lab.ssh"),
        ({"root": "rel"}, "hosts.lab.root"),
        ({"idea": ""}, "hosts.lab.idea"),
        ({"identity_file": "rel"}, "hosts.lab.identity_file"),
    ],
)
def test_a_host_built_in_code_obeys_the_same_rules(fields, field):
    values = {"name": "lab", "user": "u", "address": "h", "root": "/r", **fields}
    with pytest.raises(Invalid) as caught:
        Host(**values)
    assert caught.value.field == field


def test_the_same_version_passes():
    check_version("0.1.0", "0.1.0", "lab")


def test_another_version_is_refused_saying_both_and_what_to_install():
    with pytest.raises(HostIdeaVersion) as caught:
        check_version("0.1.0", "0.2.0", "lab")
    error = caught.value
    assert error.code == "HOST_IDEA_VERSION"
    assert "0.1.0" in error.message and "0.2.0" in error.message
    assert "install IdeA 0.1.0" in error.message
    assert error.details() == {"host": "lab", "local_version": "0.1.0", "remote_version": "0.2.0"}
