// The app shell: header, tabs, workspace and side panel, wired to the server's pushed events.

import { api, ApiFailure } from "./model/api";
import { forgetTranscripts, onChatEvent, setQueued } from "./model/chatlog";
import { store } from "./model/state";
import {
  bannerHost,
  FOCUS_CELL_EVENT,
  hide,
  showError,
  showNotice,
  showProblems,
} from "./views/banner";
import { debounce, h } from "./views/dom";
import { Workspace } from "./views/layout";
import {
  askPermissionOnGesture,
  notifiedRecently,
  notifyAgent,
  preview,
  windowFocused,
} from "./views/notify";
import { OpenProjectDialog } from "./views/projects";
import { CommandPalette } from "./views/palette";
import { type Action, HelpButton, installShortcuts } from "./views/shortcuts";
import { SidePanel } from "./views/sidepanel";
import { TabBar } from "./views/tabs";
import { stepTerminalFont } from "./views/termfont";
import { TrustBanner } from "./views/trust";
import "./style.css";

// The page load set the auth cookie; keep the token out of the address bar and history.
if (location.search.includes("token=")) history.replaceState(null, "", "/");

const openProject = new OpenProjectDialog();
const projectName = h(
  "button.project-name",
  { title: "Open another project (Alt+Shift+O)", onclick: () => openProject.toggle() },
  "IdeA",
);
const connection = h("span.connection", { dataset: { state: "connecting" } }, "connecting…");
const panelToggle = h("button.btn.small", { title: "Toggle side panel" }, "Panel");
const tabs = new TabBar();
const workspace = new Workspace();
window.addEventListener(FOCUS_CELL_EVENT, (e) =>
  workspace.focusCell(String((e as CustomEvent).detail)),
);
const panel = new SidePanel();
const help = new HelpButton();
const trustBanner = new TrustBanner();
const palette = new CommandPalette((action) => runAction(action));

const app = document.getElementById("app")!;
app.append(
  h(
    "header.topbar",
    {},
    h("span.logo", {}, "IdeA"),
    projectName,
    tabs.el,
    h("span.spacer"),
    connection,
    help.el,
    panelToggle,
  ),
  trustBanner.el,
  bannerHost(),
  h("main.main", {}, workspace.el, panel.el),
  openProject.el,
  palette.el,
);
panelToggle.addEventListener("click", () => app.classList.toggle("panel-hidden"));

/** Every command of the key table (model/keys.ts), from a key or the palette. */
function runAction(action: Action): void {
  switch (action) {
    case "help":
      return help.toggle();
    case "openProject":
      return openProject.toggle();
    case "palette":
      return palette.toggle();
    case "panel":
      app.classList.toggle("panel-hidden");
      return;
    case "nextTab":
    case "prevTab":
      return void tabs.step(action === "nextTab" ? 1 : -1);
    case "newTab":
      return void tabs.add();
    case "fontBigger":
    case "fontSmaller":
    case "fontReset":
      return stepTerminalFont(action);
    default:
      return void workspace.run(action);
  }
}
installShortcuts(runAction, () => ({ maximized: workspace.maximized }));
askPermissionOnGesture();

store.subscribe(() => {
  const name = store.project?.name ?? "IdeA";
  projectName.textContent = name;
  document.title = `${name} — IdeA`;
  tabs.render();
  workspace.render();
});

const reloadAgents = debounce(() => void store.reloadAgents().catch(() => {}), 40);
const reloadLayouts = debounce(() => void store.reloadLayouts().catch(() => {}), 40);
const refreshBoard = debounce(() => panel.active === "board" && void panel.board.refresh(), 80);
const refreshLog = debounce(() => panel.active === "log" && void panel.log.refresh(), 80);

// The timeline's buttons say whether a cell shows the agent: agents and cells change them too.
for (const ev of ["AgentsChanged", "AgentLaunched", "AgentStopped", "TerminalExit"] as const) {
  api.on(ev, () => (reloadAgents(), refreshBoard(), refreshLog()));
}
api.on("LiveStateChanged", () => (reloadAgents(), refreshBoard()));
api.on("AgentReplied", refreshBoard);
// A turn starting serves an ask; one ending adds to the agent's and its chain's usage.
api.on("AgentTurnStarted", refreshBoard);
api.on("AgentTurnFinished", refreshBoard);
// An ask accepted or withdrawn: the board's count, and the timeline's queued asks.
api.on("AgentQueueChanged", (d) => {
  setQueued(d.agent_id, d.queued);
  refreshBoard();
  refreshLog();
});

