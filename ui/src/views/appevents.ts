// What the server's pushed events change in the shell: the store reloads, the side panel's board
// and log refresh (each debounced: events come in bursts), a new project starts over, and a CLI
// update or a quarantined file is said. The desktop notifications are notify.ts's.

import { api, ApiFailure } from "../model/api";
import { forgetTranscripts, onChatEvent, setQueued } from "../model/chatlog";
import { store } from "../model/state";
import type { Shell } from "./app";
import { hide, showError, showNotice } from "./banner";
import { debounce } from "./timing";
import { notifyAgentEvents } from "./notify";

export function wireEvents(shell: Shell): void {
  const { panel, trustBanner, openProject } = shell;
  const reloadAgents = debounce(() => void store.reloadAgents().catch(() => {}), 40);
  const reloadLayouts = debounce(() => void store.reloadLayouts().catch(() => {}), 40);
  const refreshWorkState = debounce(
    () => panel.active === "board" && void panel.board.refresh(),
    80,
  );
  const refreshLog = debounce(() => panel.active === "log" && void panel.log.refresh(), 80);

  // The timeline's buttons say whether a cell shows the agent: agents and cells change them too.
  for (const ev of ["AgentsChanged", "AgentLaunched", "AgentStopped", "TerminalExit"] as const) {
    api.on(ev, () => (reloadAgents(), refreshWorkState(), refreshLog()));
  }
  api.on("WorkStateChanged", () => (reloadAgents(), refreshWorkState()));
  api.on("AgentReplied", refreshWorkState);
  // A turn starting serves an ask; one ending adds to the agent's and its chain's usage.
  api.on("AgentTurnStarted", refreshWorkState);
  api.on("AgentTurnFinished", refreshWorkState);
  // An ask accepted or withdrawn: the board's count, and the timeline's queued asks.
  api.on("AgentQueueChanged", (d) => {
    setQueued(d.agent_id, d.queued);
    refreshWorkState();
    refreshLog();
  });
  const forgetStatuses = notifyAgentEvents();
  // A closed cell's agent runs on in the background: the agents' cells changed too.
  api.on(
    "LayoutChanged",
    () => (reloadLayouts(), reloadAgents(), refreshWorkState(), refreshLog()),
  );
  // Another project is open (from this page or another client): start over on it.
  api.on("ProjectTrustChanged", () => void trustBanner.refresh().catch(() => {}));
  api.on("ProjectOpened", () => {
    trustBanner.reset();
    panel.agents.policy.reset();
    openProject.close();
    forgetTranscripts();
    forgetStatuses();
    hide();
    void shell.load();
  });
  api.on("OrchestratorRequestProcessed", () => (refreshLog(), refreshWorkState()));
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
  api.onState((state, code, retryInMs) => shell.connectionChanged(state, code, retryInMs));
}
