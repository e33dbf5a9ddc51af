import { describe, expect, it } from "vitest";
import { hostBadge } from "./hosts";

describe("hostBadge", () => {
  it("says nothing for an agent of this machine", () => {
    expect(hostBadge({ host: null, link: null })).toBeNull();
    expect(hostBadge(undefined)).toBeNull();
  });
  it("names the host and the state of its link", () => {
    expect(hostBadge({ host: "gpu", link: "up" })?.label).toBe("gpu");
    expect(hostBadge({ host: "gpu", link: "reconnecting" })).toMatchObject({
      label: "gpu · reconnecting",
      cls: "warn",
    });
    expect(hostBadge({ host: "gpu", link: "lost" })).toMatchObject({
      label: "gpu · lost",
      cls: "error",
    });
    expect(hostBadge({ host: "gpu", link: null })?.title).toContain("not connected");
  });
});
