"""Terminals, the cell layout and the keyboard in a real browser against a real ``idea serve``.

Terminal text is read through the UI's test hook ``window.ideaTerminals.get(name)`` (cols, rows,
renderer, font size, what the fit addon proposes, the buffer's lines), which works whatever draws
the terminal: the WebGL renderer puts no text in the DOM.
"""

from __future__ import annotations

import json
import re
import uuid

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import SLOW_SERVER, cell_of, focused_cell, open_app, screenshot

pytestmark = pytest.mark.slow

PROBE = """n => { const t = window.ideaTerminals.get(n); return t && {
  cols: t.cols, rows: t.rows, renderer: t.renderer, fontSize: t.fontSize, proposed: t.proposed,
  replayedAt: t.replayedAt } }"""
HAS_LINE = "([n, s]) => !!window.ideaTerminals.get(n)?.lines().some(l => l.includes(s))"
LINES = "n => window.ideaTerminals.get(n).lines()"


def start_shell(page: Page, cell_index: int = 0) -> None:
    page.locator(".cell").nth(cell_index).locator(
        '.picker-row[data-agent="sh"] .picker-main'
    ).click()
    expect(cell_of(page, "sh").locator(".xterm")).to_be_visible()
    # Attached once the view has its size: the hook answers from then on.
    page.wait_for_function("n => !!window.ideaTerminals.get(n)", arg="sh")


def run_in_shell(page: Page, command: str, sentinel: str) -> None:
    """Type ``command`` into the shell and wait for ``sentinel`` in its output."""
    cell_of(page, "sh").locator(".xterm").click()
    page.keyboard.type(command)
    page.keyboard.press("Enter")
    wait_line(page, sentinel)


def wait_line(page: Page, text: str, agent: str = "sh") -> None:
    page.wait_for_function(HAS_LINE, arg=[agent, text])


def probe(page: Page, agent: str = "sh") -> dict:
    return page.evaluate(PROBE, agent)


def split(text: str) -> str:
    """``text`` as the shell types it but prints it whole: only the OUTPUT holds ``text``."""
    half = len(text) // 2
    return f"{text[:half]}''{text[half:]}"


def expect_fitted(page: Page, agent: str = "sh") -> dict:
    """The terminal's columns and rows are what its cell holds (the fit addon's proposal)."""
    page.wait_for_function(
        "n => { const t = window.ideaTerminals.get(n); return t && t.proposed &&"
        " t.proposed.cols === t.cols && t.proposed.rows === t.rows }",
        arg=agent,
    )
    return probe(page, agent)


def pty_size(page: Page) -> tuple[int, int]:
    """The PTY's rows and columns, as the shell sees them (``stty size``)."""
    marker = f"SZ{uuid.uuid4().hex[:6]}"
    run_in_shell(page, f"echo {split(marker)} $(stty size)", marker)
    line = next(x for x in page.evaluate(LINES, "sh") if x.startswith(marker))
    rows, cols = line.split()[1:3]
    return int(rows), int(cols)


# --- terminals ---------------------------------------------------------------------------------


@pytest.mark.timeout(90)
def test_the_find_bar_finds_text_printed_in_the_shell(served: str, page: Page) -> None:
    open_app(page, served)
    start_shell(page)
    word = f"FIND{uuid.uuid4().hex[:8]}"
    run_in_shell(page, f"echo {split(word)}; echo other; echo x{split(word)}x", f"x{word}x")

    page.keyboard.press("Control+Shift+F")
    bar = cell_of(page, "sh").locator(".find-bar")
    expect(bar).to_be_visible()
    find = bar.get_by_label("Find in terminal")
    expect(find).to_be_focused()
    find.fill(word)
    count = bar.locator(".find-count")
    expect(count).to_have_text(re.compile(r"^[12] of 2$"))
    first = count.inner_text()
    find.press("Enter")
    expect(count).not_to_have_text(first)
    find.press("Shift+Enter")
    expect(count).to_have_text(first)
    find.fill(f"absent{uuid.uuid4().hex[:6]}")
    expect(count).to_have_text("No results")
    expect(bar).to_have_class(re.compile(r"\bnone\b"))

    # Escape closes it and gives the keyboard back to the shell.
    find.press("Escape")
    expect(bar).to_be_hidden()
    expect(cell_of(page, "sh").locator("textarea.xterm-helper-textarea")).to_be_focused()
    back = f"BACK{uuid.uuid4().hex[:6]}"
    page.keyboard.type(f"echo {split(back)}")
    page.keyboard.press("Enter")
    wait_line(page, back)


