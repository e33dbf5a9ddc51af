// The command palette's choices: every command of the key table (model/keys.ts), filtered and
// ranked by what was typed, and the selection moved by the arrow keys. Pure.

import { type Action, COMMANDS, type Command, commandKeys } from "./keys";

export type Choice = { action: Action; label: string; group: string; keys: string[] };

/** Every command, in the table's order. */
export function allChoices(commands: readonly Command[] = COMMANDS): Choice[] {
  return commands.map((c) => ({
    action: c.action,
    label: c.label,
    group: c.group,
    keys: commandKeys(c),
  }));
}

/**
 * How well `word` matches `text` (both lower case): a substring at a word start is best, then
 * anywhere, then its letters in order ("spr" in "split right"); -1 when not at all.
 */
function wordScore(word: string, text: string): number {
  const at = text.indexOf(word);
  if (at === 0 || (at > 0 && /[\s+/·-]/.test(text[at - 1]))) return 300 - at;
  if (at > 0) return 200 - at;
  let i = 0;
  let gaps = 0;
  for (let j = 0; j < text.length && i < word.length; j++) {
    if (text[j] === word[i]) i++;
    else if (i > 0) gaps++;
  }
  return i === word.length ? 100 - gaps : -1;
}

/**
 * The choices whose label, group or keys hold every word of `query` (case-insensitive), best
 * first; the table's order among equals. An empty query keeps them all, in order.
 */
export function filterChoices(choices: readonly Choice[], query: string): Choice[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return [...choices];
  const scored: { choice: Choice; score: number; i: number }[] = [];
  choices.forEach((choice, i) => {
    const label = choice.label.toLowerCase();
    const rest = `${choice.group} ${choice.keys.join(" ")}`.toLowerCase();
    let total = 0;
    for (const w of words) {
      const inLabel = wordScore(w, label);
      // Keys and group count less than the label, and only as substrings ("ctrl" "f6").
      const inRest = rest.includes(w) ? 50 : -1;
      const best = Math.max(inLabel, inRest);
      if (best < 0) return;
      total += best;
    }
    scored.push({ choice, score: total, i });
  });
  scored.sort((x, y) => y.score - x.score || x.i - y.i);
  return scored.map((s) => s.choice);
}

/** The selection after moving by `delta` through `count` choices, wrapping; -1 if there are none. */
export function moveSelection(current: number, delta: number, count: number): number {
  if (count <= 0) return -1;
  if (current < 0) return delta >= 0 ? 0 : count - 1;
  return (((current + delta) % count) + count) % count;
}
