// The "Open project" dialog: the native folder dialog in the desktop window, a path field and the
// recent projects everywhere. Opening goes through `project.open`; every client then receives
// `ProjectOpened` and reloads (main.ts), so this dialog only asks and reports errors. Rendered by
// Preact inside its overlay, at once on each change; the path field keeps what is typed.

import { render } from "preact";

import { api, ApiFailure } from "../model/api";
import type { RecentProject } from "../model/types";
import { trapFocus } from "./focus";
import { formErrorOf, rootElement, type FormError } from "./reactive";

type WindowBridge = { pick_folder(): Promise<string | null> };

/** The desktop window's bridge (pywebview `js_api`), absent in a browser. */
function windowBridge(): WindowBridge | null {
  const pywebview = (window as unknown as { pywebview?: { api?: Partial<WindowBridge> } })
    .pywebview;
  return typeof pywebview?.api?.pick_folder === "function" ? (pywebview.api as WindowBridge) : null;
}

type DialogState = {
  chooser: boolean; // the desktop window can show its folder dialog
  error: FormError | null;
  recent: RecentProject[] | null; // null: not read yet
};

export class OpenProjectDialog {
  readonly el = rootElement("overlay");
  private state: DialogState = { chooser: false, error: null, recent: null };
  private busy = false;
  private release: (() => void) | null = null;

  constructor() {
    this.el.hidden = true;
    this.el.addEventListener("pointerdown", (e) => e.target === this.el && this.close());
    document.addEventListener("keydown", (e) => {
      if (e.key === "Escape" && !this.el.hidden) this.close();
    });
    this.set({});
  }

  get isOpen(): boolean {
    return !this.el.hidden;
  }

  /** What the dialog shows. */
  get shown(): Readonly<DialogState> {
    return this.state;
  }

  async show(): Promise<void> {
    this.set({ chooser: windowBridge() !== null, error: null });
    this.el.hidden = false;
    this.release ??= trapFocus(this.el);
    this.el.querySelector<HTMLInputElement>("input.path-input")?.focus();
    try {
      this.set({ recent: await api.call("project.recent") });
    } catch (e) {
      this.fail(e);
    }
  }

  close(): void {
    this.el.hidden = true;
    this.release?.();
    this.release = null;
  }

  toggle(): void {
    if (this.isOpen) this.close();
    else void this.show();
  }

  async choose(): Promise<void> {
    const bridge = windowBridge();
    if (!bridge) return;
    try {
      const folder = await bridge.pick_folder();
      if (folder) await this.open(folder);
    } catch (e) {
      this.fail(e);
    }
  }

  async open(path: string): Promise<void> {
    if (this.busy) return;
    if (!path)
      return this.fail(new ApiFailure({ code: "MISSING_FIELD", message: "Type a folder path." }));
    this.busy = true;
    this.el.classList.add("busy");
    this.set({ error: null });
    try {
      await api.call("project.open", { path });
      this.close();
    } catch (e) {
      this.fail(e);
    } finally {
      this.busy = false;
      this.el.classList.remove("busy");
    }
  }

  private fail(e: unknown): void {
    this.set({ error: formErrorOf(e) });
  }

  private set(change: Partial<DialogState>): void {
    this.state = { ...this.state, ...change };
    render(<Dialog dialog={this} />, this.el);
  }
}

function Dialog({ dialog }: { dialog: OpenProjectDialog }) {
  const { chooser, error, recent } = dialog.shown;
  return (
    <div class="dialog open-project" role="dialog" aria-modal="true" aria-label="Open a project">
      <div class="dialog-head">
        <span class="dialog-title">Open a project</span>
        <button class="btn ghost icon" type="button" title="Close" onClick={() => dialog.close()}>
          ✕
        </button>
      </div>
      <button
        class="btn primary choose-folder"
        type="button"
        hidden={!chooser}
        onClick={() => void dialog.choose()}
      >
        Choose folder…
      </button>
      <form
        class="path-form"
        onSubmit={(e) => {
          e.preventDefault();
          const path = e.currentTarget.querySelector<HTMLInputElement>("input.path-input");
          void dialog.open(path?.value.trim() ?? "");
        }}
      >
        <input
          class="path-input"
          type="text"
          placeholder="/path/to/a/project/folder"
          spellcheck={false}
          autocomplete="off"
          aria-label="Project folder"
        />
        <button class="btn primary" type="submit">
          Open
        </button>
      </form>
      <p class="dialog-error" role="alert" hidden={!error} data-code={error?.code}>
        {error?.text ?? ""}
      </p>
      <div class="recent-title">Recent projects</div>
      <ul class="recent-list" aria-label="Recent projects">
        {recent?.length === 0 ? <li class="muted">None yet.</li> : null}
        {recent?.map((row) => (
          <Recent key={row.root} row={row} dialog={dialog} />
        ))}
      </ul>
      <p class="muted">
        Any folder can be a project: IdeA keeps its state in a .ideai folder inside it. The current
        project is closed (its agents stopped) once the other one is open.
      </p>
    </div>
  );
}

function Recent({ row, dialog }: { row: RecentProject; dialog: OpenProjectDialog }) {
  const title = row.current ? "Open now" : row.exists ? `Open ${row.root}` : "This folder is gone";
  return (
    <li>
      <button
        class="recent-row"
        type="button"
        disabled={row.current || !row.exists}
        title={title}
        data-root={row.root}
        onClick={() => void dialog.open(row.root)}
      >
        <span class="recent-name">{row.name}</span>
        <span class="recent-root">{row.root}</span>
        {row.current ? (
          <span class="badge">open</span>
        ) : !row.exists ? (
          <span class="badge">missing</span>
        ) : null}
      </button>
    </li>
  );
}
