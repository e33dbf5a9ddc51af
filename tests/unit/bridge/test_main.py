"""The bridge's hand-made option parsing and key reading (no process)."""

import pytest

from idea.bridge.main import Options, UsageError, parse_options, read_key

FULL = ["--endpoint", "/s.sock", "--project", "p", "--requester", "a", "--key-file", "/k"]
EXPECTED = Options(endpoint="/s.sock", project="p", requester="a", key_file="/k")


def test_space_and_equals_forms_in_any_order():
    assert parse_options(FULL) == EXPECTED
    mixed = ["--key-file=/k", "--requester", "a", "--project=p", "--endpoint", "/s.sock"]
    assert parse_options(mixed) == EXPECTED


def test_a_value_may_contain_equals_signs():
    args = [*FULL[:2], "--project=a=b", *FULL[4:]]
    assert parse_options(args).project == "a=b"


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (FULL[2:], "missing --endpoint"),
        (FULL[:6], "missing --key-file"),
        ([*FULL, "--extra", "x"], "'--extra'"),
        ([*FULL, "positional"], "'positional'"),
        ([*FULL[:7]], "--key-file needs a value"),
        (["--endpoint", "--project", "p", *FULL[4:]], "--endpoint needs a value"),
        (["--endpoint=", *FULL[2:]], "--endpoint must not be empty"),
        ([*FULL, "--project", "q"], "--project is given twice"),
    ],
)
def test_bad_command_lines_name_the_problem(args, needle):
    with pytest.raises(UsageError) as caught:
        parse_options(args)
    assert needle in str(caught.value)
    assert "\n" not in str(caught.value)


def test_read_key(tmp_path):
    key = tmp_path / "mcp.key"
    key.write_bytes(b"\x00\x01secret")
    assert read_key(str(key)) == b"\x00\x01secret"
    with pytest.raises(UsageError, match="cannot read --key-file"):
        read_key(str(tmp_path / "absent"))
    with pytest.raises(UsageError, match="cannot read --key-file"):
        read_key(str(tmp_path))  # a folder
    (tmp_path / "empty").write_bytes(b"")
    with pytest.raises(UsageError, match="empty"):
        read_key(str(tmp_path / "empty"))
