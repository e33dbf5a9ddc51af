// For view tests: the UI server's side of `api`, answered from a table, each call recorded, and
// pushed events delivered as the socket would. The real `Api` object stays; only its `call` is
// replaced, so the views under test subscribe and call exactly as they do in the app.

import { vi } from "vitest";

import { api, ApiFailure } from "../model/api";

type Reply = (params: Record<string, unknown>) => unknown;

export type FakeApi = {
  calls: { method: string; params: Record<string, unknown> }[];
  /** The calls of one method, their params in order. */
  paramsOf: (method: string) => Record<string, unknown>[];
  /** Answer `method` with `reply` from now on. */
  answer: (method: string, reply: Reply) => void;
  /** Push event `name` to the subscribers, as the server's socket does. */
  emit: (name: string, data: Record<string, unknown>) => void;
  restore: () => void;
};

export function fakeApi(replies: Record<string, Reply> = {}): FakeApi {
  const table = new Map(Object.entries(replies));
  const calls: FakeApi["calls"] = [];
  const spy = vi.spyOn(api, "call").mockImplementation(async (method, params = {}) => {
    calls.push({ method, params: params as Record<string, unknown> });
    const reply = table.get(method);
    if (!reply) throw new ApiFailure({ code: "NOT_FOUND", message: `no fake for ${method}` });
    return reply(params as Record<string, unknown>);
  });
  return {
    calls,
    paramsOf: (method) => calls.filter((c) => c.method === method).map((c) => c.params),
    answer: (method, reply) => void table.set(method, reply),
    emit: (name, data) =>
      (api as unknown as { onMessage(d: unknown): void }).onMessage(
        JSON.stringify({ event: name, data }),
      ),
    restore: () => spy.mockRestore(),
  };
}

/** Let the promises of a refresh settle and Preact render what they set. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
}