@pytest.mark.timeout(90)
def test_a_url_printed_in_the_terminal_is_a_link(served: str, page: Page) -> None:
    open_app(page, served)
    start_shell(page)
    origin = served.split("/?", maxsplit=1)[0]
    target = f"{origin}/link-{uuid.uuid4().hex[:8]}"
    # After `clear` the URL is the first row: its place on screen is known.
    run_in_shell(page, f"clear; printf '%s\\n' '{target}'", target)
    page.wait_for_function(
        "([n, s]) => window.ideaTerminals.get(n).lines()[0] === s", arg=["sh", target]
    )
    screen = cell_of(page, "sh").locator(".xterm-screen")
    box = screen.bounding_box()
    assert box is not None
    size = probe(page)
    cell_w, cell_h = box["width"] / size["cols"], box["height"] / size["rows"]
    x, y = box["x"] + cell_w * 10.5, box["y"] + cell_h * 0.5
    page.mouse.move(x, y - cell_h)
    page.mouse.move(x, y, steps=3)
    # Hovering a link underlines it and shows the hand (xterm marks its screen).
    expect(screen).to_have_class(re.compile("xterm-cursor-pointer"))
    with page.context.expect_page() as opened:
        page.mouse.click(x, y)
    assert opened.value.url == target
    opened.value.close()


@pytest.mark.timeout(90)
def test_a_link_opens_through_the_desktop_window_when_it_offers_open_url(
    served: str, page: Page
) -> None:
    # What the pywebview window gives the page: links go to the system browser through it.
    page.add_init_script(
        "window.__opened = [];"
        "window.pywebview = { api: { open_url: (u) => { window.__opened.push(u);"
        " return Promise.resolve(true); } } };"
    )
    open_app(page, served)
    start_shell(page)
    target = f"https://example.com/idea-{uuid.uuid4().hex[:8]}"
    run_in_shell(page, f"clear; printf '%s\\n' '{target}'", target)
    page.wait_for_function(
        "([n, s]) => window.ideaTerminals.get(n).lines()[0] === s", arg=["sh", target]
    )
    screen = cell_of(page, "sh").locator(".xterm-screen")
    box = screen.bounding_box()
    assert box is not None
    size = probe(page)
    cell_w, cell_h = box["width"] / size["cols"], box["height"] / size["rows"]
    x, y = box["x"] + cell_w * 12.5, box["y"] + cell_h * 0.5
    page.mouse.move(x, y - cell_h)
    page.mouse.move(x, y, steps=3)
    expect(screen).to_have_class(re.compile("xterm-cursor-pointer"))
    page.mouse.click(x, y)
    page.wait_for_function("u => window.__opened.includes(u)", arg=target)
    assert len(page.context.pages) == 1  # no browser tab of its own


