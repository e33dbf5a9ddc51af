// When a chat re-renders a streaming reply. Invariant: work per frame is bounded by what changed,
// not by the transcript's size: a reply still streaming renders its completed Markdown blocks
// once, re-rendering only the block still being written (an entry is rendered again only when
// its signature changed: views/chat.tsx keys its entries by it).

const FENCE = /^[ \t]*(`{3,}|~{3,})/; // indented too: a fence in a list item

/**
 * The end of the last complete Markdown block of `text` after `from`: the offset just past a blank
 * line that is outside any fenced code block (`from` must be such an offset, or 0). Blocks before
 * it do not change as more text arrives; `from` is returned when there is none yet.
 */
export function blockBoundary(text: string, from: number): number {
  let boundary = from;
  let fence: string | null = null; // the opening marker while inside a fence
  let pos = from;
  for (;;) {
    const nl = text.indexOf("\n", pos);
    if (nl < 0) return boundary; // the last line is still being written
    const line = text.slice(pos, nl);
    pos = nl + 1;
    const m = FENCE.exec(line);
    if (fence !== null) {
      // A closing fence: the same character, at least as long, nothing after it.
      if (
        m &&
        m[1][0] === fence[0] &&
        m[1].length >= fence.length &&
        !line.slice(m[0].length).trim()
      ) {
        fence = null;
      }
    } else if (m && !(m[1][0] === "`" && line.slice(m[0].length).includes("`"))) {
      fence = m[1];
    } else if (!line.trim()) {
      boundary = pos;
    }
  }
}

/**
 * How long a streaming reply may wait before its next render, in ms, given the characters
 * re-rendered each time (the block being written): every frame while it is short, less often as it
 * grows, so that a huge unbroken block does not take every frame.
 */
export function renderDelay(tailChars: number): number {
  return tailChars < 8_000 ? 0 : Math.min(500, Math.round(tailChars / 80));
}

/** Close enough to the bottom to count as "at the newest message" (px). */
export const STICK_PX = 40;

export function atBottom(scrollTop: number, scrollHeight: number, clientHeight: number): boolean {
  return scrollHeight - scrollTop - clientHeight < STICK_PX;
}
