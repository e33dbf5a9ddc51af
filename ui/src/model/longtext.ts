// Long text in the chat. Invariant: appending a streamed piece costs the piece, never the text so
// far (the pieces are kept as they came, joined only when asked for); and what a long entry shows
// is bounded: a preview (PREVIEW_CHARS, PREVIEW_LINES), then one more step per "Show more" of at
// most STEP_CHARS characters and STEP_LINES lines. Only a reply of at most MARKDOWN_MAX_CHARS is
// formatted as Markdown; a longer one is shown as plain text.

/** Above this, a reply is plain text: Markdown and highlighting over megabytes freeze the page. */
export const MARKDOWN_MAX_CHARS = 64 * 1024;
/** What each "Show more" adds at most; an entry one step holds is not folded at all. */
export const STEP_CHARS = 64 * 1024;
export const STEP_LINES = 1000;
/** What a folded entry shows first: a screenful or two. */
export const PREVIEW_CHARS = 8 * 1024;
export const PREVIEW_LINES = 80;

/** Text built from pieces: `append` is O(piece); `slice` is O(log pieces + the slice). */
export class Pieces {
  private parts: string[] = [];
  private starts: number[] = []; // starts[i]: the offset of parts[i]
  length = 0;

  constructor(text = "") {
    this.append(text);
  }

  append(piece: string): void {
    if (!piece) return;
    this.starts.push(this.length);
    this.parts.push(piece);
    this.length += piece.length;
  }

  /** The characters from `from` up to `to` (clamped, as String.slice with positive bounds). */
  slice(from: number, to: number = this.length): string {
    const end = Math.min(Math.max(to, 0), this.length);
    let pos = Math.max(from, 0);
    if (pos >= end) return "";
    let out = "";
    for (let i = this.partAt(pos); pos < end; i++) {
      const start = this.starts[i];
      const part = this.parts[i];
      out += part.slice(pos - start, Math.min(part.length, end - start));
      pos = start + part.length;
    }
    return out;
  }

  /** The whole text; the pieces are joined into one, so that asking again costs nothing. */
  toString(): string {
    if (this.parts.length > 1) {
      this.parts = [this.parts.join("")];
      this.starts = [0];
    }
    return this.parts[0] ?? "";
  }

  /** How many pieces it holds (joined by `toString`). */
  get pieceCount(): number {
    return this.parts.length;
  }

  private partAt(offset: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}

export type TextLike = string | Pieces;

/**
 * Where the step that starts at `from` ends: at most `chars` characters and `lines` lines further;
 * just past a newline when one is in the second half of reach (a line is not cut across two steps
 * unless it is long), never between the two halves of a surrogate pair. O(step).
 */
export function stepEnd(
  text: TextLike,
  from: number,
  chars = STEP_CHARS,
  lines = STEP_LINES,
): number {
  if (from >= text.length) return text.length;
  const window = text.slice(from, from + chars);
  let count = 0;
  let nl = -1; // the last newline counted
  while (count < lines) {
    const next = window.indexOf("\n", nl + 1);
    if (next < 0) break;
    nl = next;
    count += 1;
  }
  const tooManyLines = count === lines && nl + 1 < window.length;
  if (from + window.length >= text.length && !tooManyLines) return text.length;
  if (nl >= 0 && (tooManyLines || nl + 1 >= window.length / 2)) return from + nl + 1;
  let end = from + window.length;
  if (end > from + 1 && isHighSurrogate(window.charCodeAt(window.length - 1))) end -= 1;
  return end;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** A long entry is folded when one step does not hold it all. */
export function folds(text: TextLike): boolean {
  return stepEnd(text, 0) < text.length;
}

/** A reply is formatted as Markdown only while it is short enough to render at once. */
export function asMarkdown(length: number): boolean {
  return length <= MARKDOWN_MAX_CHARS;
}

/** A size as people read it: "812 B", "64 KiB", "1.2 MiB" (characters, shown as bytes). */
export function size(chars: number): string {
  if (chars < 1024) return `${chars} B`;
  if (chars < 1024 * 1024) return `${Math.round(chars / 1024)} KiB`;
  return `${(chars / (1024 * 1024)).toFixed(1)} MiB`;
}

/** What the fold bar says: how much is shown of how much. */
export function foldNote(shown: number, total: number): string {
  return `Showing ${size(shown)} of ${size(total)}`;
}
