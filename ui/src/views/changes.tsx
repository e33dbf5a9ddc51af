// The Changes view of an agent in its own git worktree: the files it changed, the diff (rendered
// by diff2html, which escapes every line: the diff is the agent's output), Merge and Discard.

import { html as diffHtml } from "diff2html";
import "diff2html/bundles/css/diff2html.min.css";
import { useEffect, useState } from "preact/hooks";

import { api } from "../model/api";
import { store } from "../model/state";
import type { AgentRow, WorkspaceChanges } from "../model/types";
import { showError, showNotice } from "./banner";

type Shown = WorkspaceChanges | "reading" | "unread";

export function ChangesView({ agent, onClose }: { agent: AgentRow; onClose: () => void }) {
  const name = agent.name;
  const [changes, setChanges] = useState<Shown>("reading");
  const load = async () => {
    setChanges("reading");
    try {
      setChanges(await api.call<WorkspaceChanges>("workspace.changes", { name }));
    } catch (err) {
      setChanges("unread");
      showError(err, `Changes of ${name}`);
    }
  };
  useEffect(() => void load(), [name]);

  const merge = async () => {
    if (!confirm(`Merge ${name}'s work into the project's current branch?`)) return;
    try {
      const done = await api.call<{ into: string; files: number }>("workspace.merge", { name });
      showNotice(`Merged ${name}'s work into ${done.into}: ${done.files} file(s).`);
      await store.reloadAgents();
      await load();
    } catch (err) {
      showError(err, `Merge ${name}`);
    }
  };
  const discard = async () => {
    if (!confirm(`Discard everything ${name} changed in its worktree? This cannot be undone.`))
      return;
    try {
      await api.call("workspace.discard", { name });
      showNotice(`${name}'s worktree is back where its branch started.`);
      await load();
    } catch (err) {
      showError(err, `Discard ${name}`);
    }
  };

  const shown = typeof changes === "object" ? changes : null;
  const empty = shown !== null && shown.files.length === 0;
  return (
    <div class="changes">
      <div class="changes-head">
        <h3>{`Changes of ${name}`}</h3>
        <span class="muted">
          {shown
            ? `${shown.files.length} file(s) on ${shown.branch}, ${shown.ahead} commit(s) ahead`
            : ""}
        </span>
        <button class="btn" onClick={onClose}>
          Back
        </button>
      </div>
      {changes === "reading" ? <div class="muted">Reading the agent's changes…</div> : null}
      {shown ? (
        <>
          {empty ? (
            <div class="muted">Nothing changed since its branch left the project's.</div>
          ) : (
            <table class="changes-files">
              {shown.files.map((f) => (
                <tr key={f.path} data-path={f.path}>
                  <td class={`status ${f.status}`}>{f.status}</td>
                  <td class="path">{f.path}</td>
                  <td class="count added">{`+${f.additions}`}</td>
                  <td class="count deleted">{`−${f.deletions}`}</td>
                </tr>
              ))}
            </table>
          )}
          {shown.truncated ? (
            <div class="muted">The diff is cut here: it is longer than shown.</div>
          ) : null}
          {empty ? null : (
            <div
              class="changes-diff"
              // diff2html escapes the diff's text; the result is its own markup.
              dangerouslySetInnerHTML={{
                __html: diffHtml(shown.diff, { drawFileList: false, outputFormat: "line-by-line" }),
              }}
            />
          )}
          <div class="form-buttons">
            <button class="btn primary" onClick={() => void merge()} disabled={empty}>
              Merge
            </button>
            <button class="btn danger" onClick={() => void discard()} disabled={empty}>
              Discard
            </button>
          </div>
        </>
      ) : null}
    </div>
  );
}