@pytest.mark.timeout(90)
def test_the_font_size_changes_from_the_keyboard_and_survives_a_reload(
    served: str, page: Page
) -> None:
    open_app(page, served)
    start_shell(page)
    before = expect_fitted(page)
    assert before["fontSize"] == 13
    cell_of(page, "sh").locator(".xterm").click()
    page.keyboard.press("Control+Equal")
    page.keyboard.press("Control+Equal")
    page.wait_for_function("n => window.ideaTerminals.get(n).fontSize === 15", arg="sh")
    bigger = expect_fitted(page)
    assert bigger["cols"] < before["cols"] and bigger["rows"] < before["rows"]
    # The PTY was told: the shell sees the new size.
    assert pty_size(page) == (bigger["rows"], bigger["cols"])

    page.reload()
    expect(page.locator(".connection")).to_have_text("connected")
    page.wait_for_function("n => window.ideaTerminals.get(n)?.fontSize === 15", arg="sh")
    assert expect_fitted(page)["cols"] == bigger["cols"]

    cell_of(page, "sh").locator(".xterm").click()
    page.keyboard.press("Control+Minus")
    page.wait_for_function("n => window.ideaTerminals.get(n).fontSize === 14", arg="sh")
    page.keyboard.press("Control+0")
    page.wait_for_function("n => window.ideaTerminals.get(n).fontSize === 13", arg="sh")
    assert expect_fitted(page)["cols"] == before["cols"]


@pytest.mark.timeout(120)
def test_after_a_tab_switch_and_a_reload_the_terminal_fits_its_cell_and_replays_unwrapped(
    served: str, page: Page
) -> None:
    open_app(page, served)
    # A narrow terminal (under 80 columns, the size xterm starts at): a third of the workspace.
    page.keyboard.press("Alt+Shift+ArrowRight")
    expect(page.locator(".cell")).to_have_count(2)
    page.keyboard.press("Alt+Shift+ArrowRight")
    expect(page.locator(".cell")).to_have_count(3)
    start_shell(page, 2)
    size = expect_fitted(page)
    assert size["cols"] < 80
    assert pty_size(page) == (size["rows"], size["cols"])
    # Output drawn for the PTY's width (what a shell's line editor and a TUI do): a line 5
    # characters longer than the terminal, a carriage return, a letter. At the right width the
    # letter lands on the wrapped row; replayed at another width it would land elsewhere.
    word = f"LONG{uuid.uuid4().hex[:8]}"
    drawn = "w=$(tput cols); printf '%*s\\rB\\n' $((w+5)) E"
    run_in_shell(page, f"{drawn}; echo {'w' * (size['cols'] + 20)} {split(word)}", word)
    lines = page.evaluate(LINES, "sh")
    assert " " * size["cols"] + "B   E" in lines, lines
    view = "document.querySelector('.cell[data-agent=sh] .terminal-view')"
    page.evaluate(f"() => {{ {view}.__kept = 1 }}")

    # Another tab, and back: the same terminal, fitted to its cell, showing the same lines.
    page.locator(".tab-add").click()
    expect(page.locator(".tab")).to_have_count(2)
    expect(cell_of(page, "sh")).to_have_count(0)
    page.keyboard.press("Control+PageUp")
    expect(page.locator(".tab").first).to_have_attribute("aria-selected", "true")
    expect(cell_of(page, "sh").locator(".xterm")).to_be_visible()
    kept = page.evaluate(f"() => {view}.__kept")
    assert kept == 1, "the terminal was re-created instead of shown again"
    assert expect_fitted(page)["cols"] == size["cols"]
    assert page.evaluate(LINES, "sh") == lines

    # A reload replays the scrollback into a terminal already fitted to its cell, after telling
    # the PTY that size: the same lines as before.
    sent: list[dict] = []

    def record(frame: str | bytes) -> None:
        if isinstance(frame, str) and frame.startswith("{"):
            sent.append(json.loads(frame))

    page.on("websocket", lambda ws: ws.on("framesent", record))
    page.reload()
    expect(page.locator(".connection")).to_have_text("connected")
    page.wait_for_function("n => !!window.ideaTerminals.get(n)", arg="sh")
    wait_line(page, word)
    assert expect_fitted(page)["cols"] == size["cols"]
    assert probe(page)["replayedAt"] == {"cols": size["cols"], "rows": size["rows"]}
    calls = [m for m in sent if m.get("params", {}).get("name") == "sh"]
    methods = [m["method"] for m in calls]
    assert "terminal.attach" in methods, methods
    first_resize = next(m for m in calls if m["method"] == "terminal.resize")
    assert methods.index("terminal.resize") < methods.index("terminal.attach"), methods
    assert first_resize["params"]["cols"] == size["cols"]
    assert page.evaluate(LINES, "sh") == lines
    screenshot(page, "terminal-after-reload")


