// The notice an editor shows when its save was refused because the file changed on disk
// meanwhile (DESIGN.md §18): what happened, the file as it is on disk and the edit not saved,
// and the two ways on: "Reload from disk" (drop the edit) or "Overwrite" (save it knowingly).

import { shortPath, shownText, type EditConflict } from "../model/edits";

export type ConflictActions = { reload: () => void; overwrite: () => void };

export function ConflictNotice(props: { conflict: EditConflict } & ConflictActions) {
  const { conflict } = props;
  const file = shortPath(conflict.path) || "The file";
  return (
    <div class="edit-conflict" role="alert" data-path={conflict.path}>
      <p class="conflict-message">
        <strong>{`${file} changed on disk since you opened it.`}</strong>
        {" Your edit is not saved. Reload to take the version on disk (your edit is dropped), or "}
        overwrite it with yours.
      </p>
      <div class="conflict-versions">
        <Version label="On disk now" cls="on-disk" text={conflict.content_on_disk} />
        <Version label="Yours (not saved)" cls="yours" text={conflict.yours} />
      </div>
      <div class="form-buttons">
        <button class="btn conflict-reload" type="button" onClick={props.reload}>
          Reload from disk
        </button>
        <button class="btn danger conflict-overwrite" type="button" onClick={props.overwrite}>
          Overwrite
        </button>
      </div>
    </div>
  );
}

function Version({ label, cls, text }: { label: string; cls: string; text: string }) {
  return (
    <div class={`conflict-version ${cls}`}>
      <div class="conflict-label muted">{label}</div>
      <pre class="conflict-text" tabIndex={0}>
        {shownText(text)}
      </pre>
    </div>
  );
}
