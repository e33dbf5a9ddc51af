// The agent editor's form: create or edit one agent. Its state (what was typed, the field a
// refusal is about, an edit conflict) and its submit are here; its fields are drawn in groups:
// what runs it (name, profile, mode, model), how and where (permission mode, host), what it is
// told (description, context, worktree) and who may ask it. A refused field is said under it and
// focused; an edit conflict shows both versions with reload or overwrite (DESIGN.md §18).

import { useSignal, type Signal } from "@preact/signals";
import type { ComponentChildren } from "preact";
import { useMemo, useRef, useState } from "preact/hooks";

import {
  agentParams,
  fieldOfAgentError,
  formDefaults,
  modelsOf,
  modesOf,
  onProfileChange,
  permissionModesOf,
  successText,
  takesModel,
  type AgentFormValues,
  type AgentInfo,
  type FormField,
  type ProfileInfo,
} from "../model/agentform";
import { api, ApiFailure } from "../model/api";
import {
  editConflictOf,
  opened,
  overwrite,
  refused,
  versionParam,
  type EditConflict,
} from "../model/edits";
import { asksFromChoice, asksFromValue, type AsksFrom } from "../model/policy";
import { store } from "../model/state";
import type { AgentDetail, HostInfo } from "../model/types";
import { ConflictNotice } from "./conflict";
import { formErrorOf, Option, type FormError } from "./reactive";

/** What the form asks of the editor that holds it. */
export interface FormHost {
  done(notice: string): void;
  edit(target: null): void;
  open(name: string): Promise<void>;
}

let formIds = 0; // each form's model list has an id of its own

type FieldError = { field: FormField; message: string };

/** What a group of fields needs: the values, an edit, and each input's binding to its field. */
type Fields = {
  values: AgentFormValues;
  change: (field: FormField, next: Partial<AgentFormValues>) => void;
  bind: (field: FormField) => Record<string, unknown>;
  error: FieldError | null;
};

