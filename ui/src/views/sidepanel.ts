// The side panel: work-state board, delegation log, agent editor (and the delegation policy).

import { AgentEditor } from "./agents";
import { WorkStatePanel } from "./board";
import { DelegationLog } from "./delegations";
import { clear, h } from "./dom";

type PanelName = "board" | "log" | "agents";

export class SidePanel {
  readonly board = new WorkStatePanel((chainId) => this.showChain(chainId));
  readonly log = new DelegationLog();
  readonly agents = new AgentEditor();
  readonly el = h("aside.sidepanel");
  private nav = h("div.panel-tabs");
  private content = h("div.panel-content");
  private current: PanelName = "board";

  constructor() {
    this.el.append(this.nav, this.content);
    this.show("board");
  }

  show(name: PanelName): void {
    this.current = name;
    const labels: Record<PanelName, string> = {
      board: "Board",
      log: "Delegations",
      agents: "Agents",
    };
    clear(
      this.nav,
      ...(Object.keys(labels) as PanelName[]).map((n) =>
        h(
          "button.panel-tab",
          { class: n === name ? "active" : "", dataset: { panel: n }, onclick: () => this.show(n) },
          labels[n],
        ),
      ),
    );
    clear(this.content, this[name === "log" ? "log" : name].el);
    void this.refresh();
  }

  /** The delegation log, showing chain `chainId` alone. */
  showChain(chainId: string): void {
    if (this.current === "log") return this.log.showChain(chainId);
    this.log.shownChain = chainId;
    this.show("log"); // which refreshes it
  }

  async refresh(): Promise<void> {
    if (this.current === "board") await this.board.refresh();
    else if (this.current === "log") await this.log.refresh();
    else await this.agents.policy.load(); // the agents' list follows the store
  }

  get active(): PanelName {
    return this.current;
  }
}
