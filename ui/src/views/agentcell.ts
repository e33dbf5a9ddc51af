// Show an agent from outside the workspace (the delegation timeline): the cell that shows it, or,
// when none does, a cell made for it in the tab on screen: an empty cell there, else the widest
// cell split in two (right, else down, when both halves keep the minimum size), else a new tab.
// A live agent then shows there (as "Show here" does); a stopped one waits for its Start.

import { api } from "../model/api";
import { splitFits } from "../model/sizes";
import { store } from "../model/state";
import { cellOfAgent } from "../model/timeline";
import { leaves } from "../model/tree";
import type { Leaf, View } from "../model/types";
import { goToCell, showError, showNotice } from "./banner";

/** Show agent `name`'s cell, making one first if no cell shows it. */
export async function showAgent(name: string): Promise<void> {
  const found = cellOfAgent(name, store.agents, store.layouts);
  if (found) return goToCell(found);
  const agent = store.agents.find((a) => a.name === name);
  if (!agent) return showNotice(`${name} is no longer an agent of this project.`);
  const view: View = agent.live && agent.mode === "terminal" ? "terminal" : "chat";
  try {
    const leafId = await placeFor();
    await store.applyLayout({ op: "bind", leaf_id: leafId, agent_id: agent.id, view });
    if (agent.live) {
      await api.call("session.launch", {
        name,
        node_id: leafId,
        mode: view === "chat" ? "structured" : "terminal",
        reattach: false,
      });
      await store.reloadAgents();
    }
    await goToCell(leafId);
  } catch (e) {
    showError(e, `Open ${name}`);
  }
}

/** A leaf of the tab on screen to show an agent in; made when none is free. */
async function placeFor(): Promise<string> {
  const tab = store.activeTab();
  const cells = tab ? leaves(tab.root) : [];
  const empty = cells.find((l) => l.agent === null);
  if (empty) return empty.id;
  const sized = cells
    .map((leaf) => ({
      leaf,
      box: document.querySelector(`[data-leaf="${leaf.id}"]`)?.getBoundingClientRect(),
    }))
    .filter((x): x is { leaf: Leaf; box: DOMRect } => !!x.box)
    .sort((a, b) => b.box.width * b.box.height - a.box.width * a.box.height);
  for (const { leaf, box } of sized) {
    const direction = splitFits(box, "row") ? "row" : splitFits(box, "column") ? "column" : null;
    if (!direction) continue;
    const made = await store.applyLayout<{ leaf_id: string }>({
      op: "split",
      leaf_id: leaf.id,
      direction,
    });
    return made.leaf_id;
  }
  const made = await store.applyLayout<{ leaf_id: string }>({ op: "add_tab" });
  return made.leaf_id;
}
