// The "Open project" dialog: the native folder dialog in the desktop window, a path field and the
// recent projects everywhere. Opening goes through `project.open`; every client then receives
// `ProjectOpened` and reloads (main.ts), so this dialog only asks and reports errors.

import { api, ApiFailure } from "../model/api";
import { describeError } from "../model/errors";
import type { ProjectInfo, RecentProject } from "../model/types";
import { clear, h } from "./dom";
import { trapFocus } from "./focus";

type WindowBridge = { pick_folder(): Promise<string | null> };

/** The desktop window's bridge (pywebview `js_api`), absent in a browser. */
function windowBridge(): WindowBridge | null {
  const pywebview = (window as unknown as { pywebview?: { api?: Partial<WindowBridge> } })
    .pywebview;
  return typeof pywebview?.api?.pick_folder === "function" ? (pywebview.api as WindowBridge) : null;
}

export class OpenProjectDialog {
  private readonly error = h("p.dialog-error", { role: "alert", hidden: true });
  private readonly path = h("input.path-input", {
    type: "text",
    placeholder: "/path/to/a/project/folder",
    spellcheck: false,
    autocomplete: "off",
    "aria-label": "Project folder",
  });
  private readonly recent = h("ul.recent-list", { "aria-label": "Recent projects" });
  private readonly chooser = h(
    "button.btn.primary.choose-folder",
    { type: "button", hidden: true, onclick: () => void this.choose() },
    "Choose folder…",
  );
  private busy = false;
  private release: (() => void) | null = null;
  readonly el = h(
    "div.overlay",
    { hidden: true, onpointerdown: (e: Event) => e.target === this.el && this.close() },
    h(
      "div.dialog.open-project",
      { role: "dialog", "aria-modal": "true", "aria-label": "Open a project" },
      h(
        "div.dialog-head",
        {},
        h("span.dialog-title", {}, "Open a project"),
        h(
          "button.btn.ghost.icon",
          { type: "button", title: "Close", onclick: () => this.close() },
          "✕",
        ),
      ),
      this.chooser,
      h(
        "form.path-form",
        {
          onsubmit: (e: Event) => {
            e.preventDefault();
            void this.open(this.path.value.trim());
          },
        },
        this.path,
        h("button.btn.primary", { type: "submit" }, "Open"),
      ),
      this.error,
      h("div.recent-title", {}, "Recent projects"),
      this.recent,
      h(
        "p.muted",
        {},
        "Any folder can be a project: IdeA keeps its state in a .ideai folder inside it. " +
          "The current project is closed (its agents stopped) once the other one is open.",
      ),
    ),
  );

  constructor() {
    document.addEventListener("keydown", (e) => {
      if (e.key === "Escape" && !this.el.hidden) this.close();
    });
  }

  get isOpen(): boolean {
    return !this.el.hidden;
  }

  async show(): Promise<void> {
    this.chooser.hidden = windowBridge() === null;
    this.setError(null);
    this.el.hidden = false;
    this.release ??= trapFocus(this.el);
    this.path.focus();
    try {
      this.renderRecent(await api.call<RecentProject[]>("project.recent"));
    } catch (e) {
      this.setError(e);
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

  private renderRecent(rows: RecentProject[]): void {
    if (!rows.length) return clear(this.recent, h("li.muted", {}, "None yet."));
    clear(
      this.recent,
      ...rows.map((row) =>
        h(
          "li",
          {},
          h(
            "button.recent-row",
            {
              type: "button",
              disabled: row.current || !row.exists,
              title: row.current
                ? "Open now"
                : row.exists
                  ? `Open ${row.root}`
                  : "This folder is gone",
              dataset: { root: row.root },
              onclick: () => void this.open(row.root),
            },
            h("span.recent-name", {}, row.name),
            h("span.recent-root", {}, row.root),
            row.current
              ? h("span.badge", {}, "open")
              : !row.exists
                ? h("span.badge", {}, "missing")
                : null,
          ),
        ),
      ),
    );
  }

  private async choose(): Promise<void> {
    const bridge = windowBridge();
    if (!bridge) return;
    try {
      const folder = await bridge.pick_folder();
      if (folder) await this.open(folder);
    } catch (e) {
      this.setError(e);
    }
  }

  private async open(path: string): Promise<void> {
    if (this.busy) return;
    if (!path)
      return this.setError(
        new ApiFailure({ code: "MISSING_FIELD", message: "Type a folder path." }),
      );
    this.busy = true;
    this.el.classList.add("busy");
    this.setError(null);
    try {
      await api.call<ProjectInfo>("project.open", { path });
      this.close();
    } catch (e) {
      this.setError(e);
    } finally {
      this.busy = false;
      this.el.classList.remove("busy");
    }
  }

  private setError(e: unknown): void {
    this.error.hidden = e === null;
    if (e === null) {
      this.error.textContent = "";
      return;
    }
    const error = e instanceof ApiFailure ? e.error : { code: "INTERNAL", message: String(e) };
    this.error.textContent = describeError(error).text;
    this.error.dataset.code = error.code;
  }
}
