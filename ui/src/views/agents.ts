// The agent editor: create (name, profile and its mode, model and permission mode, context, who
// may ask it), edit, delete with confirmation; the doctor table and the delegation policy form
// sit above the agents. A refused create or save is said under the field it is about (or above
// the buttons), never in the page's banner, and is gone once that field is edited; a success
// says what was done above the list. A save refused because the agent's file changed on disk
// since the form opened shows both versions and offers reload or overwrite (DESIGN.md §18).

import {
  agentParams, fieldOfAgentError, formDefaults, modelsOf, modesOf, onProfileChange, permissionModesOf,
  successText, takesModel, type AgentFormValues, type AgentInfo, type FormField, type ProfileInfo,
} from "../model/agentform";
import { api, ApiFailure } from "../model/api";
import { editConflictOf, opened, overwrite, refused, versionParam } from "../model/edits";
import { describeError } from "../model/errors";
import { asksFromChoice, asksFromValue } from "../model/policy";
import { store } from "../model/state";
import type { AgentDetail, AgentRow, DoctorRow } from "../model/types";
import { showError } from "./banner";
import { ChangesView } from "./changes";
import { conflictNotice } from "./conflict";
import { clear, h } from "./dom";
import { PolicyForm } from "./policy";

let formIds = 0; // each form's model list has an id of its own

export class AgentEditor {
  readonly el = h("div.agents");
  readonly policy = new PolicyForm();
  private editing: AgentDetail | "new" | null = null;
  private doctor: DoctorRow[] | "running" | string | null = null; // string: why it failed
  private reviewing: ChangesView | null = null;
  private notice: string | null = null; // what the last create or save did

  render(): void {
    if (this.editing) return; // the open form keeps what the user typed
    if (this.reviewing) return; // the Changes view stays until closed
    clear(
      this.el,
      this.notice
        ? h(
            "div.agents-notice",
            { role: "status" },
            h("span", {}, this.notice),
            h("span.spacer"),
            h("button.btn.ghost.small", { title: "Dismiss", onclick: () => ((this.notice = null), this.render()) }, "✕"),
          )
        : null,
      h(
        "div.agents-head",
        {},
        h("button.btn.primary", { onclick: () => this.edit("new") }, "New agent"),
        h(
          "button.btn",
          { onclick: () => void this.runDoctor(), disabled: this.doctor === "running" },
          "Check CLIs",
        ),
      ),
      this.doctorTable(),
      this.policy.el,
      ...store.agents.map((a) =>
        h(
          "div.agent-row",
          { dataset: { agent: a.name } },
          h("span.status-dot", { class: a.live ? a.status : "off" }),
          h(
            "div.agent-info",
            {},
            h("strong", {}, a.name),
            h("div.muted", { title: setupOf(a) }, a.description || setupOf(a)),
          ),
          a.workspace === "worktree"
            ? h("button.btn.small", { onclick: () => void this.review(a) }, "Changes")
            : "",
          h("button.btn.small", { onclick: () => void this.open(a.name) }, "Edit"),
          h("button.btn.small.danger", { onclick: () => void this.remove(a) }, "Delete"),
        ),
      ),
    );
  }

  /** `idea doctor` (no model turn): is each profile's CLI, as installed, usable with IdeA? */
  async runDoctor(): Promise<void> {
    this.doctor = "running";
    this.render();
    try {
      this.doctor = await api.call("doctor.run");
    } catch (err) {
      this.doctor = err instanceof Error ? err.message : String(err);
    }
    this.render();
  }

  private doctorTable(): HTMLElement | string {
    const rows = this.doctor;
    if (rows === null) return "";
    if (rows === "running") return h("div.doctor.muted", {}, "Checking each CLI…");
    if (typeof rows === "string") return h("div.doctor.error", {}, `Doctor failed: ${rows}`);
    const cell = (check: string) => h("td", { class: `check ${check}` }, check);
    return h(
      "table.doctor",
      {},
      h("tr", {}, ...["Profile", "Version", "Structured", "MCP tools"].map((t) => h("th", {}, t))),
      ...rows.flatMap((row) => [
        h(
          "tr",
          { dataset: { profile: row.profile } },
          h("td", {}, row.profile),
          h("td", {}, row.version ?? "–"),
          cell(row.structured),
          cell(row.mcp),
        ),
        h(
          "tr.doctor-detail",
          { dataset: { detailOf: row.profile } },
          h("td.detail", { colSpan: 4, title: row.runs.join(" ") }, row.detail),
        ),
      ]),
    );
  }