// Desktop notifications while the window is not focused (notify.ts decides; it skips when focused).
const agentName = (d: { agent_id: string; agent_name?: string }) =>
  d.agent_name ?? store.agentById(d.agent_id)?.name;
api.on("AgentReplied", (d) => {
  const name = agentName(d);
  if (name) notifyAgent(name, preview(d.preview));
});
api.on("AgentTurnFinished", (d) => {
  // A turn that also replies (an ask) gets AgentReplied with a preview: let that one speak.
  if (windowFocused()) return; // decided now, not after the wait
  setTimeout(() => {
    const name = agentName(d);
    if (name && !notifiedRecently(name))
      notifyAgent(name, d.ok ? "finished a turn" : "turn failed");
  }, 400);
});
const lastStatus = new Map<string, string>();
api.on("LiveStateChanged", (d) => {
  const id = d.agent_id;
  const status = d.status;
  const was = lastStatus.get(id);
  lastStatus.set(id, status);
  const name = agentName(d);
  if (status === "blocked" && was !== "blocked" && name) notifyAgent(name, "is blocked");
});
// A closed cell's agent runs on in the background: the agents' cells changed too.
api.on("LayoutChanged", () => (reloadLayouts(), reloadAgents(), refreshBoard(), refreshLog()));
// Another project is open (from this page or another client): start over on it.
api.on("ProjectTrustChanged", () => void trustBanner.refresh().catch(() => {}));
api.on("ProjectOpened", () => {
  trustBanner.reset();
  panel.agents.policy.reset();
  openProject.close();
  forgetTranscripts();
  lastStatus.clear();
  hide();
  void load();
});
api.on("OrchestratorRequestProcessed", () => (refreshLog(), refreshBoard()));
api.on("ChatEvent", onChatEvent);
// A CLI update is what silently breaks an integration: say so, and offer the check.
api.on("CliVersionChanged", (d) =>
  showNotice(
    `${d.profile} is now version ${d.current}; ${d.previous} is the one ` +
      "that last passed IdeA's check.",
    {
      label: "Run doctor",
      run: () => {
        panel.show("agents");
        void panel.agents.runDoctor();
      },
    },
  ),
);
api.on("StoreFileQuarantined", (d) =>
  showError(
    new ApiFailure({
      code: "CORRUPT_FILE",
      message: d.reason,
      path: d.path,
      quarantined_to: d.quarantined_to,
    }),
  ),
);

let everConnected = false; // before the first connection nothing is on screen to keep
api.onState((state, code, retryInMs) => {
  connection.dataset.state = state;
  connection.textContent =
    state === "open" ? "connected" : state === "closed" ? "disconnected" : "connecting…";
  // Offline: what was on screen stays, greyed and inert, until the connection is back.
  document.body.classList.toggle("offline", state !== "open" && everConnected);
  if (state === "closed") {
    const what = code === 1001 ? "The project was closed." : "Connection lost.";
    const when = retryInMs
      ? ` Reconnecting in ${Math.max(1, Math.round(retryInMs / 1000))} s…`
      : " Reconnecting…";
    showNotice(what + when, { label: "Retry now", run: () => api.retryNow() });
  }
  if (state === "open") {
    everConnected = true;
    hide();
    void load();
  }
});

// Resolved once the project is shown: the desktop window waits on it before saying "ready".
let markReady: () => void = () => {};
(window as unknown as { ideaReady: Promise<void> }).ideaReady = new Promise<void>((resolve) => {
  markReady = resolve;
});

let askedForProject = false;

async function load(): Promise<void> {
  try {
    workspace.reset();
    await store.loadAll();
    await panel.refresh();
    await trustBanner.refresh();
    markReady();
    // Started from a desktop menu with no project to reopen: ask which one to open.
    if (store.project?.scratch && !askedForProject) {
      askedForProject = true;
      void openProject.show();
    }
    // Files moved aside, copied agents, asks in flight when IdeA last closed (LOST).
    showProblems(await api.call("problems.list"));
  } catch (e) {
    showError(e, "Loading the project");
  }
}

api.connect();