@pytest.mark.timeout(90)
def test_webgl_draws_the_terminal_and_the_dom_renderer_takes_over_when_its_context_is_lost(
    served: str, page: Page
) -> None:
    page.add_init_script("localStorage.setItem('idea.terminal.renderer', 'webgl')")
    open_app(page, served)
    start_shell(page)
    expect(cell_of(page, "sh").locator(".terminal-view")).to_have_attribute(
        "data-renderer", "webgl"
    )
    first = f"GL{uuid.uuid4().hex[:8]}"
    run_in_shell(page, f"echo {split(first)}", first)
    # The browser takes the context back (too many contexts, a GPU reset).
    lost = page.evaluate(
        """() => { const canvases = document.querySelectorAll(
          '.cell[data-agent=sh] .xterm-screen canvas:not(.xterm-link-layer)');
        for (const c of canvases) {
          const ext = c.getContext('webgl2')?.getExtension('WEBGL_lose_context');
          if (ext) { ext.loseContext(); return true; }
        }
        return false; }"""
    )
    assert lost
    expect(cell_of(page, "sh").locator(".terminal-view")).to_have_attribute("data-renderer", "dom")
    after = f"DOM{uuid.uuid4().hex[:8]}"
    run_in_shell(page, f"echo {split(after)}", after)
    expect(cell_of(page, "sh").locator(".xterm-rows")).to_contain_text(after)


@pytest.mark.timeout(90)
def test_without_webgl_the_dom_renderer_draws(served: str, page: Page) -> None:
    page.add_init_script(
        "localStorage.setItem('idea.terminal.renderer', 'webgl');"
        "const get = HTMLCanvasElement.prototype.getContext;"
        "HTMLCanvasElement.prototype.getContext = function (kind, ...rest) {"
        " return kind === 'webgl2' ? null : get.call(this, kind, ...rest); };"
    )
    open_app(page, served)
    start_shell(page)
    expect(cell_of(page, "sh").locator(".terminal-view")).to_have_attribute("data-renderer", "dom")
    word = f"NOGL{uuid.uuid4().hex[:6]}"
    run_in_shell(page, f"echo {split(word)}", word)
    expect(cell_of(page, "sh").locator(".xterm-rows")).to_contain_text(word)


@pytest.mark.timeout(90)
def test_a_selection_is_copied_and_ctrl_shift_v_pastes(served: str, browser: Browser) -> None:
    context = browser.new_context(viewport={"width": 1440, "height": 860})
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = context.new_page()
    try:
        open_app(page, served)
        start_shell(page)
        word = f"COPY{uuid.uuid4().hex[:8]}"
        run_in_shell(page, f"clear; echo {split(word)}", word)
        page.wait_for_function(
            "([n, s]) => window.ideaTerminals.get(n).lines()[0] === s", arg=["sh", word]
        )
        screen = cell_of(page, "sh").locator(".xterm-screen")
        box = screen.bounding_box()
        assert box is not None
        size = probe(page)
        cell_w, cell_h = box["width"] / size["cols"], box["height"] / size["rows"]
        # Double-click selects the word (the first row, after `clear`); selecting copies it.
        page.mouse.dblclick(box["x"] + cell_w * 3.5, box["y"] + cell_h * 0.5)
        page.wait_for_function("w => navigator.clipboard.readText().then(t => t === w)", arg=word)

        pasted = f"PASTE{uuid.uuid4().hex[:8]}"
        page.evaluate("t => navigator.clipboard.writeText(t)", f"echo {split(pasted)}")
        cell_of(page, "sh").locator(".xterm").click()
        page.keyboard.press("Control+Shift+V")
        # The paste reads the clipboard asynchronously: Enter goes once the command is typed.
        wait_line(page, f"echo {split(pasted)}")
        page.keyboard.press("Enter")
        wait_line(page, pasted)
    finally:
        context.close()


