// The agent editor: create (name, profile and its mode, model and permission mode, context, who
// may ask it), edit, delete with confirmation; the doctor table and the delegation policy form
// sit above the agents. A refused create or save is said under the field it is about (or above
// the buttons), never in the page's banner, and is gone once that field is edited; a success
// says what was done above the list. A save refused because the agent's file changed on disk
// since the form opened shows both versions and offers reload or overwrite (DESIGN.md §18).
// Rendered by Preact: the list follows the store; the open form keeps what the user typed in
// its own state until it is saved or cancelled.

import { signal, useSignal, type Signal } from "@preact/signals";
import { render } from "preact";
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
import type { AgentDetail, AgentRow, DoctorRow } from "../model/types";
import { showError } from "./banner";
import { ChangesView } from "./changes";
import { ConflictNotice } from "./conflict";
import { PolicyForm, PolicyView } from "./policy";
import { formErrorOf, Option, rootElement, useStore, type FormError } from "./reactive";

type Doctor = DoctorRow[] | "running" | string | null; // string: why it failed

type EditorState = {
  editing: { target: AgentDetail | "new"; opening: number } | null;
  doctor: Doctor;
  reviewing: AgentRow | null; // the Changes view stays until closed
  notice: string | null; // what the last create or save did
};

export class AgentEditor {
  readonly el = rootElement("agents");
  readonly policy = new PolicyForm();
  readonly state = signal<EditorState>({
    editing: null,
    doctor: null,
    reviewing: null,
    notice: null,
  });
  private openings = 0; // each opening of the form starts from the agent's file again

  constructor() {
    render(<Agents editor={this} />, this.el);
  }

  /** `idea doctor` (no model turn): is each profile's CLI, as installed, usable with IdeA? */
  async runDoctor(): Promise<void> {
    this.set({ doctor: "running" });
    let doctor: Doctor;
    try {
      doctor = await api.call<DoctorRow[]>("doctor.run");
    } catch (err) {
      doctor = err instanceof Error ? err.message : String(err);
    }
    this.set({ doctor });
  }

  /** The form on the agent as its file is now (the version it was read at kept for the save). */
  async open(name: string): Promise<void> {
    try {
      this.edit(await api.call<AgentDetail>("agents.get", { name }));
    } catch (err) {
      showError(err, `Edit ${name}`);
    }
  }

  /** Show the form on `target` (null: back to the list). */
  edit(target: AgentDetail | "new" | null): void {
    this.set({
      editing: target ? { target, opening: ++this.openings } : null,
      ...(target ? { notice: null } : {}),
    });
  }

  /** A create or save went through: the list, saying so. */
  done(notice: string): void {
    this.set({ editing: null, notice });
  }

  review(row: AgentRow | null): void {
    this.set({ reviewing: row });
  }

  dismissNotice(): void {
    this.set({ notice: null });
  }

  async remove(agent: AgentRow): Promise<void> {
    if (!confirm(`Delete agent ${agent.name}? Its file is removed.`)) return;
    const worktree =
      agent.workspace === "worktree"
        ? confirm(
            `Also remove ${agent.name}'s worktree and its branch idea/${agent.name}? ` +
              "OK removes them; Cancel keeps them.",
          )
          ? "remove"
          : "keep"
        : undefined;
    try {
      await api.call("agents.delete", { name: agent.name, ...(worktree ? { worktree } : {}) });
      await store.reloadAgents();
    } catch (err) {
      showError(err, `Delete ${agent.name}`);
    }
  }

  private set(change: Partial<EditorState>): void {
    this.state.value = { ...this.state.value, ...change };
  }
}

function Agents({ editor }: { editor: AgentEditor }) {
  const { editing, doctor, reviewing, notice } = editor.state.value;
  const store = useStore();
  if (editing) {
    return <AgentForm key={editing.opening} editor={editor} target={editing.target} />;
  }
  if (reviewing) return <ChangesView agent={reviewing} onClose={() => editor.review(null)} />;
  return (
    <>
      {notice ? (
        <div class="agents-notice" role="status">
          <span>{notice}</span>
          <span class="spacer" />
          <button class="btn ghost small" title="Dismiss" onClick={() => editor.dismissNotice()}>
            ✕
          </button>
        </div>
      ) : null}
      <div class="agents-head">
        <button class="btn primary" onClick={() => editor.edit("new")}>
          New agent
        </button>
        <button class="btn" onClick={() => void editor.runDoctor()} disabled={doctor === "running"}>
          Check CLIs
        </button>
      </div>
      <DoctorTable rows={doctor} />
      <PolicyView policy={editor.policy} />
      {store.agents.map((a) => (
        <div key={a.name} class="agent-row" data-agent={a.name}>
          <span class={`status-dot ${a.live ? a.status : "off"}`} />
          <div class="agent-info">
            <strong>{a.name}</strong>
            <div class="muted" title={setupOf(a)}>
              {a.description || setupOf(a)}
            </div>
          </div>
          {a.workspace === "worktree" ? (
            <button class="btn small" onClick={() => editor.review(a)}>
              Changes
            </button>
          ) : null}
          <button class="btn small" onClick={() => void editor.open(a.name)}>
            Edit
          </button>
          <button class="btn small danger" onClick={() => void editor.remove(a)}>
            Delete
          </button>
        </div>
      ))}
    </>
  );
}

