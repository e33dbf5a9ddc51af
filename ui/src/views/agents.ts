// The agent editor: create (name, profile, context, who may ask it), edit, delete with
// confirmation; the doctor table and the delegation policy form sit above the agents.

import { api } from "../model/api";
import { asksFromChoice, asksFromValue } from "../model/policy";
import { store } from "../model/state";
import type { AgentDetail, AgentRow, DoctorRow } from "../model/types";
import { showError } from "./banner";
import { ChangesView } from "./changes";
import { clear, h } from "./dom";
import { PolicyForm } from "./policy";

export class AgentEditor {
  readonly el = h("div.agents");
  readonly policy = new PolicyForm();
  private editing: AgentDetail | "new" | null = null;
  private doctor: DoctorRow[] | "running" | string | null = null; // string: why it failed
  private reviewing: ChangesView | null = null;

  render(): void {
    if (this.editing) return; // the open form keeps what the user typed
    if (this.reviewing) return; // the Changes view stays until closed
    clear(
      this.el,
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
          h("div.agent-info", {}, h("strong", {}, a.name), h("div.muted", {}, a.description || a.profile)),
          a.workspace === "worktree"
            ? h("button.btn.small", { onclick: () => void this.review(a) }, "Changes")
            : "",
          h("button.btn.small", { onclick: () => void this.open(a) }, "Edit"),
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
      this.doctor = await api.call<DoctorRow[]>("doctor.run");
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

  private async open(row: AgentRow): Promise<void> {
    try {
      this.edit(await api.call<AgentDetail>("agents.get", { name: row.name }));
    } catch (err) {
      showError(err, `Edit ${row.name}`);
    }
  }

  private edit(target: AgentDetail | "new" | null): void {
    this.editing = target;
    if (target) clear(this.el, this.form(target));
    else this.render();
  }

  private form(target: AgentDetail | "new"): HTMLElement {
    const agent = target === "new" ? null : target;
    const name = h("input", { name: "name", value: agent?.name ?? "", placeholder: "my-agent", required: true });
    const profile = h(
      "select",
      { name: "profile" },
      ...store.profiles.map((p) =>
        h(
          "option",
          { value: p.name, selected: p.name === (agent?.profile ?? "shell") },
          `${p.name}${p.installed ? "" : " (not installed)"}`,
        ),
      ),
    );
    const description = h("input", { name: "description", value: agent?.description ?? "" });
    const context = h("textarea", { name: "context", rows: 8, value: agent?.context ?? "" });
    const worktree = h("input", {
      type: "checkbox",
      name: "worktree",
      checked: agent?.workspace === "worktree",
    });
    const asks = this.asksFrom(agent);
    const submit = async (e: Event) => {
      e.preventDefault();
      const fields = {
        profile: profile.value,
        context: context.value,
        description: description.value || null,
        workspace: worktree.checked ? "worktree" : "project",
        asks_from: asks.value(),
      };
      try {
        if (agent) {
          await api.call("agents.update", {
            name: agent.name,
            ...(name.value !== agent.name ? { new_name: name.value } : {}),
            ...fields,
          });
        } else {
          await api.call("agents.create", { name: name.value, ...fields });
        }
        await store.reloadAgents();
        this.edit(null);
      } catch (err) {
        showError(err, agent ? `Save ${agent.name}` : "Create agent");
      }
    };
    return h(
      "form.agent-form",
      { onsubmit: submit },
      h("h3", {}, agent ? `Edit ${agent.name}` : "New agent"),
      h("label", {}, "Name", name),
      h("label", {}, "Profile", profile),
      h("label", {}, "Description", description),
      h("label", {}, "Context (role, instructions)", context),
      h("label.check", {}, worktree, "Works in a git worktree of its own (branch idea/<name>)"),
      asks.el,
      h(
        "div.form-buttons",
        {},
        h("button.btn.primary", { type: "submit" }, agent ? "Save" : "Create"),
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
