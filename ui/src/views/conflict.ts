// The notice an editor shows when its save was refused because the file changed on disk
// meanwhile (DESIGN.md §18): what happened, the file as it is on disk and the edit not saved,
// and the two ways on: "Reload from disk" (drop the edit) or "Overwrite" (save it knowingly).

import { shortPath, shownText, type EditConflict } from "../model/edits";
import { h } from "./dom";

export type ConflictActions = { reload: () => void; overwrite: () => void };

export function conflictNotice(conflict: EditConflict, actions: ConflictActions): HTMLElement {
  const file = shortPath(conflict.path) || "The file";
  const version = (label: string, cls: string, text: string) =>
    h(
      "div.conflict-version",
      { class: cls },
      h("div.conflict-label.muted", {}, label),
      h("pre.conflict-text", { tabIndex: 0 }, shownText(text)),
    );
  return h(
    "div.edit-conflict",
    { role: "alert", dataset: { path: conflict.path } },
    h(
      "p.conflict-message",
      {},
      h("strong", {}, `${file} changed on disk since you opened it.`),
      " Your edit is not saved. Reload to take the version on disk (your edit is dropped), or ",
      "overwrite it with yours.",
    ),
    h(
      "div.conflict-versions",
      {},
      version("On disk now", "on-disk", conflict.content_on_disk),
      version("Yours (not saved)", "yours", conflict.yours),
    ),
    h(
      "div.form-buttons",
      {},
      h(
        "button.btn.conflict-reload",
        { type: "button", onclick: actions.reload },
        "Reload from disk",
      ),
      h(
        "button.btn.danger.conflict-overwrite",
        { type: "button", onclick: actions.overwrite },
        "Overwrite",
      ),
    ),
  );
}
