import { describe, expect, it } from "vitest";

import {
  agentParams,
  defaultMode,
  defaultProfile,
  fieldOfAgentError,
  formDefaults,
  modelsOf,
  modesOf,
  onProfileChange,
  permissionModesOf,
  successText,
  takesModel,
  type AgentInfo,
  type ProfileInfo,
} from "./agentform";
import type { ApiError } from "./types";

function profile(name: string, over: Partial<ProfileInfo> = {}): ProfileInfo {
  const structured = over.structured !== undefined ? over.structured : null;
  return {
    name,
    command: [name],
    description: "",
    structured,
    default_mode: structured ? "structured" : "terminal",
    modes: structured ? ["terminal", "structured"] : ["terminal"],
    permission_modes:
      structured === "claude" ? ["default", "acceptEdits", "plan", "bypassPermissions"] : [],
    models: structured === "claude" ? ["sonnet", "opus", "haiku"] : [],
    installed: false,
    path: null,
    runs: null,
    problem: null,
    ...over,
  };
}

const claude = profile("claude", { structured: "claude" });
const codex = profile("codex", {
  structured: "codex",
  permission_modes: ["read-only", "workspace-write"],
});
const fake = profile("fake", { structured: "claude" });
const gemini = profile("gemini", { structured: "gemini" });
const shell = profile("shell", { installed: true });

const on = (p: ProfileInfo) => ({ ...p, installed: true });

describe("a new agent's profile", () => {
  it("is Claude when its CLI is installed", () => {
    expect(defaultProfile([on(claude), on(codex), shell])).toBe("claude");
  });

  it("else an installed profile of Claude's kind, else any installed chat CLI", () => {
    expect(defaultProfile([claude, on(codex), on(fake), shell])).toBe("fake");
    expect(defaultProfile([claude, on(gemini), on(codex), shell])).toBe("gemini"); // first listed
  });

  it("else any installed profile, else the shell, else the first; never a CLI that is not there", () => {
    expect(defaultProfile([claude, codex, shell])).toBe("shell");
    expect(
      defaultProfile([claude, { ...shell, installed: false }, profile("x", { installed: true })]),
    ).toBe("x");
    expect(defaultProfile([claude, { ...shell, installed: false }])).toBe("shell");
    expect(defaultProfile([claude])).toBe("claude");
    expect(defaultProfile([])).toBe("shell");
    // "installed" must be true, not merely truthy.
    expect(defaultProfile([{ ...claude, installed: "yes" as unknown as boolean }, shell])).toBe(
      "shell",
    );
  });
});

describe("what a profile offers", () => {
  it("chat mode first when the profile has it, a terminal otherwise", () => {
    expect(modesOf(claude)).toEqual(["structured", "terminal"]);
    expect(defaultMode(claude)).toBe("structured");
    expect(defaultMode(shell)).toBe("terminal");
    expect(modesOf({ ...claude, modes: ["bogus", 3] as unknown as ProfileInfo["modes"] })).toEqual([
      "terminal",
    ]);
    expect(defaultMode(undefined)).toBe("terminal");
  });

  it("permission modes and known models as the server lists them, nothing when absent or bad", () => {
    expect(permissionModesOf(claude)).toEqual([
      "default",
      "acceptEdits",
      "plan",
      "bypassPermissions",
    ]);
    expect(modelsOf(claude)).toContain("sonnet");
    expect(permissionModesOf(shell)).toEqual([]);
    expect(permissionModesOf({ ...claude, permission_modes: "plan" })).toEqual([]);
    expect(modelsOf({ ...claude, models: [1, "", "opus"] })).toEqual(["opus"]);
    expect([takesModel(codex), takesModel(shell), takesModel(undefined)]).toEqual([
      true,
      false,
      false,
    ]);
  });
});

