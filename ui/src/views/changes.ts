// The Changes view of an agent in its own git worktree: the files it changed, the diff (rendered
// by diff2html, which escapes every line: the diff is the agent's output), Merge and Discard.

import { html as diffHtml } from "diff2html";
import "diff2html/bundles/css/diff2html.min.css";

import { api } from "../model/api";
import { store } from "../model/state";
import type { AgentRow, WorkspaceChanges } from "../model/types";
import { showError, showNotice } from "./banner";
import { clear, h } from "./dom";

export class ChangesView {
  readonly el = h("div.changes");

  constructor(
    private readonly agent: AgentRow,
    private readonly close: () => void,
  ) {}

  async load(): Promise<void> {
    clear(this.el, this.head(), h("div.muted", {}, "Reading the agent's changes…"));
    try {
      this.show(await api.call("workspace.changes", { name: this.agent.name }));
    } catch (err) {
      clear(this.el, this.head());
      showError(err, `Changes of ${this.agent.name}`);
    }
  }

  private head(changes?: WorkspaceChanges): HTMLElement {
    const summary = changes
      ? `${changes.files.length} file(s) on ${changes.branch}, ${changes.ahead} commit(s) ahead`
      : "";
    return h(
      "div.changes-head",
      {},
      h("h3", {}, `Changes of ${this.agent.name}`),
      h("span.muted", {}, summary),
      h("button.btn", { onclick: () => this.close() }, "Back"),
    );
  }

  private show(changes: WorkspaceChanges): void {
    const empty = changes.files.length === 0;
    const files = h(
      "table.changes-files",
      {},
      ...changes.files.map((f) =>
        h(
          "tr",
          { dataset: { path: f.path } },
          h("td", { class: `status ${f.status}` }, f.status),
          h("td.path", {}, f.path),
          h("td.count.added", {}, `+${f.additions}`),
          h("td.count.deleted", {}, `−${f.deletions}`),
        ),
      ),
    );
    const diff = h("div.changes-diff");
    // diff2html escapes the diff's text; the result is its own markup.
    diff.innerHTML = diffHtml(changes.diff, { drawFileList: false, outputFormat: "line-by-line" });
    clear(
      this.el,
      this.head(changes),
      empty ? h("div.muted", {}, "Nothing changed since its branch left the project's.") : files,
      changes.truncated ? h("div.muted", {}, "The diff is cut here: it is longer than shown.") : "",
      empty ? "" : diff,
      h(
        "div.form-buttons",
        {},
        h("button.btn.primary", { onclick: () => void this.merge(), disabled: empty }, "Merge"),
        h("button.btn.danger", { onclick: () => void this.discard(), disabled: empty }, "Discard"),
      ),
    );
  }

  private async merge(): Promise<void> {
    const name = this.agent.name;
    if (!confirm(`Merge ${name}'s work into the project's current branch?`)) return;
    try {
      const done = await api.call("workspace.merge", { name });
      showNotice(`Merged ${name}'s work into ${done.into}: ${done.files} file(s).`);
      await store.reloadAgents();
      await this.load();
    } catch (err) {
      showError(err, `Merge ${name}`);
    }
  }

  private async discard(): Promise<void> {
    const name = this.agent.name;
    if (!confirm(`Discard everything ${name} changed in its worktree? This cannot be undone.`)) return;
    try {
      await api.call("workspace.discard", { name });
      showNotice(`${name}'s worktree is back where its branch started.`);
      await this.load();
    } catch (err) {
      showError(err, `Discard ${name}`);
    }
  }
}