# --- layout ------------------------------------------------------------------------------------


@pytest.mark.timeout(90)
def test_splitting_stops_at_the_minimum_size_and_a_narrow_header_folds_into_a_menu(
    served: str, page: Page
) -> None:
    # Answers come late: keys pressed faster than the server answers split what each split left.
    page.add_init_script(SLOW_SERVER)
    open_app(page, served)
    workspace = page.locator(".workspace")
    # From the page (no text box focused): split the focused cell right until it is refused.
    page.locator(".cell").first.get_by_role("button", name="Split right").click()
    expect(page.locator(".cell")).to_have_count(2)
    expect(focused_cell(page)).to_have_attribute("data-agent", "")  # the new cell has the focus
    for _ in range(4):
        page.keyboard.press("Alt+Shift+ArrowRight")
    notice = page.locator(".banner.notice")
    expect(notice).to_contain_text("too narrow to split right")
    count = page.locator(".cell").count()
    assert count <= 4
    widths = [page.locator(".cell").nth(i).bounding_box()["width"] for i in range(count)]
    assert min(widths) >= 240, widths
    screenshot(page, "split-minimum")

    # A narrow cell shows "⋯" only; its menu lists every action, with the keys.
    narrow = focused_cell(page)
    expect(narrow.get_by_role("button", name="Split right")).to_be_hidden()
    more = narrow.get_by_role("button", name="More cell actions")
    expect(more).to_be_visible()
    more.click()
    menu = page.get_by_role("menu", name="Cell actions")
    expect(menu).to_be_visible()
    expect(more).to_have_attribute("aria-expanded", "true")
    expect(menu.get_by_role("menuitem").first).to_be_focused()
    expect(menu.get_by_role("menuitem", name=re.compile("Split down"))).to_contain_text(
        "Alt+Shift+↓"
    )
    page.keyboard.press("ArrowDown")
    expect(menu.get_by_role("menuitem").nth(1)).to_be_focused()
    page.keyboard.press("Escape")
    expect(menu).to_have_count(0)
    expect(more).to_be_focused()

    # The notice offers the direction that still fits: down.
    before = page.locator(".cell").count()
    page.keyboard.press("Alt+Shift+ArrowRight")
    notice.get_by_role("button", name="Split down").click()
    expect(page.locator(".cell")).to_have_count(before + 1)
    box = workspace.bounding_box()
    assert box is not None


