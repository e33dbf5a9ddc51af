// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import type { TrustInfo } from "../model/types";
import { fakeApi, settle, type FakeApi } from "./fakeapi";
import { TrustBanner } from "./trust";

const restricted: TrustInfo = {
  state: "restricted",
  root: "/p",
  would_run: [{ profile: "claude", command: ["evil", "--flag"], overrides_builtin: true }],
  resume: ["lead"],
  git_hooks: { dir: "/p/.git/hooks", names: ["post-merge"] },
};

let fake: FakeApi;
let banner: TrustBanner;

beforeEach(async () => {
  fake = fakeApi({
    "trust.get": () => restricted,
    "trust.grant": () => ({ ...restricted, state: "trusted" }),
  });
  banner = new TrustBanner();
  document.body.replaceChildren(banner.el);
  await banner.refresh();
  await settle();
});

afterEach(() => fake.restore());

const button = (text: string) =>
  [...banner.el.querySelectorAll("button")].find((b) => b.textContent === text)!;

describe("the trust banner", { timeout: 5000 }, () => {
  it("says what a restricted project would run, its hooks and the agents it would resume", () => {
    const el = banner.el.querySelector<HTMLElement>(".banner.trust")!;
    expect(el.dataset.state).toBe("restricted");
    expect(el.querySelector(".trust-runs code")?.textContent).toBe("evil --flag");
    expect(el.querySelector(".trust-profile")?.textContent).toContain("replaces the built-in");
    expect(el.querySelector(".trust-hooks code")?.textContent).toBe("post-merge");
    expect(el.querySelector(".trust-resume")?.textContent).toBe("Agents it would resume: lead");
  });

  it("trusts the project on Trust, and goes", async () => {
    button("Trust").click();
    await settle();
    expect(fake.paramsOf("trust.grant")).toHaveLength(1);
    expect(banner.el.querySelector(".banner.trust")).toBeNull();
  });

  it("goes on Stay restricted until another project opens", async () => {
    button("Stay restricted").click();
    await settle();
    expect(banner.el.querySelector(".banner.trust")).toBeNull();
    await banner.refresh();
    await settle();
    expect(banner.el.querySelector(".banner.trust")).toBeNull(); // dismissed for this project
    banner.reset();
    await banner.refresh();
    await settle();
    expect(banner.el.querySelector(".banner.trust")).not.toBeNull();
  });
});
