// Preact markup as one DOM element, for the views not on Preact yet that place it among their
// own elements (the cell's header pill, its agent picker). The markup is rendered once and never
// again: what it shows holds no state of its own, and the caller builds it anew to change it.

import { render, type VNode } from "preact";

/** The element `markup` renders to (its handlers attached), or null when it renders nothing. */
export function elementOf(markup: VNode): HTMLElement | null {
  const box = document.createElement("div");
  render(markup, box);
  return box.firstElementChild as HTMLElement | null;
}