  private async review(row: AgentRow): Promise<void> {
    const view = new ChangesView(row, () => {
      this.reviewing = null;
      this.render();
    });
    this.reviewing = view;
    clear(this.el, view.el);
    await view.load();
  }

  /** The form on the agent as its file is now (the version it was read at kept for the save). */
  private async open(name: string): Promise<void> {
    try {
      this.edit(await api.call("agents.get", { name }));
    } catch (err) {
      showError(err, `Edit ${name}`);
    }
  }

  private edit(target: AgentDetail | "new" | null): void {
    if (target) this.notice = null;
    this.editing = target;
    if (target) clear(this.el, this.form(target));
    else this.render();
  }

  private form(target: AgentDetail | "new"): HTMLElement {
    const agent = target === "new" ? null : (target as AgentInfo);
    const profiles = store.profiles as ProfileInfo[];
    const profileOf = (name: string) => profiles.find((p) => p.name === name);
    let values = formDefaults(profiles, agent);
    const errors = new Map<FormField, HTMLElement>();
    const inputs = new Map<FormField, HTMLElement>();
    const formError = h("div.form-error.agent-form-error", { role: "alert", hidden: true });
    let edit = opened(agent); // the version of the file the form shows
    const conflictBox = h("div.agent-conflict", { hidden: true });
    const errorFor = (field: FormField) => {
      const el = h("div.field-error", { role: "alert", hidden: true, dataset: { field } });
      errors.set(field, el);
      return el;
    };
    const fieldError = (field: FormField | null, message: string | null) => {
      for (const [f, el] of errors) {
        const on = f === field && message !== null;
        el.hidden = !on;
        el.textContent = on ? message : "";
        inputs.get(f)?.classList.toggle("invalid", on);
        inputs.get(f)?.setAttribute("aria-invalid", on ? "true" : "false");
      }
    };
    const clearError = (field: FormField) => {
      const el = errors.get(field);
      if (el && !el.hidden) fieldError(null, null);
      formError.hidden = true;
    };
    const watch = <T extends HTMLElement>(field: FormField, el: T): T => {
      inputs.set(field, el);
      el.addEventListener("input", () => clearError(field));
      el.addEventListener("change", () => clearError(field));
      return el;
    };

    const name = watch(
      "name",
      h("input", {
        name: "name", value: values.name, placeholder: "e.g. reviewer", required: true, autocomplete: "off",
        spellcheck: false,
      }),
    );
    const profile = watch(
      "profile",
      h(
        "select",
        { name: "profile" },
        ...profiles.map((p) =>
          h(
            "option",
            { value: p.name, selected: p.name === values.profile },
            `${p.name}${p.structured ? " · chat" : ""}${p.installed ? "" : " (not installed)"}`,
          ),
        ),
      ),
    );
    const mode = watch("mode", h("select", { name: "mode" }));
    const models = h("datalist", { id: `agent-models-${++formIds}` });
    const model = watch(
      "model",
      h("input", {
        name: "model", value: values.model, list: models.id, autocomplete: "off", spellcheck: false,
        placeholder: "the CLI's default",
      }),
    );
    const permission = watch("permission_mode", h("select", { name: "permission_mode" }));
    const description = watch("description", h("input", { name: "description", value: values.description }));
    const context = watch("context", h("textarea", { name: "context", rows: 8, value: values.context }));
    const worktree = watch(
      "workspace",
      h("input", { type: "checkbox", name: "worktree", checked: values.worktree }),
    );
    const hostNames = store.hosts.map((x) => x.name);
    const host = watch(
      "host",
      h(
        "select",
        { name: "host" },
        h("option", { value: "", selected: values.host === "" }, "This machine"),
        ...store.hosts.map((x) =>
          h("option", { value: x.name, selected: x.name === values.host }, `${x.name} (${x.ssh})`),
        ),
        // An agent file may name a host this user has not configured: show it rather than lose it.
        values.host && !hostNames.includes(values.host)
          ? h("option", { value: values.host, selected: true }, `${values.host} (not in hosts.json)`)
          : null,
      ),
    );
    const hostField = h(
      "label.field",
      { dataset: { field: "host" }, hidden: store.hosts.length === 0 && values.host === "" },
      "Runs on",
      host,
      h("span.field-hint.muted", {}, "Another machine of your hosts.json, reached over SSH"),
      errorFor("host"),
    );
    const modeField = h("label.field", { dataset: { field: "mode" } }, "Mode", mode, errorFor("mode"));
    const modelField = h("label.field", { dataset: { field: "model" } }, "Model", model, models, errorFor("model"));
    const permissionField = h(
      "label.field",
      { dataset: { field: "permission_mode" } },
      "Permission mode",
      permission,
      h("span.field-hint.muted", {}, "How its CLI asks before it edits files or runs commands"),
      errorFor("permission_mode"),
    );

    /** The choices of the profile picked: its modes, its permission modes, its models. */
    const offer = () => {
      const p = profileOf(values.profile);
      clear(
        mode,
        ...modesOf(p).map((m) =>
          h("option", { value: m, selected: m === values.mode }, m === "structured" ? "Chat (structured)" : "Terminal"),
        ),
      );
      mode.disabled = modesOf(p).length < 2;
      const permissions = permissionModesOf(p);
      const current = values.permission_mode;
      clear(
        permission,
        h("option", { value: "", selected: current === "" }, "As the CLI is set up"),
        ...permissions.map((m) => h("option", { value: m, selected: m === current }, m)),
        // An agent file may hold one this profile does not list: show it rather than lose it.
        current && !permissions.includes(current) ? h("option", { value: current, selected: true }, current) : null,
      );
      permissionField.hidden = permissions.length === 0 && current === "";
      clear(models, ...modelsOf(p).map((m) => h("option", { value: m })));
      modelField.hidden = !takesModel(p) && values.model === "";
    };
    const read = (): AgentFormValues => ({
      ...values,
      name: name.value.trim(),
      profile: profile.value,
      mode: mode.value === "terminal" ? "terminal" : "structured",
      model: model.value,
      permission_mode: permission.value,
      description: description.value,
      context: context.value,
      worktree: worktree.checked,
      host: host.value,
    });
    let modeChosen = agent !== null && agent.configured_mode !== null; // by the user, or saved
    profile.addEventListener("change", () => {
      values = onProfileChange(read(), profileOf(profile.value), modeChosen);
      model.value = values.model;
      offer();
    });
    mode.addEventListener("change", () => {
      modeChosen = true;
      values = read();
    });
    permission.addEventListener("change", () => (values = read()));
    offer();

    const asks = this.asksFrom(agent);
    const submitButton = h("button.btn.primary", { type: "submit" }, agent ? "Save" : "Create");
    const submit = async (e?: Event) => {
      e?.preventDefault();
      values = read();
      fieldError(null, null);
      formError.hidden = true;
      conflictBox.hidden = true;
      const fields = { ...agentParams(values, profileOf(values.profile)), asks_from: asks.value() };
      submitButton.disabled = true;
      try {
        if (agent) {
          await api.call("agents.update", {
            name: agent.name,
            ...(values.name !== agent.name ? { new_name: values.name } : {}),
            ...fields,
            ...versionParam(edit),
          });
        } else {
          await api.call("agents.create", { name: values.name, ...fields });
        }
        this.notice = successText(agent === null, values.name);
        this.editing = null; // before the reload: its render shows the list, and the notice
        await store.reloadAgents();
        this.edit(null);
      } catch (err) {
        const e = err instanceof ApiFailure ? err.error : { code: "INTERNAL", message: String(err) };
        const conflict = agent ? editConflictOf(e) : null;
        const field = fieldOfAgentError(e);
        if (agent && conflict) {
          edit = refused(edit, conflict);
          conflictBox.hidden = false;
          clear(
            conflictBox,
            conflictNotice(conflict, {
              reload: () => void this.open(agent.name),
              overwrite: () => {
                edit = overwrite(edit);
                void submit();
              },
            }),
          );
          conflictBox.scrollIntoView?.({ block: "nearest" });
        } else if (field && errors.has(field)) {
          fieldError(field, e.message);
          inputs.get(field)?.focus();
        } else {
          formError.hidden = false;
          formError.dataset.code = e.code;
          const { text } = describeError(e);
          clear(formError, `${agent ? `Save ${agent.name}` : "Create agent"}: ${text}`);
        }
      } finally {
        submitButton.disabled = false;
      }
    };
    return h(
      "form.agent-form",
      { onsubmit: submit, noValidate: true, dataset: { editing: agent ? agent.name : "" } },
      h("h3", {}, agent ? `Edit ${agent.name}` : "New agent"),
      h(
        "label.field",
        { dataset: { field: "name" } },
        "Name",
        name,
        h("span.field-hint.muted", {}, "a-z, 0-9, - and _; also its file name"),
        errorFor("name"),
      ),
      h("label.field", { dataset: { field: "profile" } }, "Profile (its CLI)", profile, errorFor("profile")),
      modeField,
      modelField,
      permissionField,
      hostField,
      h("label.field", { dataset: { field: "description" } }, "Description", description, errorFor("description")),
      h(
        "label.field",
        { dataset: { field: "context" } },
        "Context (role, instructions)",
        context,
        errorFor("context"),
      ),
      h(
        "div.field",
        { dataset: { field: "workspace" } },
        h("label.check", {}, worktree, "Works in a git worktree of its own (branch idea/<name>)"),
        errorFor("workspace"),
      ),
      asks.el,
      conflictBox,
      formError,
      h(
        "div.form-buttons",
        {},
        submitButton,
        h("button.btn", { type: "button", onclick: () => this.edit(null) }, "Cancel"),
      ),
    );
  }

