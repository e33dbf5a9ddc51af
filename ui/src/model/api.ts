// The WebSocket client of ui/API.md: requests matched by id, pushed events, terminal frames.
// Typed by ./api.gen.ts (generated from the server's declarations): a method's params and result,
// and an event's payload, are known from its name.

import type { EventName, Events, MethodName, Params, Result } from "./api.gen";
import type { ApiError } from "./types";

export class ApiFailure extends Error {
  constructor(readonly error: ApiError) {
    super(`${error.code}: ${error.message}`);
  }
}

type Pending = { resolve: (v: unknown) => void; reject: (e: unknown) => void };
type EventHandler = (data: never) => void;
/** A pushed message as it came: what `on("*")` handlers get (unknown events included). */
export type Pushed = { event: string; data: unknown };
/** The params argument: optional when the method has no required param. */
type ParamsArg<M extends MethodName> =
  Partial<Params<M>> extends Params<M> ? [params?: Params<M>] : [params: Params<M>];
/** A terminal frame: its kind (ui/API.md §3), text, and size in bytes (the unit of acks). */
type FrameHandler = (kind: number, text: string, bytes: number) => void;
export type ConnectionState = "connecting" | "open" | "closed";
type StateListener = (s: ConnectionState, code?: number, retryInMs?: number) => void;

/** Reconnect backoff: 0.5 s doubling to 10 s, with up to 20 % jitter so that many clients of a
 * restarted server do not all come back at once. ``random`` is injectable for tests. */
export function retryDelay(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(500 * 2 ** Math.max(0, attempt), 10_000);
  return Math.round(base * (1 + 0.2 * random()));
}

const decoder = new TextDecoder();

export class Api {
  private ws: WebSocket | null = null;
  private nextId = 1;
  private pending = new Map<number, Pending>();
  private handlers = new Map<string, Set<EventHandler>>();
  private frames = new Map<string, FrameHandler>();
  private stateListeners = new Set<StateListener>();
  private attempt = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;

  connect(): void {
    clearTimeout(this.retryTimer);
    this.emitState("connecting");
    const ws = new WebSocket(`ws://${location.host}/ws`);
    ws.binaryType = "arraybuffer";
    ws.onopen = () => {
      this.attempt = 0;
      this.emitState("open");
    };
    ws.onmessage = (ev) => this.onMessage(ev.data);
    ws.onclose = (ev) => {
      this.ws = null;
      this.frames.clear();
      for (const p of this.pending.values()) {
        p.reject(new ApiFailure({ code: "UNAVAILABLE", message: "connection lost" }));
      }
      this.pending.clear();
      const waitMs = retryDelay(this.attempt++);
      this.emitState("closed", ev.code, waitMs);
      this.retryTimer = setTimeout(() => this.connect(), waitMs);
    };
    this.ws = ws;
  }

  call<M extends MethodName>(method: M, ...args: ParamsArg<M>): Promise<Result<M>> {
    const params = args[0] ?? {};
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) {
      return Promise.reject(new ApiFailure({ code: "UNAVAILABLE", message: "not connected" }));
    }
    const id = this.nextId++;
    return new Promise<Result<M>>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      ws.send(JSON.stringify({ id, method, params }));
    });
  }

  /** Subscribe to a pushed event (`"*"`: every pushed message); returns the unsubscribe function. */
  on<E extends EventName>(event: E, handler: (data: Events[E]) => void): () => void;
  on(event: "*", handler: (message: Pushed) => void): () => void;
  on(event: string, handler: EventHandler): () => void {
    let set = this.handlers.get(event);
    if (!set) this.handlers.set(event, (set = new Set()));
    set.add(handler);
    return () => set.delete(handler);
  }

  onState(listener: StateListener): void {
    this.stateListeners.add(listener);
  }

  /** Try again now rather than at the end of the backoff. */
  retryNow(): void {
    if (!this.ws) this.connect();
  }

  /** Route the binary frames of one terminal attach to a handler. */
  attachFrames(attachId: string, handler: FrameHandler): () => void {
    this.frames.set(attachId, handler);
    return () => this.frames.delete(attachId);
  }

  private emitState(s: ConnectionState, code?: number, retryInMs?: number): void {
    for (const l of this.stateListeners) l(s, code, retryInMs);
  }

  private onMessage(data: unknown): void {
    if (data instanceof ArrayBuffer) return this.onBinary(data);
    const msg = JSON.parse(String(data)) as Record<string, unknown>;
    if ("event" in msg) {
      // The server's payload for that event, as api.gen.ts declares it.
      const set = this.handlers.get(String(msg.event));
      for (const h of set ?? []) h((msg.data ?? {}) as never);
      for (const h of this.handlers.get("*") ?? []) h(msg as never);
      return;
    }
    const p = this.pending.get(msg.id as number);
    if (!p) {
      if (msg.ok === false) console.warn("unmatched error", msg.error);
      return;
    }
    this.pending.delete(msg.id as number);
    if (msg.ok) p.resolve(msg.result);
    else p.reject(new ApiFailure(msg.error as ApiError));
  }

  private onBinary(buf: ArrayBuffer): void {
    const view = new DataView(buf);
    const kind = view.getUint8(0);
    const n = view.getUint16(1);
    const attachId = decoder.decode(new Uint8Array(buf, 3, n));
    const text = decoder.decode(new Uint8Array(buf, 3 + n));
    this.frames.get(attachId)?.(kind, text, buf.byteLength - 3 - n);
  }
}

export const api = new Api();
