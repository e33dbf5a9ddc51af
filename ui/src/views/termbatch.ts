// The frames of terminals nobody types into are drawn together: the page pays for each frame it
// renders (style, layout, layers, paint) mostly whatever changed in it, so twenty terminals
// updated in one go cost about one frame, not twenty. Their updates come on the server's common
// beat (ui/API.md §3); holding each for at most BATCH_MS gathers one beat's into one task.

/** How long a glanced terminal's frame may wait for the others of its beat. */
export const BATCH_MS = 50;

let queued: (() => void)[] = [];
let timer: ReturnType<typeof setTimeout> | undefined;

/** Draw this within BATCH_MS, with whatever else is queued meanwhile, in the order queued. */
export function drawSoon(draw: () => void): void {
  queued.push(draw);
  timer ??= setTimeout(drawQueued, BATCH_MS);
}

/** Draw what is queued now (a terminal about to draw at once keeps its frames in order). */
export function drawQueued(): void {
  clearTimeout(timer);
  timer = undefined;
  const now = queued;
  queued = [];
  for (const draw of now) draw();
}