  /** "Who may ask this agent": anyone, or only the checked agents (the user always may). */
  private asksFrom(agent: AgentDetail | null): { el: HTMLElement; value: () => string[] } {
    const choice = asksFromChoice(agent ? (agent.asks_from ?? ["*"]) : ["*"]);
    const others = store.agents.map((a) => a.name).filter((n) => n !== agent?.name);
    const anyone = h("input", { type: "radio", name: "asks-from", value: "anyone", checked: choice.anyone });
    const only = h("input", { type: "radio", name: "asks-from", value: "only", checked: !choice.anyone });
    const boxes = others.map((name) =>
      h("input", {
        type: "checkbox",
        name: "asks-from-agent",
        value: name,
        checked: choice.allowed.includes(name),
        disabled: choice.anyone,
      }),
    );
    const sync = () => boxes.forEach((b) => (b.disabled = anyone.checked));
    anyone.addEventListener("change", sync);
    only.addEventListener("change", sync);
    const el = h(
      "fieldset.asks-from",
      {},
      h("legend", {}, "Who may ask this agent"),
      h("label.check", {}, anyone, "Anyone"),
      h("label.check", {}, only, "Only these agents (you always may)"),
      h(
        "div.asks-from-agents",
        {},
        ...(boxes.length
          ? boxes.map((b) => h("label.check", { dataset: { agent: b.value } }, b, b.value))
          : [h("span.muted", {}, "No other agents yet: only you could ask it.")]),
      ),
      h(
        "p.muted.asks-from-note",
        {},
        "This keeps a confused agent from asking, not a hostile one: every agent runs as your user " +
          "and could borrow another agent's key.",
      ),
    );
    return {
      el,
      value: () => asksFromValue(anyone.checked, boxes.filter((b) => b.checked).map((b) => b.value), others),
    };
  }

  private async remove(agent: AgentRow): Promise<void> {
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
}

/** "claude · chat · opus · plan": how the agent runs. */
function setupOf(a: AgentRow & { permission_mode?: string | null }): string {
  const mode = a.mode === "structured" ? "chat" : a.mode === "terminal" ? "terminal" : null;
  return [a.profile, mode, a.model, a.permission_mode, a.host ? `on ${a.host}` : null].filter(Boolean).join(" · ");
}
