// How a terminal's view shows it, which tells the server how much of it to send (ui/API.md §3):
// live (being typed into: every byte, flow-controlled), glance (on screen: a few updates a
// second), hidden (nothing, its screen when shown again). And the acknowledgements of what the
// live view has parsed, which keep the server from sending more than the page can take.

export type TermView = "live" | "glance" | "hidden";

export type Visibility = {
  /** The view is in the document with a size (not in a hidden tab or a folded panel). */
  shown: boolean;
  /** The page itself is visible (not a background browser tab, not a minimised window). */
  pageVisible: boolean;
  /** Some of the view is inside the viewport. */
  intersecting: boolean;
  /** Its terminal has the keyboard. */
  focused: boolean;
};

export function viewOf(v: Visibility): TermView {
  if (!v.shown || !v.pageVisible || !v.intersecting) return "hidden";
  return v.focused ? "live" : "glance";
}

/** Ack at once past this many unacknowledged bytes (an eighth of the server's window). */
export const ACK_STEP_BYTES = 32 * 1024;
/** Else at most this long after a parse. */
export const ACK_DELAY_MS = 16;

/**
 * Counts the bytes of frame text parsed since the attach and, while `live`, sends them to the
 * server (`send(parsed)`): at once every ACK_STEP_BYTES, else ACK_DELAY_MS after the last parse,
 * so the server's window never waits on an ack the page owes it.
 */
export class Acker {
  parsed = 0;
  private acked = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly send: (parsed: number) => void,
    private readonly isLive: () => boolean,
  ) {}

  add(bytes: number): void {
    this.parsed += bytes;
    if (!this.isLive()) return;
    if (this.parsed - this.acked >= ACK_STEP_BYTES) return this.flush();
    this.timer ??= setTimeout(() => this.flush(), ACK_DELAY_MS);
  }

  /** The view told the server `parsed` itself (terminal.view): nothing owed up to there. */
  told(): void {
    this.acked = this.parsed;
  }

  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.parsed === this.acked) return;
    this.acked = this.parsed;
    this.send(this.parsed);
  }

  dispose(): void {
    clearTimeout(this.timer);
  }
}
