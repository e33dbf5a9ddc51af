import { describe, expect, it } from "vitest";

import {
  asksFromChoice,
  asksFromValue,
  fieldOfError,
  policyFromForm,
  policySummary,
  policyToForm,
} from "./policy";
import type { Policy } from "./types";

const POLICY: Policy = {
  version: 1,
  max_depth: 3,
  ask_timeout_s: 300,
  queue_wait_s: 900,
  hibernate_after_s: null,
  chain_token_budget: 200000,
};

describe("the policy form", () => {
  it("shows each number, and nothing for never / none", () => {
    expect(policyToForm(POLICY)).toEqual({
      max_depth: "3",
      ask_timeout_s: "300",
      queue_wait_s: "900",
      hibernate_after_s: "",
      chain_token_budget: "200000",
    });
  });

  it("shows nothing for a value the server did not send or sent as garbage", () => {
    const form = policyToForm({ max_depth: NaN, ask_timeout_s: "300" as unknown as number });
    expect(form.max_depth).toBe("");
    expect(form.ask_timeout_s).toBe("");
    expect(policyToForm(null).queue_wait_s).toBe("");
  });

  it("sends what it shows, an empty optional box as null", () => {
    expect(policyFromForm(policyToForm(POLICY))).toEqual({
      ok: true,
      policy: {
        max_depth: 3,
        ask_timeout_s: 300,
        queue_wait_s: 900,
        hibernate_after_s: null,
        chain_token_budget: 200000,
      },
    });
    const spaced = {
      ...policyToForm(POLICY),
      hibernate_after_s: " 600 ",
      chain_token_budget: "  ",
    };
    const read = policyFromForm(spaced);
    expect(read.ok && read.policy).toMatchObject({
      hibernate_after_s: 600,
      chain_token_budget: null,
    });
  });

  it("names the box that needs a number or holds no number", () => {
    expect(policyFromForm({ ...policyToForm(POLICY), max_depth: "" })).toEqual({
      ok: false,
      field: "max_depth",
      message: "a number is needed",
    });
    expect(policyFromForm({ ...policyToForm(POLICY), queue_wait_s: "15m" })).toEqual({
      ok: false,
      field: "queue_wait_s",
      message: '"15m" is not a number',
    });
  });

  it("sums itself up in one line when closed", () => {
    expect(policySummary(policyToForm(POLICY))).toBe(
      "depth 3 · timeout 300 s · no hibernation · budget 200k",
    );
    const some = policyToForm({ ...POLICY, hibernate_after_s: 900, chain_token_budget: null });
    expect(policySummary(some)).toBe("depth 3 · timeout 300 s · hibernate after 900 s · no budget");
  });

  it("leaves ranges to the server: a negative depth is sent as typed", () => {
    const read = policyFromForm({ ...policyToForm(POLICY), max_depth: "-1" });
    expect(read.ok && read.policy.max_depth).toBe(-1);
  });
});

describe("a refused policy", () => {
  it("is shown next to the field the server named", () => {
    expect(fieldOfError({ code: "INVALID", message: "max_depth: must be 1..10" })).toBe(
      "max_depth",
    );
    expect(fieldOfError({ code: "INVALID", message: "policy.queue_wait_s: too long" })).toBe(
      "queue_wait_s",
    );
    expect(
      fieldOfError({ code: "MISSING_FIELD", message: "m", field: "policy.ask_timeout_s" }),
    ).toBe("ask_timeout_s");
    expect(
      fieldOfError({ code: "INVALID", message: "policy field 'max_depth' must be a whole number" }),
    ).toBe("max_depth");
  });

  it("names no field when the server named none this form has", () => {
    expect(fieldOfError({ code: "INVALID", message: "policy: not an object" })).toBeNull();
    expect(fieldOfError({ code: "INVALID", message: "version: must be 1" })).toBeNull();
    expect(fieldOfError({ code: "INTERNAL", message: "disk full" })).toBeNull();
  });
});

describe("who may ask an agent", () => {
  it("is anyone when the agent says * or says nothing", () => {
    expect(asksFromChoice(["*"])).toEqual({ anyone: true, allowed: [] });
    expect(asksFromChoice(undefined)).toEqual({ anyone: true, allowed: [] });
    expect(asksFromChoice(["lead", "*"])).toEqual({ anyone: true, allowed: [] });
  });

  it("is only the named agents otherwise, none meaning only the user", () => {
    expect(asksFromChoice(["lead", "qa"])).toEqual({ anyone: false, allowed: ["lead", "qa"] });
    expect(asksFromChoice([])).toEqual({ anyone: false, allowed: [] });
  });

  it("is saved as * or as the checked agents that still exist, in their order", () => {
    const others = ["dev", "lead", "qa"];
    expect(asksFromValue(true, ["qa"], others)).toEqual(["*"]);
    expect(asksFromValue(false, ["qa", "gone", "dev"], others)).toEqual(["dev", "qa"]);
    expect(asksFromValue(false, [], others)).toEqual([]);
  });
});
