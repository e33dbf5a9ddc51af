"""The window's JS API: which links a chat message may open in the system browser."""

import pytest

from idea.app.window.bridge import WindowBridge, external_url


@pytest.mark.parametrize(
    "url",
    [
        "https://docs.python.org/3/library/csv.html",
        "http://example.com",
        "HTTPS://EXAMPLE.COM/a?b=c#d",
        "http://127.0.0.1:8080/x",
        "https://[::1]/",
    ],
)
def test_web_addresses_are_external(url):
    assert external_url(url)


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "file:///etc/passwd",
        "vbscript:msgbox",
        "mailto:someone@example.com",
        "/relative/path",
        "//example.com/no-scheme",
        "http://",
        "https:///no-host",
        "-https://example.com",
        "https://example.com/a b",
        "https://example.com/\n--new-window",
        "https://exa\tmple.com",
        "https://example.com/\x7f",
        "https://[::1/",
        "",
        None,
        42,
        ["https://example.com"],
        "https://example.com/" + "a" * 9000,
    ],
)
def test_anything_else_is_refused(url):
    assert not external_url(url)


def test_open_url_hands_only_accepted_urls_to_the_browser():
    opened = []
    bridge = WindowBridge(None, open_browser=lambda url: opened.append(url) or True)
    assert bridge.open_url("https://example.com/doc") is True
    assert bridge.open_url("javascript:alert(1)") is False
    assert bridge.open_url("file:///etc/passwd") is False
    assert opened == ["https://example.com/doc"]
