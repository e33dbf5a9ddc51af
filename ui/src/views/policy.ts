// The "Delegation policy" form of the Agents panel (DESIGN.md §15): max depth, ask timeout, queue
// wait, hibernate after, chain token budget. One element for the panel's life, so what the user
// typed survives the panel's redraws; a refused value is shown next to its box. A save refused
// because policy.json changed on disk since it was read shows both versions and offers reload or
// overwrite (DESIGN.md §18).

import { api, ApiFailure } from "../model/api";
import { editConflictOf, opened, overwrite, refused, versionParam, type EditState } from "../model/edits";
import { describeError } from "../model/errors";
import {
  fieldOfError, POLICY_FIELDS, policyFromForm, policySummary, policyToForm, type PolicyForm as FormValues,
  type PolicyKey,
} from "../model/policy";
import type { PolicyInfo } from "../model/types";
import { conflictNotice } from "./conflict";
import { clear, h } from "./dom";

export class PolicyForm {
  readonly el = h("details.policy");
  private readonly summary = h("span.policy-summary.muted");
  private readonly problem = h("div.policy-problem", { role: "alert", hidden: true });
  private readonly formError = h("div.policy-error.form-error", { role: "alert", hidden: true });
  private readonly saved = h("span.policy-saved.muted");
  private readonly conflictBox = h("div.policy-conflict", { hidden: true });
  private readonly inputs = {} as Record<PolicyKey, HTMLInputElement>;
  private readonly errors = {} as Record<PolicyKey, HTMLElement>;
  private dirty = false; // typed and not saved: a reload does not overwrite it
  private saving = false;
  private edit: EditState = opened(null); // the version of policy.json the boxes show

  constructor() {
    const rows = POLICY_FIELDS.map(({ key, label, unit, empty }) => {
      const input = h("input", {
        name: key,
        type: "text",
        inputMode: "numeric",
        autocomplete: "off",
        placeholder: empty ?? "",
        title: empty ? `Empty: ${empty}` : "",
        oninput: () => {
          this.dirty = true;
          this.saved.textContent = "";
          this.fieldError(key, null);
        },
      });
      const error = h("div.policy-error", { role: "alert", hidden: true, dataset: { field: key } });
      this.inputs[key] = input;
      this.errors[key] = error;
      return h(
        "label.policy-field",
        { dataset: { field: key } },
        h("span.policy-label", {}, label),
        input,
        h("span.policy-unit.muted", {}, unit),
        error,
      );
    });
    this.el.append(
      h("summary", {}, h("span.policy-title", {}, "Delegation policy"), this.summary),
      h(
        "form.policy-form",
        { onsubmit: (e: Event) => void this.save(e) },
        this.problem,
        ...rows,
        this.conflictBox,
        this.formError,
        h(
          "div.form-buttons",
          {},
          h("button.btn.primary.policy-save", { type: "submit" }, "Save"),
          this.saved,
        ),
      ),
    );
  }

  /** Ask the server for the policy; unsaved typing is kept unless `force` (another project). */
  async load(force = false): Promise<void> {
    if (this.dirty && !force) return;
    try {
      const info = await api.call("policy.get");
      if (this.dirty && !force) return; // typed while it was on its way
      this.fill(info);
    } catch (err) {
      this.summary.textContent = "";
      this.showFormError(err, "Could not read the policy");
    }
  }

  /** A new project: nothing typed for the previous one is kept. */
  reset(): void {
    this.dirty = false;
    this.saved.textContent = "";
    for (const { key } of POLICY_FIELDS) this.fieldError(key, null);
    this.showFormError(null);
    this.showConflict(null);
    this.edit = opened(null);
  }

  private fill(info: PolicyInfo): void {
    const form = policyToForm(info?.policy);
    for (const { key } of POLICY_FIELDS) {
      this.inputs[key].value = form[key];
      this.fieldError(key, null);
    }
    this.dirty = false;
    this.edit = opened(info);
    this.showConflict(null);
    this.showFormError(null);
    this.summary.textContent = policySummary(form);
    const problem = typeof info?.problem === "string" && info.problem ? info.problem : null;
    this.problem.hidden = problem === null;
    if (problem) this.el.open = true; // the defaults apply: say so without a click
    clear(
      this.problem,
      problem ? `.ideai/policy.json could not be read, so the defaults apply: ${problem}` : null,
    );
  }

  private async save(e?: Event): Promise<void> {
    e?.preventDefault();
    if (this.saving) return;
    const values = {} as FormValues;
    for (const { key } of POLICY_FIELDS) values[key] = this.inputs[key].value;
    for (const { key } of POLICY_FIELDS) this.fieldError(key, null);
    this.showFormError(null);
    this.showConflict(null);
    this.saved.textContent = "";
    const read = policyFromForm(values);
    if (!read.ok) return this.fieldError(read.field, read.message);
    this.saving = true;
    try {
      const info = await api.call("policy.set", { policy: read.policy, ...versionParam(this.edit) });
      this.fill(info);
      this.saved.textContent = "Saved.";
    } catch (err) {
      const field = err instanceof ApiFailure ? fieldOfError(err.error) : null;
      const conflict = err instanceof ApiFailure ? editConflictOf(err.error) : null;
      if (conflict) {
        this.edit = refused(this.edit, conflict);
        this.showConflict(conflict);
      } else if (field && err instanceof ApiFailure) this.fieldError(field, err.error.message);
      else this.showFormError(err, "Not saved");
    } finally {
      this.saving = false;
    }
  }

  private fieldError(key: PolicyKey, message: string | null): void {
    const el = this.errors[key];
    el.hidden = message === null;
    el.textContent = message ?? "";
    this.inputs[key].classList.toggle("invalid", message !== null);
    if (message !== null) this.el.open = true;
  }

  /** The notice of a save refused for a change on disk (null: none); reload drops the typing. */
  private showConflict(conflict: ReturnType<typeof editConflictOf>): void {
    this.conflictBox.hidden = conflict === null;
    if (conflict === null) return clear(this.conflictBox);
    this.el.open = true;
    clear(
      this.conflictBox,
      conflictNotice(conflict, {
        reload: () => void this.load(true),
        overwrite: () => {
          this.edit = overwrite(this.edit);
          void this.save();
        },
      }),
    );
  }

  private showFormError(err: unknown, context?: string): void {
    this.formError.hidden = err === null;
    if (err === null) return clear(this.formError);
    const e = err instanceof ApiFailure ? err.error : { code: "INTERNAL", message: String(err) };
    const { text } = describeError(e);
    this.formError.dataset.code = e.code;
    clear(this.formError, context ? `${context}: ${text}` : text);
  }
}
