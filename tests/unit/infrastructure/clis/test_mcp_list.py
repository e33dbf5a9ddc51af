"""Reading a CLI's ``mcp list``: IdeA's ``Connected`` line passes, anything else names the cause."""

import pytest

from idea.domain.errors import Unavailable
from idea.infrastructure.clis.mcp_list import connected_line

LISTING = (
    "Configured MCP servers:\n\n"
    "\x1b[32m✓\x1b[0m other: /bin/x (stdio) - Connected\n"
    "\x1b[32m✓\x1b[0m idea: /opt/idea mcp-server --endpoint e (stdio) - Connected\n"
)


def test_the_connected_line_of_ideas_server_is_the_evidence():
    assert (
        connected_line("qwen", LISTING)
        == "✓ idea: /opt/idea mcp-server --endpoint e (stdio) - Connected"
    )


@pytest.mark.parametrize(
    ("output", "said"),
    [
        ("✗ idea: /opt/idea mcp-server (stdio) - Disconnected\n", "- Disconnected"),
        ("● idea: /opt/idea (stdio) - Pending approval\n", "Pending approval"),
        ("No MCP servers configured.\n", "'idea' is not listed"),
        ("✓ idea-other: /x (stdio) - Connected\n", "'idea' is not listed"),
    ],
)
def test_anything_else_is_unavailable_quoting_the_cli(output, said):
    with pytest.raises(Unavailable) as err:
        connected_line("qwen", output)
    assert said in err.value.message
    assert err.value.message.startswith("qwen does not reach IdeA's MCP server")
