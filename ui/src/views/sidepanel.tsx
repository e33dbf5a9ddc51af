// The side panel: work-state board, delegation log, agent editor (and the delegation policy).
// Its tabs are rendered by Preact; each panel's element is its own view's, moved in when shown.

import { signal } from "@preact/signals";
import { render } from "preact";

import { AgentEditor } from "./agents";
import { WorkStatePanel } from "./board";
import { DelegationLog } from "./delegations";
import { classes } from "./reactive";

type PanelName = "board" | "log" | "agents";

const LABELS: Record<PanelName, string> = { board: "Board", log: "Delegations", agents: "Agents" };

export class SidePanel {
  readonly board = new WorkStatePanel((chainId) => this.showChain(chainId));
  readonly log = new DelegationLog();
  readonly agents = new AgentEditor();
  readonly el = document.createElement("aside");
  private readonly current = signal<PanelName>("board");

  constructor() {
    this.el.className = "sidepanel";
    render(<Panel panel={this} />, this.el);
    this.show("board");
  }

  show(name: PanelName): void {
    this.current.value = name;
    void this.refresh();
  }

  /** The delegation log, showing chain `chainId` alone. */
  showChain(chainId: string): void {
    if (this.current.value === "log") return this.log.showChain(chainId);
    this.log.shownChain = chainId;
    this.show("log"); // which refreshes it
  }

  async refresh(): Promise<void> {
    if (this.current.value === "board") await this.board.refresh();
    else if (this.current.value === "log") await this.log.refresh();
    else await this.agents.policy.load(); // the agents' list follows the store
  }

  get active(): PanelName {
    return this.current.value;
  }

  /** The element of panel `name`, its own view's. */
  content(name: PanelName): HTMLElement {
    return this[name].el;
  }
}

function Panel({ panel }: { panel: SidePanel }) {
  const shown = panel.active;
  return (
    <>
      <div class="panel-tabs">
        {(Object.keys(LABELS) as PanelName[]).map((n) => (
          <button
            key={n}
            class={classes("panel-tab", n === shown && "active")}
            data-panel={n}
            onClick={() => panel.show(n)}
          >
            {LABELS[n]}
          </button>
        ))}
      </div>
      <div class="panel-content" ref={(el) => el?.replaceChildren(panel.content(shown))} />
    </>
  );
}