@pytest.mark.timeout(90)
def test_maximise_and_equalize(served: str, page: Page) -> None:
    open_app(page, served)
    page.locator(".cell").first.get_by_role("button", name="Split right").click()
    expect(page.locator(".cell")).to_have_count(2)
    start_shell(page, 0)
    normal = expect_fitted(page)

    # Drag the divider: unequal; Equalize (the ⋯ menu) makes the halves equal again.
    divider = page.locator(".divider.row")
    box = divider.bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 200, y, steps=5)
    page.mouse.up()
    panes = page.locator(".split.row > .pane")
    expect(panes.first).not_to_have_attribute("style", re.compile(r"flex: 0\.5 "))
    cell_of(page, "sh").get_by_role("button", name="More cell actions").click()
    page.get_by_role("menuitem", name=re.compile("Equalize")).click()
    expect(panes.first).to_have_attribute("style", re.compile(r"flex: 0\.5 "))
    expect(panes.nth(1)).to_have_attribute("style", re.compile(r"flex: 0\.5 "))
    assert expect_fitted(page)["cols"] == normal["cols"]

    # Maximise the terminal: it covers the workspace, the PTY gets the bigger size.
    cell_of(page, "sh").get_by_role("button", name="Maximise").click()
    expect(cell_of(page, "sh")).to_have_class(re.compile(r"\bmaximized\b"))
    ws = page.locator(".workspace").bounding_box()
    sh = cell_of(page, "sh").bounding_box()
    assert ws and sh and sh["width"] > ws["width"] - 20 and sh["height"] > ws["height"] - 20
    expect(page.locator('.cell[data-agent=""]')).to_be_hidden()
    page.wait_for_function(
        "c => { const t = window.ideaTerminals.get('sh'); return t.cols > c &&"
        " t.proposed && t.proposed.cols === t.cols }",
        arg=normal["cols"],
    )
    big = probe(page)
    assert pty_size(page) == (big["rows"], big["cols"])
    # A reload shows it maximised still.
    page.reload()
    expect(page.locator(".connection")).to_have_text("connected")
    expect(cell_of(page, "sh")).to_have_class(re.compile(r"\bmaximized\b"))
    expect(page.locator('.cell[data-agent=""]')).to_be_hidden()

    # Escape inside the terminal is the shell's (vim's, a TUI's): the cell stays maximised.
    cell_of(page, "sh").locator(".xterm").click()
    page.keyboard.press("Escape")
    expect(cell_of(page, "sh")).to_have_class(re.compile(r"\bmaximized\b"))
    # The same key restores it; outside a terminal Escape does too.
    page.keyboard.press("Alt+Shift+KeyM")
    expect(cell_of(page, "sh")).not_to_have_class(re.compile(r"\bmaximized\b"))
    expect(page.locator('.cell[data-agent=""]')).to_be_visible()
    assert expect_fitted(page)["cols"] == normal["cols"]
    page.locator('.cell[data-agent=""]').get_by_role("button", name="Maximise").click()
    expect(page.locator('.cell[data-agent=""]')).to_have_class(re.compile(r"\bmaximized\b"))
    page.keyboard.press("Escape")
    expect(page.locator('.cell[data-agent=""]')).not_to_have_class(re.compile(r"\bmaximized\b"))


# --- keyboard ----------------------------------------------------------------------------------


@pytest.mark.timeout(90)
def test_alt_left_in_the_chat_box_and_the_terminal_is_left_to_them(served: str, page: Page) -> None:
    open_app(page, served)
    page.locator(".cell").first.get_by_role("button", name="Split right").click()
    expect(page.locator(".cell")).to_have_count(2)
    start_shell(page, 0)
    page.locator('.cell[data-agent=""] .picker-row[data-agent="bot"] .picker-main').click()
    composer = cell_of(page, "bot").locator(".chat-input")
    expect(composer).to_be_visible()

    composer.click()
    composer.fill("one two three")
    composer.press("End")
    page.keyboard.press("Alt+ArrowLeft")
    expect(composer).to_be_focused()
    expect(focused_cell(page)).to_have_attribute("data-agent", "bot")
    page.keyboard.press("Alt+ArrowRight")
    expect(composer).to_be_focused()
    expect(composer).to_have_value("one two three")

    # In the terminal too (readline's word jumps); F6 moves between cells from both.
    page.keyboard.press("F6")
    expect(focused_cell(page)).to_have_attribute("data-agent", "sh")
    expect(cell_of(page, "sh").locator("textarea.xterm-helper-textarea")).to_be_focused()
    page.keyboard.press("Alt+ArrowLeft")
    expect(focused_cell(page)).to_have_attribute("data-agent", "sh")
    expect(cell_of(page, "sh").locator("textarea.xterm-helper-textarea")).to_be_focused()
    page.keyboard.press("Shift+F6")
    expect(focused_cell(page)).to_have_attribute("data-agent", "bot")
    expect(composer).to_be_focused()


