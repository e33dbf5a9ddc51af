// Desktop notifications: an agent finished a turn or is blocked while the window is not focused.
// Everything goes through here (one place to test); permission is asked on the first user gesture.

import { api } from "../model/api";
import { store } from "../model/state";

const RECENT_MS = 3000;
const lastShown = new Map<string, number>();

/** Whether the user is looking at the page (then no notification). */
export function windowFocused(): boolean {
  return document.visibilityState === "visible" && document.hasFocus();
}

function supported(): boolean {
  return typeof window.Notification === "function";
}

/** Ask for permission on the first click or key press (browsers require a user gesture). */
export function askPermissionOnGesture(): void {
  if (!supported() || Notification.permission !== "default") return;
  const ask = () => {
    window.removeEventListener("pointerdown", ask, true);
    window.removeEventListener("keydown", ask, true);
    if (Notification.permission === "default")
      void Notification.requestPermission().catch(() => {});
  };
  window.addEventListener("pointerdown", ask, true);
  window.addEventListener("keydown", ask, true);
}

/** Notify about an agent; false when not shown (focused window, no permission, no API). */
export function notifyAgent(agentName: string, body: string): boolean {
  if (!supported() || windowFocused() || Notification.permission !== "granted") return false;
  try {
    const n = new Notification(agentName, { body, tag: `idea-${agentName}` });
    n.onclick = () => {
      window.focus();
      n.close();
    };
  } catch {
    return false; // e.g. a platform where only a service worker may notify
  }
  lastShown.set(agentName, Date.now());
  return true;
}

/** Whether a notification about this agent was shown just now (to fold duplicate events). */
export function notifiedRecently(agentName: string): boolean {
  return Date.now() - (lastShown.get(agentName) ?? 0) < RECENT_MS;
}

/** A notification body from a reply: one line, at most ~120 characters. */
export function preview(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 120 ? `${line.slice(0, 119)}…` : line || "finished a turn";
}

/**
 * Notify on the agents' events: a reply (with its preview), a turn's end that no reply spoke
 * for, an agent becoming blocked. The returned function forgets the statuses seen (another
 * project is open).
 */
export function notifyAgentEvents(): () => void {
  const nameOf = (d: { agent_id: string; agent_name?: string }) =>
    d.agent_name ?? store.agentById(d.agent_id)?.name;
  api.on("AgentReplied", (d) => {
    const name = nameOf(d);
    if (name) notifyAgent(name, preview(d.preview));
  });
  api.on("AgentTurnFinished", (d) => {
    // A turn that also replies (an ask) gets AgentReplied with a preview: let that one speak.
    if (windowFocused()) return; // decided now, not after the wait
    setTimeout(() => {
      const name = nameOf(d);
      if (name && !notifiedRecently(name))
        notifyAgent(name, d.ok ? "finished a turn" : "turn failed");
    }, 400);
  });
  const lastStatus = new Map<string, string>();
  api.on("WorkStateChanged", (d) => {
    const was = lastStatus.get(d.agent_id);
    lastStatus.set(d.agent_id, d.status);
    const name = nameOf(d);
    if (d.status === "blocked" && was !== "blocked" && name) notifyAgent(name, "is blocked");
  });
  return () => lastStatus.clear();
}
