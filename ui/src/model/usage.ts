// How usage, costs and times read on screen: tokens "12.3k", cost "$0.0123", a reset "at 14:32
// (in 12 min)". Numbers come from CLIs through the server: anything that is not a finite,
// non-negative number reads as missing ("—"), never as NaN. Pure, so it is tested alone.

import type { Usage } from "./types";

export const MISSING = "—";

/** `x` when it is a finite number ≥ 0, else null. */
export function count(x: unknown): number | null {
  return typeof x === "number" && Number.isFinite(x) && x >= 0 ? x : null;
}

const UNITS = ["", "k", "M", "B", "T"];

/** 950 → "950", 12345 → "12.3k", 123456 → "123k", 4_500_000 → "4.5M"; garbage → "—". */
export function formatTokens(n: unknown): string {
  const v = count(n);
  if (v === null) return MISSING;
  let unit = 0;
  let scaled = Math.round(v);
  while (scaled >= 1000 && unit < UNITS.length - 1) {
    unit += 1;
    scaled = v / 1000 ** unit;
  }
  if (unit === 0) return String(scaled);
  // One decimal below 100 of a unit, none above; a value that rounds up to 1000 takes the next unit.
  let digits = scaled < 99.95 ? 1 : 0;
  let text = scaled.toFixed(digits);
  if (Number(text) >= 1000 && unit < UNITS.length - 1) {
    unit += 1;
    digits = 1;
    text = (v / 1000 ** unit).toFixed(digits);
  }
  return `${text.replace(/\.0$/, "")}${UNITS[unit]}`;
}

/** $0.0123 under a dollar, $1.23 above, "<$0.0001" for crumbs; null or garbage → "—". */
export function formatCost(usd: unknown): string {
  const v = count(usd);
  if (v === null) return MISSING;
  if (v === 0) return "$0.00";
  if (v < 0.0001) return "<$0.0001";
  if (v < 1) return `$${v.toFixed(4)}`;
  return `$${v.toFixed(2)}`;
}

/** "12.3k tokens · $0.0123" (no cost when the CLI gave none); no usage → "—". */
export function usageText(u: Usage | null | undefined): string {
  if (!u || typeof u !== "object") return MISSING;
  const tokens = `${formatTokens(totalOf(u))} tokens`;
  const cost = count(u.cost_usd);
  return cost === null ? tokens : `${tokens} · ${formatCost(cost)}`;
}

/** The breakdown behind `usageText`, for a tooltip. */
export function usageDetail(u: Usage | null | undefined): string {
  if (!u || typeof u !== "object") return "No usage reported yet";
  const parts = [
    `input ${formatTokens(u.input_tokens)}`,
    `output ${formatTokens(u.output_tokens)}`,
    `cache read ${formatTokens(u.cache_read_tokens)}`,
    `cache write ${formatTokens(u.cache_write_tokens)}`,
    `cost ${count(u.cost_usd) === null ? "not reported" : formatCost(u.cost_usd)}`,
  ];
  const turns = count(u.turns);
  if (turns !== null) parts.push(`${turns} turn${turns === 1 ? "" : "s"}`);
  return parts.join(" · ");
}

/** The usage's total tokens; recomputed from its parts when the total is missing. */
export function totalOf(u: Usage): number {
  const total = count(u.total_tokens);
  if (total !== null) return total;
  return (
    (count(u.input_tokens) ?? 0) +
    (count(u.output_tokens) ?? 0) +
    (count(u.cache_read_tokens) ?? 0) +
    (count(u.cache_write_tokens) ?? 0)
  );
}

/** The sum of usages (missing ones skipped); cost stays null while no usage had one. */
export function sumUsage(list: readonly (Usage | null | undefined)[]): Usage | null {
  let sum: Usage | null = null;
  for (const u of list) {
    if (!u || typeof u !== "object") continue;
    const s: Usage = sum ?? {
      input_tokens: 0,
      output_tokens: 0,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      total_tokens: 0,
      cost_usd: null,
    };
    const cost = count(u.cost_usd);
    sum = {
      input_tokens: s.input_tokens + (count(u.input_tokens) ?? 0),
      output_tokens: s.output_tokens + (count(u.output_tokens) ?? 0),
      cache_read_tokens: s.cache_read_tokens + (count(u.cache_read_tokens) ?? 0),
      cache_write_tokens: s.cache_write_tokens + (count(u.cache_write_tokens) ?? 0),
      total_tokens: s.total_tokens + totalOf(u),
      cost_usd: cost === null ? s.cost_usd : (s.cost_usd ?? 0) + cost,
    };
  }
  return sum;
}

/** How far `atMs` is from `nowMs`: "in 12 min", "in 1 h 5 min", "in less than a minute", or
 * "3 min ago" for a time gone by. */
export function relativeTime(atMs: number, nowMs: number): string {
  const ms = atMs - nowMs;
  const minutes = Math.ceil(Math.abs(ms) / 60000);
  const span =
    Math.abs(ms) < 60000
      ? null
      : minutes < 60
        ? `${minutes} min`
        : `${Math.floor(minutes / 60)} h${minutes % 60 ? ` ${minutes % 60} min` : ""}`;
  if (ms >= 0) return span ? `in ${span}` : "in less than a minute";
  return span ? `${span} ago` : "just now";
}

/** A wall-clock time in the user's locale: "14:32", with the date when it is not today. */
export function localTime(atMs: number, nowMs: number): string {
  const at = new Date(atMs);
  const time = at.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  return at.toDateString() === new Date(nowMs).toDateString()
    ? time
    : `${at.toLocaleDateString([], { month: "short", day: "numeric" })} ${time}`;
}

/** "resets at 14:32 (in 12 min)"; no time given → null (say nothing about a reset). */
export function resetText(
  resetsAtMs: unknown,
  nowMs: number,
  clock: (atMs: number, nowMs: number) => string = localTime,
): string | null {
  const at = count(resetsAtMs);
  if (at === null) return null;
  if (at <= nowMs) return `should have reset at ${clock(at, nowMs)}`;
  return `resets at ${clock(at, nowMs)} (${relativeTime(at, nowMs)})`;
}

/** A chain id short enough for a chip: its first 8 characters. */
export function shortChainId(id: unknown): string {
  if (typeof id !== "string" || !id) return "?";
  return id.length <= 10 ? id : id.slice(0, 8);
}
