// @vitest-environment jsdom
import { describe, expect, it } from "vitest";
import { renderCode, renderMarkdown } from "./markdown";

/** Hostile replies: each must render to HTML where nothing can run, load or escape the bubble. */
export const HOSTILE = [
  "<script>window.__pwned = 1</script>",
  '<img src=x onerror="window.__pwned = 1">',
  '<svg onload="window.__pwned = 1"></svg>',
  '<iframe src="https://example.com"></iframe>',
  "<style>body { display: none }</style>",
  '<details open ontoggle="window.__pwned = 1">x</details>',
  '<a href="javascript:window.__pwned = 1">html link</a>',
  "[md link](javascript:window.__pwned=1)",
  "[upper](JAVASCRIPT:window.__pwned=1)",
  "[spaced]( javascript:window.__pwned=1 )",
  "[entity](&#106;avascript:window.__pwned=1)",
  "[data](data:text/html;base64,PHNjcmlwdD53aW5kb3cuX19wd25lZD0xPC9zY3JpcHQ+)",
  "[vb](vbscript:msgbox)",
  "[file](file:///etc/passwd)",
  "<javascript:window.__pwned=1>",
  "![pixel](https://tracker.example/p.png)",
  "![js](javascript:window.__pwned=1)",
  "![data](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
  '[title](https://example.com "\\" onmouseover=\\"window.__pwned=1")',
  '```"><img src=x onerror=window.__pwned=1>\ncode\n```',
  "```js onclick=alert(1)\nx\n```",
  '<div style="position:fixed;inset:0">cover the app</div>',
  '<form action="https://evil"><input name=q></form>',
  '<math><mi xlink:href="javascript:alert(1)">x</mi></math>',
  '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>',
];

function dom(html: string): HTMLTemplateElement {
  const t = document.createElement("template");
  t.innerHTML = html;
  return t;
}

function problems(html: string): string[] {
  const found: string[] = [];
  for (const el of dom(html).content.querySelectorAll("*")) {
    const tag = el.tagName.toLowerCase();
    if (
      [
        "script",
        "iframe",
        "style",
        "img",
        "svg",
        "math",
        "form",
        "object",
        "embed",
        "noscript",
      ].includes(tag)
    ) {
      found.push(`<${tag}>`);
    }
    for (const attr of el.getAttributeNames()) {
      const value = el.getAttribute(attr) ?? "";
      if (attr.startsWith("on")) found.push(`${tag}[${attr}]`);
      if (/^\s*(javascript|data|vbscript|file):/i.test(value))
        found.push(`${tag}[${attr}=${value}]`);
      if (attr === "href" && !/^(https?:\/\/|mailto:)/i.test(value))
        found.push(`${tag}[href=${value}]`);
      if (
        attr === "style" &&
        !/^text-align:(left|right|center)$/.test(value.replace(/\s|;/g, ""))
      ) {
        found.push(`${tag}[style=${value}]`);
      }
    }
  }
  return found;
}

