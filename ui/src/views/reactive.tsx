// What views built on Preact read to render again: the store's changes as a signal, a clock
// that ticks while a view shows a running time. A component that calls `useStore()` or reads
// `now.value` renders again when that changes, and only that component.

import { signal } from "@preact/signals";
import type { ComponentChildren } from "preact";

import { ApiFailure } from "../model/api";
import { describeError } from "../model/errors";
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

/** An error said above a form's buttons: its code (for data-code) and its text. */
export type FormError = { code: string; text: string };

/** The form error for `err`, prefixed with what was being done. */
export function formErrorOf(err: unknown, context?: string): FormError {
  const e = err instanceof ApiFailure ? err.error : { code: "INTERNAL", message: String(err) };
  const { text } = describeError(e);
  return { code: e.code, text: context ? `${context}: ${text}` : text };
}

/** An `<option>` that has its value attribute. Preact sets `value` as a property, and only when
 * it differs from the option's current value, which is its text while it has no attribute: an
 * option whose text is its value would have none, and `option[value=…]` would not find it. */
export function Option({ value, children }: { value: string; children?: ComponentChildren }) {
  return (
    <option value={value} ref={(el) => el?.setAttribute("value", value)}>
      {children}
    </option>
  );
}
