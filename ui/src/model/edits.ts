// An editor's hold on the file it edits (DESIGN.md §18): the `version` its get gave, sent back
// with the save; a save refused because the file changed on disk meanwhile (CONFLICT carrying
// both versions) leaves the edit as typed, and the user picks: reload from disk (drop the edit)
// or overwrite (save again on the version now on disk, knowingly). Pure, so it is tested alone.

import type { ApiError } from "./types";

/** A refused save: the file as it is on disk now, and what the save would have written. */
export type EditConflict = {
  message: string;
  path: string;
  version_on_disk: string;
  content_on_disk: string;
  yours: string;
};

export type EditState = {
  version: string | null; // the version the edit is made on; null: the server gave none
  conflict: EditConflict | null; // the last save's refusal, until reload or overwrite
};

/** The state of an editor just filled from a get's result (its `version`, when it has one). */
export function opened(result: unknown): EditState {
  const version = (result as { version?: unknown } | null)?.version;
  return { version: typeof version === "string" ? version : null, conflict: null };
}

/** What a save sends beside its fields: the version it was made on (none if unknown: an old
 * server, whose saves replace the file as they always did). */
export function versionParam(state: EditState): { version?: string } {
  return state.version === null ? {} : { version: state.version };
}

/** The conflict an error is, or null: a CONFLICT that carries the version on disk. */
export function editConflictOf(e: ApiError | null | undefined): EditConflict | null {
  if (!e || e.code !== "CONFLICT" || typeof e.version_on_disk !== "string") return null;
  const text = (v: unknown) => (typeof v === "string" ? v : "");
  return {
    message: text(e.message),
    path: text(e.path),
    version_on_disk: e.version_on_disk,
    content_on_disk: text(e.content_on_disk),
    yours: text(e.yours),
  };
}

/** After a refused save: the conflict is kept (the edit as typed stays in the form). */
export function refused(state: EditState, conflict: EditConflict): EditState {
  return { ...state, conflict };
}

/** "Overwrite": the next save is made on the version now on disk, so it replaces it. */
export function overwrite(state: EditState): EditState {
  return state.conflict ? { version: state.conflict.version_on_disk, conflict: null } : state;
}

/** At most this many characters of a version are shown (a file may be megabytes). */
export const SHOWN_MAX_CHARS = 20_000;

/** The text shown for one version: cut, with a line saying how much is not shown. */
export function shownText(text: string, max = SHOWN_MAX_CHARS): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[… ${(text.length - max).toLocaleString("en")} more characters not shown]`;
}

/** "agents/rev.md": the file named from its project's `.ideai/` folder, else the path as given. */
export function shortPath(path: string): string {
  const at = path.replace(/\\/g, "/").lastIndexOf("/.ideai/");
  return at < 0 ? path : path.slice(at + "/.ideai/".length);
}