function DoctorTable({ rows }: { rows: Doctor }) {
  if (rows === null) return null;
  if (rows === "running") return <div class="doctor muted">Checking each CLI…</div>;
  if (typeof rows === "string") return <div class="doctor error">{`Doctor failed: ${rows}`}</div>;
  const check = (c: string) => <td class={`check ${c}`}>{c}</td>;
  return (
    <table class="doctor">
      <tr>
        {["Profile", "Version", "Structured", "MCP tools"].map((t) => (
          <th key={t}>{t}</th>
        ))}
      </tr>
      {rows.flatMap((row) => [
        <tr key={row.profile} data-profile={row.profile}>
          <td>{row.profile}</td>
          <td>{row.version ?? "–"}</td>
          {check(row.structured)}
          {check(row.mcp)}
        </tr>,
        <tr key={`${row.profile}:detail`} class="doctor-detail" data-detail-of={row.profile}>
          <td class="detail" colSpan={4} title={row.runs.join(" ")}>
            {row.detail}
          </td>
        </tr>,
      ])}
    </table>
  );
}

let formIds = 0; // each form's model list has an id of its own

type FieldError = { field: FormField; message: string };

/** The create or edit form; its state is what the user typed, until saved or cancelled. */
function AgentForm({ editor, target }: { editor: AgentEditor; target: AgentDetail | "new" }) {
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
  const errorFor = (field: FormField) => (
    <div class="field-error" role="alert" hidden={error?.field !== field} data-field={field}>
      {error?.field === field ? error.message : ""}
    </div>
  );

  return (
    <form
      class="agent-form"
      onSubmit={(e) => void submit(e)}
      noValidate
      data-editing={agent ? agent.name : ""}
    >
      <h3>{agent ? `Edit ${agent.name}` : "New agent"}</h3>
      <label class="field" data-field="name">
        Name
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
        <span class="field-hint muted">a-z, 0-9, - and _; also its file name</span>
        {errorFor("name")}
      </label>
      <label class="field" data-field="profile">
        Profile (its CLI)
        <select
          {...bind("profile")}
          name="profile"
          value={values.profile}
          onChange={(e) => pickProfile(e.currentTarget.value)}
        >
          {profiles.map((p) => (
            <Option key={p.name} value={p.name}>
              {`${p.name}${p.structured ? " · chat" : ""}${p.installed ? "" : " (not installed)"}`}
            </Option>
          ))}
        </select>
        {errorFor("profile")}
      </label>
      <label class="field" data-field="mode">
        Mode
        <select
          {...bind("mode")}
          name="mode"
          value={mode}
          disabled={modes.length < 2}
          onChange={(e) => {
            modeChosen.current = true;
            change("mode", {
              mode: e.currentTarget.value === "terminal" ? "terminal" : "structured",
            });
          }}
        >
          {modes.map((m) => (
            <Option key={m} value={m}>
              {m === "structured" ? "Chat (structured)" : "Terminal"}
            </Option>
          ))}
        </select>
        {errorFor("mode")}
      </label>
      <label class="field" data-field="model" hidden={modelHidden}>
        Model
        <input
          {...bind("model")}
          name="model"
          value={values.model}
          list={modelsId}
          autocomplete="off"
          spellcheck={false}
          placeholder="the CLI's default"
          onInput={(e) => change("model", { model: e.currentTarget.value })}
        />
        <datalist id={modelsId}>
          {modelsOf(profile).map((m) => (
            <Option key={m} value={m} />
          ))}
        </datalist>
        {errorFor("model")}
      </label>
      <label
        class="field"
        data-field="permission_mode"
        hidden={permissions.length === 0 && values.permission_mode === ""}
      >
        Permission mode
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
          {/* An agent file may hold one this profile does not list: show it rather than lose it. */}
          {values.permission_mode && !permissions.includes(values.permission_mode) ? (
            <Option value={values.permission_mode}>{values.permission_mode}</Option>
          ) : null}
        </select>
        <span class="field-hint muted">
          How its CLI asks before it edits files or runs commands
        </span>
        {errorFor("permission_mode")}
      </label>
      <label class="field" data-field="host" hidden={hostHidden}>
        Runs on
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
          {/* An agent file may name a host this user has not configured: show it, not lose it. */}
          {values.host && !hosts.some((x) => x.name === values.host) ? (
            <Option value={values.host}>{`${values.host} (not in hosts.json)`}</Option>
          ) : null}
        </select>
        <span class="field-hint muted">Another machine of your hosts.json, reached over SSH</span>
        {errorFor("host")}
      </label>
      <label class="field" data-field="description">
        Description
        <input
          {...bind("description")}
          name="description"
          value={values.description}
          onInput={(e) => change("description", { description: e.currentTarget.value })}
        />
        {errorFor("description")}
      </label>
      <label class="field" data-field="context">
        Context (role, instructions)
        <textarea
          {...bind("context")}
          name="context"
          rows={8}
          value={values.context}
          onInput={(e) => change("context", { context: e.currentTarget.value })}
        />
        {errorFor("context")}
      </label>
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
        {errorFor("workspace")}
      </div>
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

/** "claude · chat · opus · plan": how the agent runs. */
function setupOf(a: AgentRow & { permission_mode?: string | null }): string {
  const mode = a.mode === "structured" ? "chat" : a.mode === "terminal" ? "terminal" : null;
  return [a.profile, mode, a.model, a.permission_mode, a.host ? `on ${a.host}` : null]
    .filter(Boolean)
    .join(" · ");
}