describe("the form's values", () => {
  it("start a new agent on the installed chat CLI, in chat mode, nothing else chosen", () => {
    expect(formDefaults([claude, on(fake), shell], null)).toEqual({
      name: "",
      profile: "fake",
      mode: "structured",
      model: "",
      permission_mode: "",
      description: "",
      context: "",
      worktree: false,
      host: "",
    });
  });

  it("show an agent as it is", () => {
    const agent = {
      id: "a1",
      name: "rev",
      profile: "claude",
      mode: "terminal",
      configured_mode: "terminal",
      model: "opus",
      permission_mode: "plan",
      description: null,
      context: "Review.",
      workspace: "worktree",
      live: false,
      node_id: null,
      status: "idle",
    } as AgentInfo;
    expect(formDefaults([claude, shell], agent)).toMatchObject({
      name: "rev",
      mode: "terminal",
      model: "opus",
      permission_mode: "plan",
      description: "",
      context: "Review.",
      worktree: true,
    });
    expect(formDefaults([claude], { ...agent, configured_mode: null }).mode).toBe("structured");
  });

  it("drop what another profile cannot take", () => {
    const chosen = { ...formDefaults([on(claude)], null), model: "opus", permission_mode: "plan" };
    expect(onProfileChange(chosen, shell)).toMatchObject({
      profile: "shell",
      mode: "terminal",
      model: "",
      permission_mode: "",
    });
    expect(onProfileChange(chosen, codex)).toMatchObject({
      mode: "structured",
      model: "opus",
      permission_mode: "",
    });
    // Through the shell and back: chat again, unless the user chose the terminal themselves.
    const viaShell = onProfileChange(onProfileChange(chosen, shell), claude);
    expect(viaShell.mode).toBe("structured");
    expect(onProfileChange({ ...chosen, mode: "terminal" }, codex, true).mode).toBe("terminal");
    expect(onProfileChange({ ...chosen, mode: "structured" }, shell, true).mode).toBe("terminal");
  });

  it("are sent with the profile's default mode and blanks as null", () => {
    const values = {
      ...formDefaults([on(claude)], null),
      name: "rev",
      model: "  opus ",
      permission_mode: "acceptEdits",
      description: "  ",
      worktree: true,
    };
    expect(agentParams(values, claude)).toEqual({
      profile: "claude",
      context: "",
      description: null,
      mode: null,
      model: "opus",
      permission_mode: "acceptEdits",
      workspace: "worktree",
      host: null,
    });
    // On another host: that host's checkout, never a worktree of its own.
    expect(agentParams({ ...values, host: "gpu" }, claude)).toMatchObject({
      host: "gpu",
      workspace: "project",
    });
    expect(
      agentParams({ ...values, mode: "terminal", model: "", permission_mode: "" }, claude),
    ).toMatchObject({
      mode: "terminal",
      model: null,
      permission_mode: null,
    });
    // A stale choice the profile lacks is not sent.
    expect(agentParams({ ...values, profile: "shell", mode: "terminal" }, shell)).toMatchObject({
      mode: null,
      model: null,
      permission_mode: null,
    });
  });
});

describe("a refusal's field", () => {
  const err = (code: string, message: string, field?: string): ApiError =>
    ({ code, message, ...(field ? { field } : {}) }) as ApiError;

  it("is the field the server names, a rename's under the name", () => {
    expect(fieldOfAgentError(err("INVALID", "agent name 'Bad Name!' is not valid", "name"))).toBe(
      "name",
    );
    expect(fieldOfAgentError(err("INVALID", "x", "new_name"))).toBe("name");
    expect(fieldOfAgentError(err("INVALID", "x", "permission_mode"))).toBe("permission_mode");
    expect(
      fieldOfAgentError(err("MISSING_FIELD", "missing required field 'profile'", "profile")),
    ).toBe("profile");
  });

  it("else what its code or message says", () => {
    expect(fieldOfAgentError(err("CONFLICT", "an agent named 'rev' already exists"))).toBe("name");
    expect(
      fieldOfAgentError(
        err(
          "CONFLICT",
          "agent rev is running: stop it before it can be moved to another workspace",
        ),
      ),
    ).toBe("workspace");
    expect(fieldOfAgentError(err("NOT_FOUND", "no profile named 'x' (known: claude)"))).toBe(
      "profile",
    );
    expect(fieldOfAgentError(err("INVALID", "model: 'a b' is not a model name"))).toBe("model");
    expect(fieldOfAgentError(err("INVALID", "agent name 'X' is not valid"))).toBe("name");
  });

  it("but a file changed on disk meanwhile belongs to no field: the form offers reload or overwrite", () => {
    const changed = {
      code: "CONFLICT",
      message: "/p/.ideai/agents/rev.md changed on disk since it was opened",
      path: "/p/.ideai/agents/rev.md",
      version_on_disk: "b".repeat(64),
      content_on_disk: "x",
      yours: "y",
    };
    expect(fieldOfAgentError(changed)).toBeNull();
  });

  it("is none for anything else, or nonsense", () => {
    expect(fieldOfAgentError(err("UNAVAILABLE", "not connected"))).toBeNull();
    expect(fieldOfAgentError(err("INVALID", "x", "color"))).toBeNull();
    expect(fieldOfAgentError(null)).toBeNull();
    expect(fieldOfAgentError("boom" as unknown as ApiError)).toBeNull();
  });

  it("and success reads as what was done", () => {
    expect(successText(true, "reviewer")).toBe("Created reviewer");
    expect(successText(false, "reviewer")).toBe("Saved reviewer");
  });
});
