// What views built on Preact read to render again: the store's changes as a signal, a clock
// that ticks while a view shows a running time. A component that calls `useStore()` or reads
// `now.value` renders again when that changes, and only that component.

import { signal } from "@preact/signals";

import { store } from "../model/state";

const storeVersion = signal(0);
store.subscribe(() => {
  storeVersion.value++;
});

/** The store, read so that the calling component renders again when it changes. */
export function useStore(): typeof store {
  void storeVersion.value;
  return store;
}

const TICK_MS = 1000;
const clock = signal(Date.now());
let ticking: ReturnType<typeof setInterval> | undefined;

/** The time now, in ms, updated every second once read: running turns count up with it. */
export function now(): number {
  ticking ??= setInterval(() => {
    clock.value = Date.now();
  }, TICK_MS);
  void clock.value; // read: the caller renders again at the next tick
  return Date.now();
}

/** A root element for a view rendered by Preact, for the views that hand out `el`. */
export function rootElement(className: string): HTMLDivElement {
  const el = document.createElement("div");
  el.className = className;
  return el;
}

/** Class names from parts, the falsy ones left out. */
export function classes(...parts: (string | false | null | undefined)[]): string {
  return parts.filter(Boolean).join(" ");
}