describe("renderMarkdown and hostile input", () => {
  it.each(HOSTILE)("renders %s with nothing that runs, loads or escapes", (text) => {
    const html = renderMarkdown(text);
    expect(problems(html)).toEqual([]);
    // As a string too: no tag of those kinds, no handler attribute, no script URL in an href.
    expect(html).not.toMatch(/<(script|img|iframe|style|svg|math|form)\b/i);
    expect(html.replace(/"[^"]*"/g, '""')).not.toMatch(/<[^>]*\son\w+\s*=/i);
    expect(html).not.toMatch(/<a\s[^>]*href="\s*(javascript|vbscript|data|file):/i);
  });

  it("shows raw HTML as text", () => {
    const t = dom(renderMarkdown("<script>alert(1)</script>"));
    expect(t.content.textContent).toContain("<script>alert(1)</script>");
    expect(t.content.querySelector("script")).toBeNull();
  });

  it("keeps an image as a link, not something that loads", () => {
    const a = dom(renderMarkdown("![diagram](https://example.com/d.png)")).content.querySelector(
      "a",
    );
    expect(a?.getAttribute("href")).toBe("https://example.com/d.png");
    expect(a?.textContent).toBe("image: diagram");
  });

  it("drops the href of a link that is not http(s) or mailto, keeping its text", () => {
    const t = dom(renderMarkdown("[run](javascript:alert(1)) and [rel](src/parser.py)"));
    for (const a of t.content.querySelectorAll("a")) expect(a.hasAttribute("href")).toBe(false);
    expect(t.content.textContent).toContain("run");
  });

  it("opens links in a new tab without a window.opener", () => {
    const a = dom(
      renderMarkdown("See [the docs](https://docs.python.org/3/) or https://example.com"),
    ).content.querySelectorAll("a");
    expect(a).toHaveLength(2);
    for (const link of a) {
      expect(link.getAttribute("target")).toBe("_blank");
      expect(link.getAttribute("rel")).toBe("noopener noreferrer");
    }
  });

  it("does not take file names for web addresses", () => {
    expect(
      dom(renderMarkdown("edit parser.py and www.example.com")).content.querySelector("a"),
    ).toBeNull();
  });
});

describe("renderMarkdown renders what agents write", () => {
  const doc = [
    "## Plan for `parse()`",
    "",
    "Ignores **quoting** and *whitespace*.",
    "",
    "| Case | Input | Expected |",
    "| --- | :---: | ---: |",
    '| plain | `a,b` | `["a", "b"]` |',
    "",
    "```python",
    "def parse(line: str) -> list[str]:",
    "    return []",
    "```",
    "",
    "- [x] done",
    "- [ ] todo",
    "",
    "> Note: `csv.reader` handles quoting.",
  ].join("\n");
  const t = dom(renderMarkdown(doc)).content;

  it("has headings, emphasis, inline code and a quote", () => {
    expect(t.querySelector("h2")?.textContent).toBe("Plan for parse()");
    expect(t.querySelector("h2 code")?.textContent).toBe("parse()");
    expect(t.querySelector("strong")?.textContent).toBe("quoting");
    expect(t.querySelector("em")?.textContent).toBe("whitespace");
    expect(t.querySelector("blockquote")?.textContent).toContain("csv.reader");
  });

  it("has a table with its column alignment", () => {
    expect([...t.querySelectorAll("th")].map((th) => th.textContent)).toEqual([
      "Case",
      "Input",
      "Expected",
    ]);
    const cells = t.querySelectorAll("tbody td");
    expect(cells).toHaveLength(3);
    expect(cells[1].getAttribute("style")).toBe("text-align:center");
    expect(cells[2].getAttribute("style")).toBe("text-align:right");
  });

  it("highlights a code block of a known language", () => {
    const code = t.querySelector("pre > code");
    expect(code?.className).toBe("hljs language-python");
    expect(code?.querySelector(".hljs-keyword")?.textContent).toBe("def");
    expect(code?.textContent).toBe("def parse(line: str) -> list[str]:\n    return []\n");
  });

  it("shows a code block of an unknown language plain", () => {
    const code = dom(renderMarkdown("```nosuchlang\n<b>x</b>\n```")).content.querySelector(
      "pre > code",
    );
    expect(code?.className).toBe("hljs language-nosuchlang");
    expect(code?.children).toHaveLength(0);
    expect(code?.textContent).toBe("<b>x</b>\n");
  });

  it("has task lists with boxes that cannot be ticked", () => {
    const boxes = t.querySelectorAll<HTMLInputElement>("li.task-list-item input[type=checkbox]");
    expect(boxes).toHaveLength(2);
    expect([...boxes].map((b) => b.checked)).toEqual([true, false]);
    for (const b of boxes) expect(b.disabled).toBe(true);
    expect(t.querySelector("ul.contains-task-list")).not.toBeNull();
  });
});

describe("renderCode", () => {
  it("highlights JSON and escapes what is in it", () => {
    const html = renderCode('{"a": "<img src=x onerror=alert(1)>"}', "json");
    const t = dom(html).content;
    expect(t.querySelector(".hljs-attr")?.textContent).toBe('"a"');
    expect(t.querySelector("img")).toBeNull();
    expect(t.textContent).toBe('{"a": "<img src=x onerror=alert(1)>"}');
  });
});
