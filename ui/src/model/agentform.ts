// The agent editor's values: what a new agent starts with (an installed CLI, Claude first, in
// chat mode when it has one), the choices each profile offers (modes, permission modes, known
// models: all from `profiles.list`), the params sent, and which field a refusal belongs under.
// The server checks every value (ui/API.md `agents.create`); this only chooses and maps. Pure,
// so it is tested alone.

import type { CreateParams } from "./api.gen";
import type { AgentDetail, ApiError, Mode, Profile } from "./types";

/** A `profiles.list` row with the fields the editor offers (ui/API.md). */
export type ProfileInfo = Omit<Profile, "permission_modes" | "models"> & {
  permission_modes?: unknown;
  models?: unknown;
};
/** An `agents.get` row with its permission mode. */
export type AgentInfo = AgentDetail & { permission_mode?: string | null };

/** The profile a new agent gets when one of its kind is installed. */
export const PREFERRED_PROFILE = "claude";
/** Without any profile listed (not loaded yet): what the server always has. */
export const FALLBACK_PROFILE = "shell";

export type FormField =
  | "name"
  | "profile"
  | "mode"
  | "model"
  | "permission_mode"
  | "description"
  | "context"
  | "workspace"
  | "host";
export const FORM_FIELDS: readonly FormField[] = [
  "name",
  "profile",
  "mode",
  "model",
  "permission_mode",
  "description",
  "context",
  "workspace",
  "host",
];

export type AgentFormValues = {
  name: string;
  profile: string;
  mode: Mode;
  model: string;
  permission_mode: string; // "": as the CLI is set up
  description: string;
  context: string;
  worktree: boolean;
  host: string; // "": this machine; else a host of the user's hosts.json (DESIGN.md §16)
};

const strings = (x: unknown): string[] =>
  Array.isArray(x) ? x.filter((v): v is string => typeof v === "string" && v !== "") : [];

/** The profile a new agent starts with: Claude when installed, else an installed profile with
 * a chat (structured) adapter, Claude's kind first, else any installed one, else the first. */
export function defaultProfile(profiles: readonly ProfileInfo[]): string {
  const installed = profiles.filter((p) => p.installed === true);
  const pick =
    installed.find((p) => p.name === PREFERRED_PROFILE) ??
    installed.find((p) => p.structured === PREFERRED_PROFILE) ??
    installed.find((p) => typeof p.structured === "string" && p.structured) ??
    installed[0] ??
    profiles.find((p) => p.name === FALLBACK_PROFILE) ??
    profiles[0];
  return pick?.name ?? FALLBACK_PROFILE;
}

/** The modes a profile runs in, chat first; a profile that says nothing runs in a terminal. */
export function modesOf(profile: ProfileInfo | undefined): Mode[] {
  const modes = strings(profile?.modes).filter(
    (m): m is Mode => m === "structured" || m === "terminal",
  );
  const ordered = (["structured", "terminal"] as Mode[]).filter((m) => modes.includes(m));
  return ordered.length ? ordered : ["terminal"];
}

/** Chat (structured) when the profile has it, else a terminal. */
export function defaultMode(profile: ProfileInfo | undefined): Mode {
  return modesOf(profile)[0];
}

export function permissionModesOf(profile: ProfileInfo | undefined): string[] {
  return strings(profile?.permission_modes);
}

export function modelsOf(profile: ProfileInfo | undefined): string[] {
  return strings(profile?.models);
}

/** A model applies to a CLI IdeA drives (it passes the flag); a plain program has none. */
export function takesModel(profile: ProfileInfo | undefined): boolean {
  return typeof profile?.structured === "string" && profile.structured !== "";
}

/** What the form shows first: a new agent's defaults, or the agent as it is. */
export function formDefaults(
  profiles: readonly ProfileInfo[],
  agent: AgentInfo | null,
): AgentFormValues {
  if (!agent) {
    const profile = defaultProfile(profiles);
    return {
      name: "",
      profile,
      mode: defaultMode(profiles.find((p) => p.name === profile)),
      model: "",
      permission_mode: "",
      description: "",
      context: "",
      worktree: false,
      host: "",
    };
  }
  const profile = profiles.find((p) => p.name === agent.profile);
  const configured = agent.configured_mode;
  return {
    name: agent.name,
    profile: agent.profile,
    mode: configured && modesOf(profile).includes(configured) ? configured : defaultMode(profile),
    model: agent.model ?? "",
    permission_mode: typeof agent.permission_mode === "string" ? agent.permission_mode : "",
    description: agent.description ?? "",
    context: agent.context ?? "",
    worktree: agent.workspace === "worktree",
    host: agent.host ?? "",
  };
}

/** The values kept when the user picks another profile: its default mode, unless the user
 * picked a mode (`modeChosen`) that it runs too; no permission mode it lacks; no model for a CLI
 * that takes none. */
export function onProfileChange(
  values: AgentFormValues,
  profile: ProfileInfo | undefined,
  modeChosen = false,
): AgentFormValues {
  return {
    ...values,
    profile: profile?.name ?? values.profile,
    mode: modeChosen && modesOf(profile).includes(values.mode) ? values.mode : defaultMode(profile),
    permission_mode: permissionModesOf(profile).includes(values.permission_mode)
      ? values.permission_mode
      : "",
    model: takesModel(profile) ? values.model : "",
  };
}

/** The fields `agents.create` / `agents.update` get (the agent's name and rename added by the
 * caller). The profile's default mode is sent as null: the agent follows its profile. */
/** The params of `agents.create` and `agents.update` the form sets (the name aside). */
export type AgentFields = Required<Omit<CreateParams, "name" | "asks_from">>;

export function agentParams(
  values: AgentFormValues,
  profile: ProfileInfo | undefined,
): AgentFields {
  const model = values.model.trim();
  const permissions = permissionModesOf(profile);
  return {
    profile: values.profile,
    context: values.context,
    description: values.description.trim() || null,
    mode: values.mode === (profile?.default_mode ?? defaultMode(profile)) ? null : values.mode,
    model: takesModel(profile) && model ? model : null,
    permission_mode: permissions.includes(values.permission_mode) ? values.permission_mode : null,
    workspace: values.worktree && !values.host ? "worktree" : "project",
    host: values.host || null,
  };
}

/** The field a refused create or save is about, or null (said above the buttons instead). */
export function fieldOfAgentError(e: ApiError | null | undefined): FormField | null {
  if (!e || typeof e !== "object") return null;
  if (e.code === "CONFLICT" && typeof e.version_on_disk === "string") return null; // the file changed
  const named = typeof e.field === "string" ? (e.field === "new_name" ? "name" : e.field) : null;
  if (named && (FORM_FIELDS as readonly string[]).includes(named)) return named as FormField;
  const message = typeof e.message === "string" ? e.message : "";
  if (e.code === "CONFLICT") return /workspace|worktree/.test(message) ? "workspace" : "name";
  if (e.code === "NOT_FOUND" && /profile/.test(message)) return "profile";
  const prefix = /^\s*([a-z_]+)\s*:/.exec(message)?.[1];
  if (prefix === "new_name") return "name";
  if (prefix && (FORM_FIELDS as readonly string[]).includes(prefix)) return prefix as FormField;
  if (/^agent name\b/.test(message)) return "name";
  return null;
}

/** What the panel says once the form succeeded. */
export function successText(created: boolean, name: string): string {
  return `${created ? "Created" : "Saved"} ${name}`;
}
