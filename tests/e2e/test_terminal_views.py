"""Twenty busy terminals in a real browser: the typist's terminal shows every key, the others get
their screens (not their byte streams), a hidden one gets nothing until it is shown, and the
history stays on the server for the find bar (ui/API.md §3).

The terminals are read through the UI's test hook ``window.ideaTerminals.get(name)``: ``view``
(what the server was told), ``parsed`` (bytes of frames parsed), ``screens`` (screen frames).
"""

from __future__ import annotations

import math
import re
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import (
    CHROMIUM,
    NO_CHROMIUM,
    idea_serve,
    make_project,
    parent_of,
    screenshot,
)

pytestmark = pytest.mark.slow

STREAMS = 20
# Prints numbered lines, 1 KB every 10 ms, until interrupted.
STREAMER = """\
import sys, time
n = 0
while True:
    for _ in range(12):
        n += 1
        sys.stdout.write(f"line {n:08d} " + "x" * 66 + "\\n")
    sys.stdout.flush()
    time.sleep(0.01)
"""
# One UI API call from the page, on a WebSocket of its own (same origin, so accepted).
CALL = """async ([method, params]) => {
  const ws = new WebSocket(`ws://${location.host}/ws`);
  await new Promise((ok, ko) => { ws.onopen = ok; ws.onerror = ko; });
  ws.send(JSON.stringify({ id: 1, method, params }));
  const reply = await new Promise(ok => { ws.onmessage = e => {
    if (typeof e.data === "string" && JSON.parse(e.data).id === 1) ok(JSON.parse(e.data)); }; });
  ws.close();
  if (!reply.ok) throw new Error(JSON.stringify(reply.error));
  return reply.result;
}"""
NAMES = [f"stream{i}" for i in range(STREAMS)] + ["typist"]


def call(page: Page, method: str, **params: object) -> object:
    return page.evaluate(CALL, [method, params])


def views(page: Page, names: list[str]) -> list[str]:
    return page.evaluate("ns => ns.map(n => window.ideaTerminals.get(n).view)", names)


def facts(page: Page, name: str) -> dict:
    return page.evaluate(
        "n => { const t = window.ideaTerminals.get(n);"
        " return { parsed: t.parsed, screens: t.screens, resyncs: t.resyncs, view: t.view } }",
        name,
    )