@pytest.mark.timeout(90)
def test_keyboard_shortcuts_split_focus_close_and_picker(served: str, page: Page) -> None:
    open_app(page, served)
    expect(page.locator(".cell.focused")).to_have_count(1)
    page.locator(".cell").first.locator('.picker-row[data-agent="sh"] .picker-main').click()
    term = cell_of(page, "sh").locator(".xterm")
    expect(term).to_be_visible()
    expect(cell_of(page, "sh")).to_have_class(re.compile(r"\bfocused\b"))

    # Split right from inside the terminal (xterm lets the key through); the new cell has focus.
    term.click()
    expect(cell_of(page, "sh").locator("textarea.xterm-helper-textarea")).to_be_focused()
    page.keyboard.press("Alt+Shift+ArrowRight")
    expect(page.locator(".split.row .cell")).to_have_count(2)
    expect(focused_cell(page)).to_have_attribute("data-agent", "")
    expect(focused_cell(page).locator(".picker-main").first).to_be_focused()

    # Previous cell from the picker (not a text box): Alt+←; focus goes back into the terminal.
    page.keyboard.press("Alt+ArrowLeft")
    expect(focused_cell(page)).to_have_attribute("data-agent", "sh")
    expect(cell_of(page, "sh").locator("textarea.xterm-helper-textarea")).to_be_focused()
    sentinel = f"KEY{uuid.uuid4().hex[:10]}"
    page.keyboard.type(f"echo {split(sentinel)}")
    page.keyboard.press("Enter")
    wait_line(page, sentinel)

    # From the terminal, F6 moves on (wrapping); split the empty cell down, close the new cell.
    page.keyboard.press("F6")
    expect(focused_cell(page)).to_have_attribute("data-agent", "")
    page.keyboard.press("F6")
    expect(focused_cell(page)).to_have_attribute("data-agent", "sh")
    page.keyboard.press("F6")
    page.keyboard.press("Alt+Shift+ArrowDown")
    expect(page.locator(".cell")).to_have_count(3)
    expect(page.locator(".split.column .cell")).to_have_count(2)
    new_leaf = focused_cell(page).get_attribute("data-leaf")
    page.keyboard.press("Alt+Shift+KeyW")
    expect(page.locator(".cell")).to_have_count(2)
    expect(page.locator(f'.cell[data-leaf="{new_leaf}"]')).to_have_count(0)
    expect(focused_cell(page)).to_have_count(1)

    # The agent picker of the focused terminal cell, from the keyboard.
    cell_of(page, "sh").locator(".xterm").click()
    expect(focused_cell(page)).to_have_attribute("data-agent", "sh")
    page.keyboard.press("Alt+Shift+KeyA")
    expect(cell_of(page, "sh").locator(".cell-picker")).to_be_visible()
    expect(
        cell_of(page, "sh").locator('.picker-row[data-agent="bot"] .picker-main')
    ).to_be_focused()

    # The help popover lists the shortcuts (from the same table as the palette).
    page.locator(".help-toggle").click()
    expect(page.locator(".help-popover")).to_be_visible()
    expect(page.locator(".help-popover")).to_contain_text("Alt+Shift+→")
    expect(page.locator(".help-popover")).to_contain_text("F6")
    page.keyboard.press("Escape")
    expect(page.locator(".help-popover")).to_be_hidden()


