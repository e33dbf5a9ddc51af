// Desktop notifications: an agent finished a turn or is blocked while the window is not focused.
// Everything goes through here (one place to test); permission is asked on the first user gesture.

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
