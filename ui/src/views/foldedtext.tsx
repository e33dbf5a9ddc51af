// A long text folded to a bounded preview (model/longtext.ts), then one more step per "Show more";
// "Show all" reveals the rest a step per animation frame, so the page keeps answering. Each step is
// its own block of plain text (escaped by construction: a text node), laid out once and never
// rendered again. The text may still grow (a reply streaming): the bar says how much is not shown.

import { useEffect, useReducer, useRef } from "preact/hooks";

import {
  foldNote,
  PREVIEW_CHARS,
  PREVIEW_LINES,
  size,
  stepEnd,
  type TextLike,
} from "../model/longtext";
import { CopyButton } from "./copybutton";

/** The steps shown so far, each the text it showed when revealed. */
type Shown = { steps: string[]; chars: number };

type FoldedProps = {
  text: TextLike;
  /** The text's length now: the same text grown renders again (props all the same would not). */
  length: number;
  /** Said after the sizes (why it is plain text, say). */
  hint?: string;
};

export function FoldedText({ text, hint = "" }: FoldedProps) {
  const current = useRef(text);
  current.current = text;
  const shown = useRef<Shown>({ steps: [], chars: 0 });
  const frame = useRef(0);
  const [, redraw] = useReducer((n: number) => n + 1, 0);

  /** Show the next step (the preview first); false when there is none. */
  const reveal = (): boolean => {
    const s = shown.current;
    const t = current.current;
    const end = s.chars ? stepEnd(t, s.chars) : stepEnd(t, 0, PREVIEW_CHARS, PREVIEW_LINES);
    if (end <= s.chars) return false;
    shown.current = { steps: [...s.steps, t.slice(s.chars, end)], chars: end };
    return true;
  };
  // The preview, as soon as there is text (drawn in this same render).
  if (shown.current.chars === 0 && text.length) reveal();

  /** Show the rest, a step per frame; stops when the view is gone. */
  const revealAll = () => {
    if (frame.current) return;
    const next = () => {
      frame.current = 0;
      reveal();
      redraw(0);
      if (shown.current.chars < current.current.length) frame.current = requestAnimationFrame(next);
    };
    next();
  };
  useEffect(() => () => cancelAnimationFrame(frame.current), []);

  const { steps, chars } = shown.current;
  const hidden = chars < text.length;
  const note = hidden ? foldNote(chars, text.length) : size(text.length);
  return (
    <div class="folded">
      <div class="folded-text">
        {steps.map((step, i) => (
          <div key={i} class="folded-step">
            {step}
          </div>
        ))}
      </div>
      <div class="fold-bar">
        <span class="fold-note">{hint ? `${note} · ${hint}` : note}</span>
        <button
          type="button"
          class="btn small fold-more"
          hidden={!hidden}
          onClick={() => {
            if (reveal()) redraw(0);
          }}
        >
          Show more
        </button>
        <button type="button" class="btn small fold-all" hidden={!hidden} onClick={revealAll}>
          Show all
        </button>
        <CopyButton text={() => `${current.current}`} title="Copy the whole text" />
      </div>
    </div>
  );
}
