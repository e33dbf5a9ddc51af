// The delegation policy form and the "who may ask this agent" choice (DESIGN.md §15), as values
// the forms show and send. The server checks every value; this only reads what was typed as a
// number (or as nothing, where nothing means "never"/"none"). Pure, so it is tested alone.

import type { ApiError, Policy } from "./types";
import { formatTokens } from "./usage";

export type PolicyKey = Exclude<keyof Policy, "version">;

export type PolicyField = {
  key: PolicyKey;
  label: string;
  unit: string;
  empty: string | null; // what an empty box means; null: a value is needed
};

export const POLICY_FIELDS: readonly PolicyField[] = [
  { key: "max_depth", label: "Max depth", unit: "asks deep", empty: null },
  { key: "ask_timeout_s", label: "Ask timeout", unit: "s", empty: null },
  { key: "queue_wait_s", label: "Queue wait", unit: "s", empty: null },
  { key: "hibernate_after_s", label: "Hibernate after", unit: "s idle", empty: "never" },
  { key: "chain_token_budget", label: "Chain token budget", unit: "tokens", empty: "none" },
];

export type PolicyForm = Record<PolicyKey, string>;

/** The text each box starts with: the number, or nothing for null. */
export function policyToForm(p: Partial<Policy> | null | undefined): PolicyForm {
  const form = {} as PolicyForm;
  for (const { key } of POLICY_FIELDS) {
    const v = p?.[key];
    form[key] = typeof v === "number" && Number.isFinite(v) ? String(v) : "";
  }
  return form;
}

export type PolicyRead =
  { ok: true; policy: Omit<Policy, "version"> } | { ok: false; field: PolicyKey; message: string };

/** What `policy.set` is sent for the typed boxes, or the first box that is not a number. */
export function policyFromForm(form: PolicyForm): PolicyRead {
  const policy = {} as Record<PolicyKey, number | null>;
  for (const { key, empty } of POLICY_FIELDS) {
    const text = (form[key] ?? "").trim();
    if (!text) {
      if (empty === null) return { ok: false, field: key, message: "a number is needed" };
      policy[key] = null;
      continue;
    }
    const v = Number(text);
    if (!Number.isFinite(v)) return { ok: false, field: key, message: `"${text}" is not a number` };
    policy[key] = v;
  }
  return { ok: true, policy: policy as Omit<Policy, "version"> };
}

/** The closed form's one line: "depth 3 · timeout 300 s · no hibernation · budget 200k". */
export function policySummary(form: PolicyForm): string {
  const budget = Number(form.chain_token_budget);
  return [
    form.max_depth && `depth ${form.max_depth}`,
    form.ask_timeout_s && `timeout ${form.ask_timeout_s} s`,
    form.hibernate_after_s ? `hibernate after ${form.hibernate_after_s} s` : "no hibernation",
    form.chain_token_budget ? `budget ${formatTokens(budget)}` : "no budget",
  ]
    .filter(Boolean)
    .join(" · ");
}

/** The box a refused `policy.set` is about: the error's `field`, or the field its message starts
 * with (`max_depth: …`, `policy.max_depth: …`); null when it names none. */
export function fieldOfError(e: ApiError): PolicyKey | null {
  const keys = POLICY_FIELDS.map((f) => f.key as string);
  if (typeof e.field === "string") {
    const named = e.field.replace(/^policy\./, "");
    if (keys.includes(named)) return named as PolicyKey;
  }
  const m =
    /^\s*(?:policy\.)?([a-z_]+)\s*:/.exec(e.message ?? "") ??
    /^policy field .([a-z_]+)./.exec(e.message ?? "");
  return m && keys.includes(m[1]) ? (m[1] as PolicyKey) : null;
}

export type AsksFrom = { anyone: boolean; allowed: string[] };

/** The editor's choice for an agent's `asks_from`; absent or holding "*" means anyone. */
export function asksFromChoice(value: unknown): AsksFrom {
  if (!Array.isArray(value) || value.includes("*")) return { anyone: true, allowed: [] };
  return { anyone: false, allowed: value.filter((v): v is string => typeof v === "string") };
}

/** The `asks_from` to save: ["*"], or the checked names among the agents that still exist, in
 * their order (an empty list: only the user may ask). */
export function asksFromValue(
  anyone: boolean,
  checked: readonly string[],
  others: readonly string[],
): string[] {
  if (anyone) return ["*"];
  return others.filter((name) => checked.includes(name));
}
