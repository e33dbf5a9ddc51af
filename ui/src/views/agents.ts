// The agent editor: create (name, profile, context), edit, delete with confirmation.

import { api } from "../model/api";
import { store } from "../model/state";
import type { AgentDetail, AgentRow, DoctorRow } from "../model/types";
import { showError } from "./banner";
import { ChangesView } from "./changes";
import { clear, h } from "./dom";

export class AgentEditor {
  readonly el = h("div.agents");
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
    const submit = async (e: Event) => {
      e.preventDefault();
      const fields = {
        profile: profile.value,
        context: context.value,
        description: description.value || null,
        workspace: worktree.checked ? "worktree" : "project",
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
      h(
        "div.form-buttons",
        {},
        h("button.btn.primary", { type: "submit" }, agent ? "Save" : "Create"),
        h("button.btn", { type: "button", onclick: () => this.edit(null) }, "Cancel"),
      ),
    );
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
