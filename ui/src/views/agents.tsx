// The agent editor: create (name, profile and its mode, model and permission mode, context, who
// may ask it), edit, delete with confirmation; the doctor table and the delegation policy form
// sit above the agents. A refused create or save is said under the field it is about (or above
// the buttons), never in the page's banner, and is gone once that field is edited; a success
// says what was done above the list. A save refused because the agent's file changed on disk
// since the form opened shows both versions and offers reload or overwrite (DESIGN.md §18).
// Rendered by Preact: the list follows the store; the open form keeps what the user typed in
// its own state until it is saved or cancelled.

import { signal } from "@preact/signals";
import { render } from "preact";

import { api } from "../model/api";
import { store } from "../model/state";
import type { AgentDetail, AgentRow, DoctorRow } from "../model/types";
import { AgentForm } from "./agentform";
import { showError } from "./banner";
import { ChangesView } from "./changes";
import { PolicyForm, PolicyView } from "./policy";
import { rootElement, useStore } from "./reactive";

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
      doctor = await api.call("doctor.run");
    } catch (err) {
      doctor = err instanceof Error ? err.message : String(err);
    }
    this.set({ doctor });
  }

  /** The form on the agent as its file is now (the version it was read at kept for the save). */
  async open(name: string): Promise<void> {
    try {
      this.edit(await api.call("agents.get", { name }));
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

/** "claude · chat · opus · plan": how the agent runs. */
function setupOf(a: AgentRow & { permission_mode?: string | null }): string {
  const mode = a.mode === "structured" ? "chat" : a.mode === "terminal" ? "terminal" : null;
  return [a.profile, mode, a.model, a.permission_mode, a.host ? `on ${a.host}` : null]
    .filter(Boolean)
    .join(" · ");
}