/** The create or edit form; its state is what the user typed, until saved or cancelled. */
export function AgentForm(props: { editor: FormHost; target: AgentDetail | "new" }) {
  const { editor, target } = props;
  const agent = target === "new" ? null : (target as AgentInfo);
  const profiles = store.profiles as ProfileInfo[];
  const profileOf = (name: string) => profiles.find((p) => p.name === name);
  // Signals, not state: a handler reads what was typed last even before the next render.
  const form = useSignal(useMemo(() => formDefaults(profiles, agent), []));
  const asks = useSignal(
    useMemo(() => asksFromChoice(agent ? (agent.asks_from ?? ["*"]) : ["*"]), []),
  );
  const fieldError = useSignal<FieldError | null>(null);
  const values = form.value;
  const error = fieldError.value;
  const [formError, setFormError] = useState<FormError | null>(null);
  const [conflict, setConflict] = useState<EditConflict | null>(null);
  const [submitting, setSubmitting] = useState(false);
  // Decided when the form opens and when the profile changes, not on each keystroke.
  const [modelHidden, setModelHidden] = useState(
    () => !takesModel(profileOf(values.profile)) && values.model === "",
  );
  const [hostHidden] = useState(() => store.hosts.length === 0 && values.host === "");
  const [modelsId] = useState(() => `agent-models-${++formIds}`);
  const modeChosen = useRef(agent !== null && agent.configured_mode !== null); // by user or saved
  const edit = useRef(opened(agent)); // the version of the file the form shows
  const inputs = useRef<Partial<Record<FormField, HTMLElement | null>>>({});
  const conflictBox = useRef<HTMLDivElement>(null);

  const profile = profileOf(values.profile);
  const modes = modesOf(profile);
  /** The mode its select shows: the first the profile has when the value is not one of them. */
  const shownMode = (v: AgentFormValues) => {
    const offered = modesOf(profileOf(v.profile));
    return offered.includes(v.mode) ? v.mode : (offered[0] ?? v.mode);
  };
  const mode = shownMode(values);
  const permissions = permissionModesOf(profile);
  const hosts = store.hosts;
  const others = store.agents.map((a) => a.name).filter((n) => n !== agent?.name);

  /** A field edited: its refusal, and the form's, are no longer said. */
  const touched = (field: FormField) => {
    if (fieldError.value?.field === field) fieldError.value = null;
    setFormError(null);
  };
  const change = (field: FormField, next: Partial<AgentFormValues>) => {
    touched(field);
    form.value = { ...form.value, ...next };
  };
  const pickProfile = (name: string) => {
    touched("profile");
    const now = form.value;
    const next = onProfileChange(
      { ...now, mode: shownMode(now) },
      profileOf(name),
      modeChosen.current,
    );
    setModelHidden(!takesModel(profileOf(name)) && next.model === "");
    form.value = next;
  };

  const submit = async (e?: Event) => {
    e?.preventDefault();
    const read = { ...form.value, name: form.value.name.trim(), mode: shownMode(form.value) };
    form.value = read;
    fieldError.value = null;
    setFormError(null);
    setConflict(null);
    const fields = {
      ...agentParams(read, profileOf(read.profile)),
      asks_from: asksFromValue(asks.value.anyone, asks.value.allowed, others),
    };
    setSubmitting(true);
    try {
      if (agent) {
        await api.call("agents.update", {
          name: agent.name,
          ...(read.name !== agent.name ? { new_name: read.name } : {}),
          ...fields,
          ...versionParam(edit.current),
        });
      } else {
        await api.call("agents.create", { name: read.name, ...fields });
      }
      editor.done(successText(agent === null, read.name)); // before the reload: the list shows
      await store.reloadAgents();
    } catch (err) {
      const failure = err instanceof ApiFailure ? err.error : null;
      const found = agent ? editConflictOf(failure) : null;
      const field = failure ? fieldOfAgentError(failure) : null;
      if (agent && found) {
        edit.current = refused(edit.current, found);
        setConflict(found);
        setTimeout(() => conflictBox.current?.scrollIntoView?.({ block: "nearest" }));
      } else if (field && failure) {
        fieldError.value = { field, message: failure.message };
        inputs.current[field]?.focus();
      } else {
        setFormError(formErrorOf(err, agent ? `Save ${agent.name}` : "Create agent"));
      }
    } finally {
      setSubmitting(false);
    }
  };

  /** The props that tie an input to its field: its error state and its focus on refusal. */
  const bind = (field: FormField) => ({
    ref: (el: HTMLElement | null) => {
      inputs.current[field] = el;
    },
    class: error?.field === field ? "invalid" : undefined,
    "aria-invalid": error?.field === field,
  });
  const fields: Fields = { values, change, bind, error };

  return (
    <form
      class="agent-form"
      onSubmit={(e) => void submit(e)}
      noValidate
      data-editing={agent ? agent.name : ""}
    >
      <h3>{agent ? `Edit ${agent.name}` : "New agent"}</h3>
      <RunsWith
        fields={fields}
        profiles={profiles}
        pickProfile={pickProfile}
        mode={mode}
        modes={modes}
        chooseMode={(m) => {
          modeChosen.current = true;
          change("mode", { mode: m });
        }}
        models={{ id: modelsId, hidden: modelHidden, offered: modelsOf(profile) }}
      />
      <RunsHow fields={fields} permissions={permissions} hosts={hosts} hostHidden={hostHidden} />
      <ToldWhat fields={fields} />
      <AsksFromField asks={asks} others={others} />
      <div class="agent-conflict" hidden={conflict === null} ref={conflictBox}>
        {agent && conflict ? (
          <ConflictNotice
            conflict={conflict}
            reload={() => void editor.open(agent.name)}
            overwrite={() => {
              edit.current = overwrite(edit.current);
              void submit();
            }}
          />
        ) : null}
      </div>
      <div
        class="form-error agent-form-error"
        role="alert"
        hidden={formError === null}
        data-code={formError?.code}
      >
        {formError?.text ?? ""}
      </div>
      <div class="form-buttons">
        <button class="btn primary" type="submit" disabled={submitting}>
          {agent ? "Save" : "Create"}
        </button>
        <button class="btn" type="button" onClick={() => editor.edit(null)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** One field: its label, its input, a hint, and its refusal when there is one. */
function Field(props: {
  name: FormField;
  label: string;
  error: FieldError | null;
  hint?: string;
  hidden?: boolean;
  children: ComponentChildren;
}) {
  const { name, error } = props;
  return (
    <label class="field" data-field={name} hidden={props.hidden}>
      {props.label}
      {props.children}
      {props.hint ? <span class="field-hint muted">{props.hint}</span> : null}
      <FieldRefusal name={name} error={error} />
    </label>
  );
}

function FieldRefusal({ name, error }: { name: FormField; error: FieldError | null }) {
  return (
    <div class="field-error" role="alert" hidden={error?.field !== name} data-field={name}>
      {error?.field === name ? error.message : ""}
    </div>
  );
}

/** What runs the agent: its name, its profile (the CLI), the profile's mode and its model. */
function RunsWith(props: {
  fields: Fields;
  profiles: ProfileInfo[];
  pickProfile: (name: string) => void;
  mode: string;
  modes: string[];
  chooseMode: (mode: "terminal" | "structured") => void;
  models: { id: string; hidden: boolean; offered: string[] };
}) {
  const { values, change, bind, error } = props.fields;
  const { models } = props;
  return (
    <>
      <Field name="name" label="Name" error={error} hint="a-z, 0-9, - and _; also its file name">
        <input
          {...bind("name")}
          name="name"
          value={values.name}
          placeholder="e.g. reviewer"
          required
          autocomplete="off"
          spellcheck={false}
          onInput={(e) => change("name", { name: e.currentTarget.value })}
        />
      </Field>
      <Field name="profile" label="Profile (its CLI)" error={error}>
        <select
          {...bind("profile")}
          name="profile"
          value={values.profile}
          onChange={(e) => props.pickProfile(e.currentTarget.value)}
        >
          {props.profiles.map((p) => (
            <Option key={p.name} value={p.name}>
              {`${p.name}${p.structured ? " · chat" : ""}${p.installed ? "" : " (not installed)"}`}
            </Option>
          ))}
        </select>
      </Field>
      <Field name="mode" label="Mode" error={error}>
        <select
          {...bind("mode")}
          name="mode"
          value={props.mode}
          disabled={props.modes.length < 2}
          onChange={(e) =>
            props.chooseMode(e.currentTarget.value === "terminal" ? "terminal" : "structured")
          }
        >
          {props.modes.map((m) => (
            <Option key={m} value={m}>
              {m === "structured" ? "Chat (structured)" : "Terminal"}
            </Option>
          ))}
        </select>
      </Field>
      <Field name="model" label="Model" error={error} hidden={models.hidden}>
        <input
          {...bind("model")}
          name="model"
          value={values.model}
          list={models.id}
          autocomplete="off"
          spellcheck={false}
          placeholder="the CLI's default"
          onInput={(e) => change("model", { model: e.currentTarget.value })}
        />
        <datalist id={models.id}>
          {models.offered.map((m) => (
            <Option key={m} value={m} />
          ))}
        </datalist>
      </Field>
    </>
  );
}

/** How and where it runs: the CLI's permission mode and the host (this machine or one of
 * hosts.json). A value the agent's file holds that is not offered is shown rather than lost. */
function RunsHow(props: {
  fields: Fields;
  permissions: string[];
  hosts: HostInfo[];
  hostHidden: boolean;
}) {
  const { values, change, bind, error } = props.fields;
  const { permissions, hosts } = props;
  return (
    <>
      <Field
        name="permission_mode"
        label="Permission mode"
        error={error}
        hint="How its CLI asks before it edits files or runs commands"
        hidden={permissions.length === 0 && values.permission_mode === ""}
      >
        <select
          {...bind("permission_mode")}
          name="permission_mode"
          value={values.permission_mode}
          onChange={(e) => change("permission_mode", { permission_mode: e.currentTarget.value })}
        >
          <Option value="">As the CLI is set up</Option>
          {permissions.map((m) => (
            <Option key={m} value={m}>
              {m}
            </Option>
          ))}
          {values.permission_mode && !permissions.includes(values.permission_mode) ? (
            <Option value={values.permission_mode}>{values.permission_mode}</Option>
          ) : null}
        </select>
      </Field>
      <Field
        name="host"
        label="Runs on"
        error={error}
        hint="Another machine of your hosts.json, reached over SSH"
        hidden={props.hostHidden}
      >
        <select
          {...bind("host")}
          name="host"
          value={values.host}
          onChange={(e) => change("host", { host: e.currentTarget.value })}
        >
          <Option value="">This machine</Option>
          {hosts.map((x) => (
            <Option key={x.name} value={x.name}>{`${x.name} (${x.ssh})`}</Option>
          ))}
          {values.host && !hosts.some((x) => x.name === values.host) ? (
            <Option value={values.host}>{`${values.host} (not in hosts.json)`}</Option>
          ) : null}
        </select>
      </Field>
    </>
  );
}

/** What it is told and where it works: its description, its context, its own worktree. */
function ToldWhat({ fields }: { fields: Fields }) {
  const { values, change, bind, error } = fields;
  return (
    <>
      <Field name="description" label="Description" error={error}>
        <input
          {...bind("description")}
          name="description"
          value={values.description}
          onInput={(e) => change("description", { description: e.currentTarget.value })}
        />
      </Field>
      <Field name="context" label="Context (role, instructions)" error={error}>
        <textarea
          {...bind("context")}
          name="context"
          rows={8}
          value={values.context}
          onInput={(e) => change("context", { context: e.currentTarget.value })}
        />
      </Field>
      <div class="field" data-field="workspace">
        <label class="check">
          <input
            {...bind("workspace")}
            type="checkbox"
            name="worktree"
            checked={values.worktree}
            onChange={(e) => change("workspace", { worktree: e.currentTarget.checked })}
          />
          Works in a git worktree of its own (branch idea/&lt;name&gt;)
        </label>
        <FieldRefusal name="workspace" error={error} />
      </div>
    </>
  );
}

/** "Who may ask this agent": anyone, or only the checked agents (the user always may). */
function AsksFromField(props: { asks: Signal<AsksFrom>; others: string[] }) {
  const { others } = props;
  const asks = props.asks.value;
  const onChange = (next: AsksFrom) => {
    props.asks.value = next;
  };
  const toggle = (name: string, on: boolean) => {
    const now = props.asks.value;
    onChange({
      ...now,
      allowed: on ? [...now.allowed, name] : now.allowed.filter((n) => n !== name),
    });
  };
  return (
    <fieldset class="asks-from">
      <legend>Who may ask this agent</legend>
      <label class="check">
        <input
          type="radio"
          name="asks-from"
          value="anyone"
          checked={asks.anyone}
          onChange={() => onChange({ ...props.asks.value, anyone: true })}
        />
        Anyone
      </label>
      <label class="check">
        <input
          type="radio"
          name="asks-from"
          value="only"
          checked={!asks.anyone}
          onChange={() => onChange({ ...props.asks.value, anyone: false })}
        />
        Only these agents (you always may)
      </label>
      <div class="asks-from-agents">
        {others.length ? (
          others.map((name) => (
            <label key={name} class="check" data-agent={name}>
              <input
                type="checkbox"
                name="asks-from-agent"
                value={name}
                checked={asks.allowed.includes(name)}
                disabled={asks.anyone}
                onChange={(e) => toggle(name, e.currentTarget.checked)}
              />
              {name}
            </label>
          ))
        ) : (
          <span class="muted">No other agents yet: only you could ask it.</span>
        )}
      </div>
      <p class="muted asks-from-note">
        This keeps a confused agent from asking, not a hostile one: every agent runs as your user
        and could borrow another agent's key.
      </p>
    </fieldset>
  );
}
