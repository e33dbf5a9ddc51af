// Markdown of agents' replies to safe HTML. Invariant: what an agent writes is hostile input; the
// HTML returned here holds only the tags markdown-it emits for Markdown (raw HTML in the text is
// shown as text), is sanitized again by DOMPurify with an allow-list, keeps links only to http(s)
// and mailto (opened in a new tab), and has no inline style but table alignment: nothing runs,
// nothing loads, nothing is drawn outside the message.

import DOMPurify, { type DOMPurify as Purifier } from "dompurify";
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import diff from "highlight.js/lib/languages/diff";
import dockerfile from "highlight.js/lib/languages/dockerfile";
import go from "highlight.js/lib/languages/go";
import ini from "highlight.js/lib/languages/ini";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import makefile from "highlight.js/lib/languages/makefile";
import markdownLang from "highlight.js/lib/languages/markdown";
import plaintext from "highlight.js/lib/languages/plaintext";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import shell from "highlight.js/lib/languages/shell";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import MarkdownItFactory, { type MarkdownIt } from "markdown-it";
import taskLists from "markdown-it-task-lists";

// The languages agents write most in this tool's projects, each with its aliases (py, sh, ts, js,
// html, toml, yml...); any other is shown plain. No guessing: it is slow and often wrong. A grammar
// costs 1-13 kB of bundle: add one when it is missed.
const LANGUAGES = {
  bash,
  c,
  cpp,
  diff,
  dockerfile,
  go,
  ini,
  java,
  javascript,
  json,
  makefile,
  markdown: markdownLang,
  plaintext,
  python,
  rust,
  shell,
  sql,
  typescript,
  xml,
  yaml,
};
for (const [name, lang] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, lang);

const TAGS = [
  "p",
  "br",
  "hr",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "ul",
  "ol",
  "li",
  "blockquote",
  "pre",
  "code",
  "span",
  "em",
  "strong",
  "s",
  "a",
  "table",
  "thead",
  "tbody",
  "tr",
  "th",
  "td",
  "input",
];
const ATTRS = ["href", "title", "class", "type", "checked", "disabled", "start", "style"];
const LINK = /^(?:https?:\/\/|mailto:)/i;
const CLASS =
  /^(?:hljs(?:-[\w-]+)?|language-[\w+#.-]{1,40}|task-list-item(?:-checkbox)?|contains-task-list|[\w-]+_)$/;
const ALIGN = /^text-align:\s*(?:left|right|center);?$/;

export const LANGUAGE_NAMES: readonly string[] = Object.keys(LANGUAGES);

/** The code's HTML: highlighted when `lang` is a known language, else escaped. Not sanitized. */
function highlighted(code: string, lang: string): string {
  if (lang && hljs.getLanguage(lang)) {
    try {
      return hljs.highlight(code, { language: lang, ignoreIllegals: true }).value;
    } catch {
      // a grammar that throws on odd input: show the code plain
    }
  }
  return escapeHtml(code);
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

let md: MarkdownIt | null = null;
let purifier: Purifier | null = null;

function parser(): MarkdownIt {
  if (md) return md;
  md = new MarkdownItFactory({
    html: false, // raw HTML in a reply is text, not markup
    linkify: true,
    typographer: false,
    highlight: (code, lang) => {
      const name = lang.trim().split(/\s+/)[0] ?? "";
      const cls = name ? ` language-${escapeHtml(name)}` : "";
      return `<pre><code class="hljs${cls}">${highlighted(code, name)}</code></pre>`;
    },
  });
  // Only links that say they are links: "parser.py" is a file, not Paraguay.
  md.linkify.set({ fuzzyLink: false, fuzzyEmail: false, fuzzyIP: false });
  // An image would load from wherever the agent points: show it as a link instead.
  md.renderer.rules.image = (tokens, idx) => {
    const token = tokens[idx];
    const src = String(token.attrGet("src") ?? "");
    const alt = token.content || src;
    return `<a href="${escapeHtml(src)}">${escapeHtml(`image: ${alt}`)}</a>`;
  };
  md.use(taskLists, { enabled: false });
  return md;
}

function sanitizer(): Purifier {
  if (purifier) return purifier;
  const p = DOMPurify(window);
  p.addHook("afterSanitizeAttributes", (node) => {
    const el = node as Element;
    if (!el.getAttribute) return;
    const cls = el.getAttribute("class");
    if (cls !== null) {
      const kept = cls.split(/\s+/).filter((c) => CLASS.test(c));
      if (kept.length) el.setAttribute("class", kept.join(" "));
      else el.removeAttribute("class");
    }
    const style = el.getAttribute("style");
    if (
      style !== null &&
      !((el.tagName === "TH" || el.tagName === "TD") && ALIGN.test(style.trim()))
    ) {
      el.removeAttribute("style");
    }
    if (el.tagName === "A") {
      const href = el.getAttribute("href");
      if (href !== null && !LINK.test(href.trim())) el.removeAttribute("href");
      if (el.hasAttribute("href")) {
        el.setAttribute("target", "_blank");
        el.setAttribute("rel", "noopener noreferrer");
      }
    }
    if (el.tagName === "INPUT") {
      // Task list boxes only, and never editable.
      if (el.getAttribute("type") !== "checkbox") el.remove();
      else el.setAttribute("disabled", "");
    }
    if (
      el.tagName === "OL" &&
      el.hasAttribute("start") &&
      !/^\d{1,9}$/.test(el.getAttribute("start") ?? "")
    ) {
      el.removeAttribute("start");
    }
  });
  purifier = p;
  return p;
}

/** Sanitize HTML made here (markdown-it's or highlight.js's) with the allow-list. */
export function sanitize(html: string): string {
  return sanitizer().sanitize(html, {
    ALLOWED_TAGS: TAGS,
    ALLOWED_ATTR: ATTRS,
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
    ALLOW_UNKNOWN_PROTOCOLS: false,
    FORBID_TAGS: ["style", "script", "iframe", "object", "embed", "form", "img", "svg", "math"],
  });
}

/** A reply's Markdown as sanitized HTML. */
export function renderMarkdown(text: string): string {
  return sanitize(parser().render(text));
}

/** Code (a tool's JSON, say) highlighted as `lang`, sanitized: spans inside a `<code>`. */
export function renderCode(code: string, lang: string): string {
  return sanitize(highlighted(code, lang));
}
