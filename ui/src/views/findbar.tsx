// Find in a terminal: Enter / Shift+Enter for the next / previous match, Escape closes. The bar
// is rendered once, hidden, beside the terminal; opening it shows it and gives its input the
// keyboard (the selection, if one line, as the query), closing it gives the keyboard back.

import { signal } from "@preact/signals";
import { createRef } from "preact";
import { useLayoutEffect } from "preact/hooks";

import type { SearchAddon } from "@xterm/addon-search";

import { classes } from "./reactive";

/** What the bar uses of xterm's search addon (a test gives its own). */
export type Search = Pick<
  SearchAddon,
  "findNext" | "findPrevious" | "clearDecorations" | "onDidChangeResults"
>;

const DECORATIONS = {
  matchBackground: "#3d4a6b",
  matchOverviewRuler: "#7aa2f7",
  activeMatchBackground: "#7a5c1e",
  activeMatchColorOverviewRuler: "#e0af68",
};

export class FindBar {
  readonly shown = signal(false);
  /** Counts the opens: each one gives the input the keyboard, an open bar's too. */
  readonly opens = signal(0);
  /** The query searched last, and the search's last count of its matches. */
  readonly query = signal("");
  readonly results = signal({ index: -1, count: 0 });
  readonly input = createRef<HTMLInputElement>();

  constructor(
    private readonly search: Search,
    private readonly back: () => void,
  ) {
    search.onDidChangeResults(({ resultIndex, resultCount }) => {
      this.results.value = { index: resultIndex, count: resultCount };
    });
  }

  open(selection: string): void {
    const input = this.input.current;
    if (input && selection && !selection.includes("\n")) input.value = selection;
    this.shown.value = true;
    this.opens.value++;
  }

  close(): void {
    this.shown.value = false;
    this.search.clearDecorations();
    this.back();
  }

  /** The terminal's buffer was replaced (its history came): search the query again. */
  refresh(): void {
    if (this.shown.value && this.query.value) this.step(1, true);
  }

  step(direction: 1 | -1, incremental = false): void {
    const query = this.input.current?.value ?? "";
    this.query.value = query;
    if (!query) return this.search.clearDecorations();
    const options = { incremental, decorations: DECORATIONS };
    if (direction > 0) this.search.findNext(query, options);
    else this.search.findPrevious(query, options);
  }
}

/** What the count says: nothing without a query, else which match of how many. */
function countText(query: string, { index, count }: { index: number; count: number }): string {
  if (!query) return "";
  if (count === 0) return "No results";
  return index < 0 ? `${count}+ matches` : `${index + 1} of ${count}`;
}

export function FindBarView({ bar }: { bar: FindBar }) {
  const shown = bar.shown.value;
  const opens = bar.opens.value;
  const query = bar.query.value;
  const results = bar.results.value;
  useLayoutEffect(() => {
    const input = bar.input.current;
    if (!opens || !input) return;
    input.focus();
    input.select();
    if (input.value) bar.step(1, true);
  }, [opens]);
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === "Enter") bar.step(e.shiftKey ? -1 : 1);
    else if (e.key === "Escape") bar.close();
    else return;
    e.preventDefault();
    e.stopPropagation();
  };
  return (
    <div
      class={classes("find-bar", !!query && results.count === 0 && "none")}
      role="search"
      hidden={!shown}
    >
      <input
        class="find-input"
        type="text"
        placeholder="Find"
        aria-label="Find in terminal"
        spellcheck={false}
        ref={bar.input}
        onKeyDown={onKeyDown}
        onInput={() => bar.step(1, true)}
      />
      <span class="find-count muted" aria-live="polite">
        {countText(query, results)}
      </span>
      <button
        class="btn small icon"
        aria-label="Previous match"
        title="Previous match (Shift+Enter)"
        onClick={() => bar.step(-1)}
      >
        ↑
      </button>
      <button
        class="btn small icon"
        aria-label="Next match"
        title="Next match (Enter)"
        onClick={() => bar.step(1)}
      >
        ↓
      </button>
      <button
        class="btn small icon"
        aria-label="Close find"
        title="Close (Escape)"
        onClick={() => bar.close()}
      >
        ✕
      </button>
    </div>
  );
}