@pytest.mark.timeout(90)
def test_the_command_palette_opens_filters_and_runs_split_right(served: str, page: Page) -> None:
    open_app(page, served)
    start_shell(page)
    textarea = cell_of(page, "sh").locator("textarea.xterm-helper-textarea")
    cell_of(page, "sh").locator(".xterm").click()
    expect(textarea).to_be_focused()

    page.keyboard.press("Control+Shift+P")
    dialog = page.get_by_role("dialog", name="Command palette")
    expect(dialog).to_be_visible()
    field = dialog.get_by_role("combobox", name="Command")
    expect(field).to_be_focused()
    options = dialog.get_by_role("option")
    # Every command, with its keys.
    expect(options.filter(has_text="Split right")).to_contain_text("Alt+Shift+→")
    expect(options.filter(has_text="Command palette")).to_contain_text("Ctrl+Shift+P")
    assert options.count() >= 20

    # Tab does not leave the dialog; Escape gives the focus back to the terminal.
    page.keyboard.press("Tab")
    expect(field).to_be_focused()
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(textarea).to_be_focused()

    page.keyboard.press("Control+Shift+P")
    page.keyboard.type("split")
    expect(options.first).to_have_text(re.compile("^Split right"))
    expect(options.nth(1)).to_have_text(re.compile("^Split down"))
    expect(options.first).to_have_attribute("aria-selected", "true")
    page.keyboard.press("ArrowDown")
    expect(options.nth(1)).to_have_attribute("aria-selected", "true")
    expect(options.first).to_have_attribute("aria-selected", "false")
    page.keyboard.press("ArrowUp")
    expect(options.first).to_have_attribute("aria-selected", "true")
    page.keyboard.type(" zzzq")
    expect(dialog).to_contain_text("No command matches")
    for _ in range(4):
        page.keyboard.press("Backspace")
    page.keyboard.type("r")
    expect(options).to_have_count(1)
    page.keyboard.press("Enter")
    expect(dialog).to_be_hidden()
    # It ran on the cell that had the focus (the terminal's), and the new cell has it now.
    expect(page.locator(".split.row .cell")).to_have_count(2)
    expect(page.locator(".cell").nth(0)).to_have_attribute("data-agent", "sh")
    expect(focused_cell(page)).to_have_attribute("data-agent", "")


@pytest.mark.timeout(90)
def test_tabs_are_a_keyboard_tablist(served: str, page: Page) -> None:
    open_app(page, served)
    page.get_by_role("button", name="New tab").click()
    tablist = page.get_by_role("tablist", name="Tabs")
    tabs = tablist.get_by_role("tab")
    expect(tabs).to_have_count(2)
    expect(tabs.nth(1)).to_have_attribute("aria-selected", "true")
    expect(tabs.nth(0)).to_have_attribute("aria-selected", "false")
    # One tab stop: the active tab.
    expect(tabs.nth(1)).to_have_attribute("tabindex", "0")
    expect(tabs.nth(0)).to_have_attribute("tabindex", "-1")
    expect(page.get_by_role("tabpanel")).to_have_attribute("aria-labelledby", re.compile("^tab-"))
    tabs.nth(1).focus()
    page.keyboard.press("ArrowLeft")
    expect(tabs.nth(0)).to_be_focused()
    expect(tabs.nth(1)).to_have_attribute("aria-selected", "true")  # moved, not shown yet
    page.keyboard.press("Enter")
    expect(tabs.nth(0)).to_have_attribute("aria-selected", "true")
    expect(tabs.nth(0)).to_be_focused()
    page.keyboard.press("End")
    expect(tabs.nth(1)).to_be_focused()
    page.keyboard.press("Space")
    expect(tabs.nth(1)).to_have_attribute("aria-selected", "true")
    # From inside a terminal, Ctrl+PageUp/PageDown switch tabs.
    page.keyboard.press("Control+PageUp")
    expect(tabs.nth(0)).to_have_attribute("aria-selected", "true")
    start_shell(page)
    cell_of(page, "sh").locator(".xterm").click()
    page.keyboard.press("Control+PageDown")
    expect(tabs.nth(1)).to_have_attribute("aria-selected", "true")
    expect(page.get_by_role("button", name=re.compile("^Close tab"))).to_have_count(2)