@pytest.fixture
def crowd(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """``idea serve`` on a project with 21 shell agents; (UI URL, the streamer program)."""
    if not Path(CHROMIUM).exists():
        pytest.skip(NO_CHROMIUM)
    project = make_project(tmp_path)
    for name in NAMES:
        (project / ".ideai" / "agents" / f"{name}.md").write_text(
            f"---\nname: {name}\nprofile: shell\n---\nA shell.\n", encoding="utf-8"
        )
    streamer = tmp_path / "streamer.py"
    streamer.write_text(STREAMER, encoding="utf-8")
    with idea_serve(tmp_path, project) as (url, _):
        yield url, streamer


def grid(page: Page) -> list[str]:
    """The active tab as a grid of 21 equal cells, each bound to one agent, launched; the page
    loaded anew on it."""
    layouts = call(page, "layouts.get")
    assert isinstance(layouts, dict)
    root = next(t for t in layouts["tabs"] if t["id"] == layouts["active_tab"])["root"]
    rows = 3
    cols = math.ceil(len(NAMES) / rows)

    def line_of(first: str, count: int, direction: str) -> list[str]:
        leaves = [first]
        result: dict = {}
        for _ in range(count - 1):
            split = call(page, "layouts.apply", op="split", leaf_id=leaves[-1], direction=direction)
            assert isinstance(split, dict)
            result = split
            leaves.append(result["leaf_id"])
        if count > 1:  # equal sizes, not halves of halves
            parent = parent_of(result["layouts"], first)
            call(page, "layouts.apply", op="resize", split_id=parent, sizes=[1 / count] * count)
        return leaves

    leaves = [
        leaf for row in line_of(root["id"], rows, "column") for leaf in line_of(row, cols, "row")
    ]
    agents = call(page, "agents.list")
    assert isinstance(agents, list)
    ids = {a["name"]: a["id"] for a in agents}
    for name, leaf in zip(NAMES, leaves, strict=False):
        call(page, "layouts.apply", op="bind", leaf_id=leaf, agent_id=ids[name])
        call(page, "session.launch", name=name, node_id=leaf, mode="terminal")
    page.reload()
    expect(page.locator(".connection")).to_have_text("connected")
    return leaves


@pytest.mark.timeout(240)
def test_twenty_streaming_terminals_leave_the_typist_every_key_and_show_hidden_ones_at_last(
    crowd: tuple[str, Path], page: Page, tmp_path: Path
) -> None:
    url, streamer = crowd
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.goto(url)
    expect(page.locator(".connection")).to_have_text("connected")
    grid(page)
    for name in NAMES:
        page.wait_for_function("n => window.ideaTerminals.get(n)?.replayedAt", arg=name)
    typist = page.locator('.cell[data-agent="typist"] .xterm')
    typist.click()
    page.keyboard.type("bind 'set enable-bracketed-paste off'; PS1='> '; clear\n")
    page.wait_for_function("() => window.ideaTerminals.get('typist').tail(1)[0].trim() === '>'")
    for name in NAMES[:-1]:
        call(page, "terminal.write", name=name, data=f"{sys.executable} {streamer}\n")
    page.wait_for_function(
        "ns => ns.every(n => window.ideaTerminals.get(n).screens > 0)",
        arg=NAMES[:-1],
        timeout=60_000,
    )

    # Every key shows in the typist's terminal, in order, while the twenty stream.
    letters = "".join(chr(ord("a") + i % 26) for i in range(60))
    page.keyboard.type(letters, delay=15)
    page.wait_for_function(
        "t => window.ideaTerminals.get('typist').lines().at(-1).trim() === t", arg=f"> {letters}"
    )
    assert views(page, ["typist"]) == ["live"]
    assert set(views(page, NAMES[:-1])) == {"glance"}
    # The streams are sent screens, a few a second, not their 100 KB/s each.
    before = {n: facts(page, n) for n in NAMES[:-1]}
    page.wait_for_timeout(2000)
    for name in NAMES[:-1]:
        now = facts(page, name)
        assert 1 <= now["screens"] - before[name]["screens"] <= 12, (name, before[name], now)
        assert now["parsed"] - before[name]["parsed"] < 60_000, (name, before[name], now)
    screenshot(page, "twenty-terminals")

    # In another tab they are hidden: nothing comes, whatever they print.
    layouts = call(page, "layouts.get")
    assert isinstance(layouts, dict)
    streams_tab = layouts["active_tab"]
    call(page, "layouts.apply", op="add_tab", title="elsewhere")
    page.wait_for_function(
        "ns => ns.every(n => window.ideaTerminals.get(n).view === 'hidden')", arg=NAMES
    )
    call(page, "workstate.get")  # a round trip: what was sent before the views changed is in
    hidden = {n: facts(page, n)["parsed"] for n in NAMES}
    marker = f"SHOWN{uuid.uuid4().hex[:8]}"
    done = tmp_path / "marker-printed"
    call(page, "terminal.write", name="stream0", data="\x03")
    call(
        page,
        "terminal.write",
        name="stream0",
        data=f"echo {marker[:4]}''{marker[4:]}; touch {done}\n",
    )
    deadline = 100
    while not done.exists() and deadline:
        page.wait_for_timeout(100)
        deadline -= 1
    assert done.exists(), "the shell did not run the command"
    page.wait_for_timeout(500)  # streams keep printing meanwhile; none of it may come
    assert {n: facts(page, n)["parsed"] for n in NAMES} == hidden

    # Shown again: its latest screen, with the marker, at once.
    call(page, "layouts.apply", op="set_active_tab", tab_id=streams_tab)
    page.wait_for_function(
        "([n, m]) => window.ideaTerminals.get(n).tail(24).some(r => r.includes(m))",
        arg=["stream0", marker],
    )
    assert views(page, ["stream0"]) == ["glance"]


@pytest.mark.timeout(120)
def test_the_history_of_a_terminal_sent_only_screens_comes_for_the_find_bar(
    crowd: tuple[str, Path], page: Page
) -> None:
    url, streamer = crowd
    page.goto(url)
    expect(page.locator(".connection")).to_have_text("connected")
    leaves = grid(page)
    assert leaves
    page.wait_for_function("() => window.ideaTerminals.get('stream3')?.replayedAt")
    # Not focused (nothing is): a glance view, sent screens while it floods.
    call(page, "terminal.write", name="stream3", data=f"{sys.executable} {streamer}\n")
    page.wait_for_function("() => window.ideaTerminals.get('stream3').screens > 2", timeout=30_000)
    call(page, "terminal.write", name="stream3", data="\x03")
    first = "line 00000002 "
    lines = page.evaluate("() => window.ideaTerminals.get('stream3').lines()")
    assert not any(first in line for line in lines)  # only the screen is in the page

    page.locator('.cell[data-agent="stream3"] .xterm').click()
    page.keyboard.press("Control+Shift+F")
    bar = page.locator('.cell[data-agent="stream3"] .find-bar')
    expect(bar).to_be_visible()
    bar.get_by_label("Find in terminal").fill(first)
    expect(bar.locator(".find-count")).to_have_text(re.compile(r"^1 of 1$"))
    assert facts(page, "stream3")["resyncs"] >= 1


@pytest.mark.timeout(120)
def test_a_flood_in_the_focused_terminal_ends_on_its_last_screen_the_page_parsing_little_of_it(
    served: str, page: Page
) -> None:
    page.goto(served)
    expect(page.locator(".connection")).to_have_text("connected")
    page.locator('.picker-row[data-agent="sh"] .picker-main').click()
    page.wait_for_function("() => window.ideaTerminals.get('sh')?.replayedAt")
    page.locator('.cell[data-agent="sh"] .xterm').click()
    marker = f"FLOOD{uuid.uuid4().hex[:8]}"
    flood = 30_000_000
    page.keyboard.type(f"head -c {flood} /dev/zero | tr '\\0' a; echo {marker[:5]}''{marker[5:]}\n")
    # The flood ends without a newline: the marker ends its last row.
    page.wait_for_function(
        "m => window.ideaTerminals.get('sh').lines().some(l => l.endsWith('a' + m))",
        arg=marker,
        timeout=60_000,
    )
    shown = facts(page, "sh")
    assert shown["view"] == "live"
    assert shown["screens"] >= 1  # it skipped to the current screen...
    assert shown["parsed"] < flood // 30  # ...instead of parsing every byte
    # And the terminal goes on as ever: typed into, it answers.
    answer = f"AFTER{uuid.uuid4().hex[:6]}"
    page.keyboard.type(f"echo {answer[:5]}''{answer[5:]}\n")
    page.wait_for_function(
        "m => window.ideaTerminals.get('sh').lines().some(l => l === m)", arg=answer
    )
