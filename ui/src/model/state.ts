// The client's copy of the server's state, reloaded on events; views subscribe to "changed".

import { api } from "./api";
import type { Applied, LayoutOp } from "./api.gen";
import type {
  AgentRow,
  HostInfo,
  Layouts,
  LayoutNode,
  Leaf,
  Profile,
  ProjectInfo,
  Tab,
} from "./types";

type Listener = () => void;

class Store {
  project: ProjectInfo | null = null;
  layouts: Layouts | null = null;
  agents: AgentRow[] = [];
  profiles: Profile[] = [];
  hosts: HostInfo[] = []; // the user's hosts.json: where an agent may run besides this machine
  private listeners = new Set<Listener>();

  subscribe(l: Listener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  notify(): void {
    for (const l of this.listeners) l();
  }

  async loadAll(): Promise<void> {
    const [project, layouts, agents] = await Promise.all([
      api.call("project.info"),
      api.call("layouts.get"),
      api.call("agents.list"),
    ]);
    Object.assign(this, { project, layouts, agents });
    this.notify();
    this.profiles = await api.call("profiles.list");
    this.notify();
    await this.reloadHosts();
  }

  async reloadHosts(): Promise<void> {
    try {
      this.hosts = await api.call("hosts.list");
    } catch {
      this.hosts = []; // an unreadable hosts.json: the agent editor offers this machine only
    }
    this.notify();
  }

  async reloadAgents(): Promise<void> {
    this.agents = await api.call("agents.list");
    this.notify();
  }

  async reloadLayouts(): Promise<void> {
    this.layouts = await api.call("layouts.get");
    this.notify();
  }

  /** Run a `layouts.apply` op and take its result as the new layouts; `T`: the ids that op
   * makes (`leaf_id` for a split, `tab_id` and `leaf_id` for a new tab). */
  async applyLayout<T extends Omit<Applied, "layouts"> = Omit<Applied, "layouts">>(
    params: LayoutOp,
  ): Promise<T & { layouts: Layouts }> {
    const result = await api.call("layouts.apply", params);
    this.layouts = result.layouts;
    this.notify();
    return result as T & { layouts: Layouts };
  }

  /** Show the live agent `name` in cell `leafId`; the cell that showed it becomes empty. */
  async moveAgent(name: string, leafId: string): Promise<void> {
    const result = await api.call("session.move", { name, node_id: leafId });
    this.layouts = result.layouts;
    this.notify();
    await this.reloadAgents();
  }

  activeTab(): Tab | null {
    const l = this.layouts;
    return l?.tabs.find((t) => t.id === l.active_tab) ?? l?.tabs[0] ?? null;
  }

  agentById(id: string | null): AgentRow | undefined {
    return id ? this.agents.find((a) => a.id === id) : undefined;
  }

  /** An agent's name from its id or its name (the server's rows hold either); else as given. */
  nameOf(idOrName: string): string {
    return this.agentById(idOrName)?.name ?? idOrName;
  }

  /** The tab holding a cell, and the cell. */
  findLeaf(nodeId: string): { tab: Tab; leaf: Leaf } | null {
    for (const tab of this.layouts?.tabs ?? []) {
      const leaf = findIn(tab.root, nodeId);
      if (leaf) return { tab, leaf };
    }
    return null;
  }

  profile(name: string): Profile | undefined {
    return this.profiles.find((p) => p.name === name);
  }
}

function findIn(node: LayoutNode, id: string): Leaf | null {
  if (node.type === "leaf") return node.id === id ? node : null;
  for (const c of node.children) {
    const found = findIn(c, id);
    if (found) return found;
  }
  return null;
}

export const store = new Store();
