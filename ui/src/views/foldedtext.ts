// A long text folded to a bounded preview (model/longtext.ts), then one more step per "Show more";
// "Show all" reveals the rest a step per animation frame, so the page keeps answering. Each step is
// its own block of plain text (escaped by construction: a text node), laid out once. The text may
// still grow (a reply streaming): the bar says how much is not shown yet.

import {
  foldNote,
  PREVIEW_CHARS,
  PREVIEW_LINES,
  size,
  stepEnd,
  type TextLike,
} from "../model/longtext";
import { copyButton } from "./copybutton";
import { h } from "./dom";

export class FoldedText {
  readonly el = h("div.folded");
  private body = h("div.folded-text");
  private note = h("span.fold-note");
  private more = h(
    "button.btn.small.fold-more",
    { type: "button", onclick: () => this.reveal() },
    "Show more",
  );
  private all = h(
    "button.btn.small.fold-all",
    { type: "button", onclick: () => this.revealAll() },
    "Show all",
  );
  private shown = 0;
  private frame = 0;

  /** `hint`: said after the sizes (why it is plain text, say). */
  constructor(
    private text: TextLike,
    private readonly hint = "",
  ) {
    const copy = copyButton(() => `${this.text}`, "Copy the whole text");
    this.el.append(this.body, h("div.fold-bar", {}, this.note, this.more, this.all, copy));
    this.reveal();
  }

  /** The text grew (the same Pieces) or was replaced: say how much is hidden now. */
  refresh(text: TextLike = this.text): void {
    this.text = text;
    if (this.shown === 0 && text.length) this.reveal();
    const hidden = this.shown < text.length;
    this.more.hidden = !hidden;
    this.all.hidden = !hidden;
    const note = hidden ? foldNote(this.shown, text.length) : size(text.length);
    this.note.textContent = this.hint ? `${note} · ${this.hint}` : note;
  }

  /** Show the next step (the preview first). */
  reveal(): void {
    const end = this.shown
      ? stepEnd(this.text, this.shown)
      : stepEnd(this.text, 0, PREVIEW_CHARS, PREVIEW_LINES);
    if (end > this.shown) {
      this.body.append(h("div.folded-step", {}, this.text.slice(this.shown, end)));
      this.shown = end;
    }
    this.refresh();
  }

  /** Show the rest, a step per frame; stops when the view is gone. */
  private revealAll(): void {
    if (this.frame) return;
    const next = () => {
      this.frame = 0;
      if (!this.el.isConnected) return;
      this.reveal();
      if (this.shown < this.text.length) this.frame = requestAnimationFrame(next);
    };
    next();
  }

  /** Characters shown so far. */
  get shownChars(): number {
    return this.shown;
  }
}
