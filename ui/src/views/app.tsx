// The app shell: the header (project, tabs, connection, help, panel toggle), the workspace and
// the side panel, and the commands of the key table. The views it holds are objects with an
// element each, mounted here; the header renders again when the store or the connection changes.

import { signal } from "@preact/signals";

import { api, type ConnectionState } from "../model/api";
import { store } from "../model/state";
import { bannerHost, FOCUS_CELL_EVENT, hide, showError, showNotice, showProblems } from "./banner";
import { Workspace } from "./layout";
import { Mount } from "./mount";
import { CommandPalette } from "./palette";
import { OpenProjectDialog } from "./projects";
import { classes, useStore } from "./reactive";
import { type Action, HelpButton } from "./shortcuts";
import { SidePanel } from "./sidepanel";
import { TabBar } from "./tabs";
import { stepTerminalFont } from "./termfont";
import { TrustBanner } from "./trust";

const CONNECTION_TEXT: Record<ConnectionState, string> = {
  connecting: "connecting…",
  open: "connected",
  closed: "disconnected",
};

export class Shell {
  readonly openProject = new OpenProjectDialog();
  readonly tabs = new TabBar();
  readonly workspace = new Workspace();
  readonly panel = new SidePanel();
  readonly help = new HelpButton();
  readonly trustBanner = new TrustBanner();
  readonly palette = new CommandPalette((action) => this.run(action));
  readonly connection = signal<ConnectionState>("connecting");
  readonly panelHidden = signal(false);
  /** Resolved once the project is shown: the desktop window waits on it before saying "ready". */
  readonly ready: Promise<void>;
  private markReady: () => void = () => {};
  private everConnected = false; // before the first connection nothing is on screen to keep
  private askedForProject = false;

  constructor() {
    this.ready = new Promise<void>((resolve) => {
      this.markReady = resolve;
    });
    window.addEventListener(FOCUS_CELL_EVENT, (e) =>
      this.workspace.focusCell(String((e as CustomEvent).detail)),
    );
    store.subscribe(() => {
      document.title = `${store.project?.name ?? "IdeA"} — IdeA`;
      this.tabs.render();
      this.workspace.render();
    });
  }

  /** Every command of the key table (model/keys.ts), from a key or the palette. */
  run(action: Action): void {
    switch (action) {
      case "help":
        return this.help.toggle();
      case "openProject":
        return this.openProject.toggle();
      case "palette":
        return this.palette.toggle();
      case "panel":
        return this.togglePanel();
      case "nextTab":
      case "prevTab":
        return void this.tabs.step(action === "nextTab" ? 1 : -1);
      case "newTab":
        return void this.tabs.add();
      case "fontBigger":
      case "fontSmaller":
      case "fontReset":
        return stepTerminalFont(action);
      default:
        return void this.workspace.run(action);
    }
  }

  togglePanel(): void {
    this.panelHidden.value = !this.panelHidden.value;
  }

  /** The connection changed: say so; offline, what is on screen stays, greyed and inert. */
  connectionChanged(state: ConnectionState, code?: number, retryInMs?: number): void {
    this.connection.value = state;
    document.body.classList.toggle("offline", state !== "open" && this.everConnected);
    if (state === "closed") {
      const what = code === 1001 ? "The project was closed." : "Connection lost.";
      const when = retryInMs
        ? ` Reconnecting in ${Math.max(1, Math.round(retryInMs / 1000))} s…`
        : " Reconnecting…";
      showNotice(what + when, { label: "Retry now", run: () => api.retryNow() });
    }
    if (state === "open") {
      this.everConnected = true;
      hide();
      void this.load();
    }
  }

  /** Show the project the server has open, from nothing (a new connection, another project). */
  async load(): Promise<void> {
    try {
      this.workspace.reset();
      await store.loadAll();
      await this.panel.refresh();
      await this.trustBanner.refresh();
      this.markReady();
      // Started from a desktop menu with no project to reopen: ask which one to open.
      if (store.project?.scratch && !this.askedForProject) {
        this.askedForProject = true;
        void this.openProject.show();
      }
      // Files moved aside, copied agents, asks in flight when IdeA last closed (LOST).
      showProblems(await api.call("problems.list"));
    } catch (e) {
      showError(e, "Loading the project");
    }
  }
}

export function App({ shell }: { shell: Shell }) {
  return (
    <>
      <Header shell={shell} />
      <Mount el={shell.trustBanner.el} />
      <Mount el={bannerHost()} />
      <main class={classes("main", shell.panelHidden.value && "panel-hidden")}>
        <Mount el={shell.workspace.el} />
        <Mount el={shell.panel.el} />
      </main>
      <Mount el={shell.openProject.el} />
      <Mount el={shell.palette.el} />
    </>
  );
}

function Header({ shell }: { shell: Shell }) {
  const name = useStore().project?.name ?? "IdeA";
  const state = shell.connection.value;
  return (
    <header class="topbar">
      <span class="logo">IdeA</span>
      <button
        class="project-name"
        title="Open another project (Alt+Shift+O)"
        onClick={() => shell.openProject.toggle()}
      >
        {name}
      </button>
      <Mount el={shell.tabs.el} />
      <span class="spacer" />
      <span class="connection" data-state={state}>
        {CONNECTION_TEXT[state]}
      </span>
      <Mount el={shell.help.el} />
      <button class="btn small" title="Toggle side panel" onClick={() => shell.togglePanel()}>
        Panel
      </button>
    </header>
  );
}
