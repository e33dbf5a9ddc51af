// The "Delegation policy" form of the Agents panel (DESIGN.md §15): max depth, ask timeout, queue
// wait, hibernate after, chain token budget. Its state lives here for the panel's life, so what
// the user typed survives the panel's redraws and the agent form shown in its place; a refused
// value is shown next to its box. A save refused because policy.json changed on disk since it
// was read shows both versions and offers reload or overwrite (DESIGN.md §18).

import { signal } from "@preact/signals";

import { api, ApiFailure } from "../model/api";
import {
  editConflictOf,
  opened,
  overwrite,
  refused,
  versionParam,
  type EditConflict,
  type EditState,
} from "../model/edits";
import {
  fieldOfError,
  POLICY_FIELDS,
  policyFromForm,
  policySummary,
  policyToForm,
  type PolicyForm as FormValues,
  type PolicyKey,
} from "../model/policy";
import type { PolicyInfo } from "../model/types";
import { ConflictNotice } from "./conflict";
import { formErrorOf, type FormError } from "./reactive";

type PolicyState = {
  values: FormValues;
  errors: Partial<Record<PolicyKey, string>>; // a refused box: why
  summary: string;
  problem: string | null; // policy.json could not be read
  formError: FormError | null;
  saved: string;
  conflict: EditConflict | null;
  open: boolean;
};

const EMPTY: PolicyState = {
  values: policyToForm(null),
  errors: {},
  summary: "",
  problem: null,
  formError: null,
  saved: "",
  conflict: null,
  open: false,
};

export class PolicyForm {
  readonly state = signal<PolicyState>(EMPTY);
  private dirty = false; // typed and not saved: a reload does not overwrite it
  private saving = false;
  private edit: EditState = opened(null); // the version of policy.json the boxes show

  /** Ask the server for the policy; unsaved typing is kept unless `force` (another project). */
  async load(force = false): Promise<void> {
    if (this.dirty && !force) return;
    try {
      const info = await api.call<PolicyInfo>("policy.get");
      if (this.dirty && !force) return; // typed while it was on its way
      this.fill(info);
    } catch (err) {
      this.set({ summary: "", formError: formErrorOf(err, "Could not read the policy") });
    }
  }

  /** A new project: nothing typed for the previous one is kept. */
  reset(): void {
    this.dirty = false;
    this.edit = opened(null);
    this.set({ saved: "", errors: {}, formError: null, conflict: null });
  }

  /** What the user typed in box `key`. */
  typed(key: PolicyKey, text: string): void {
    this.dirty = true;
    const errors = { ...this.state.value.errors };
    delete errors[key];
    this.set({ values: { ...this.state.value.values, [key]: text }, saved: "", errors });
  }

  toggled(open: boolean): void {
    if (open !== this.state.value.open) this.set({ open });
  }

  private fill(info: PolicyInfo): void {
    const values = policyToForm(info?.policy);
    const problem = typeof info?.problem === "string" && info.problem ? info.problem : null;
    this.dirty = false;
    this.edit = opened(info);
    this.set({
      values,
      errors: {},
      conflict: null,
      formError: null,
      summary: policySummary(values),
      problem,
      // the defaults apply: say so without a click
      ...(problem ? { open: true } : {}),
    });
  }

  async save(): Promise<void> {
    if (this.saving) return;
    this.set({ errors: {}, formError: null, conflict: null, saved: "" });
    const read = policyFromForm(this.state.value.values);
    if (!read.ok) return this.set({ errors: { [read.field]: read.message }, open: true });
    this.saving = true;
    try {
      const info = await api.call<PolicyInfo>("policy.set", {
        policy: read.policy,
        ...versionParam(this.edit),
      });
      this.fill(info);
      this.set({ saved: "Saved." });
    } catch (err) {
      const field = err instanceof ApiFailure ? fieldOfError(err.error) : null;
      const conflict = err instanceof ApiFailure ? editConflictOf(err.error) : null;
      if (conflict) {
        this.edit = refused(this.edit, conflict);
        this.set({ conflict, open: true });
      } else if (field && err instanceof ApiFailure) {
        this.set({ errors: { [field]: err.error.message }, open: true });
      } else this.set({ formError: formErrorOf(err, "Not saved") });
    } finally {
      this.saving = false;
    }
  }

  /** "Overwrite" in the conflict notice: save again on the version now on disk. */
  overwrite(): void {
    this.edit = overwrite(this.edit);
    void this.save();
  }

  private set(change: Partial<PolicyState>): void {
    this.state.value = { ...this.state.value, ...change };
  }
}

/** The form of `policy`, rendered again when its state changes. */
export function PolicyView({ policy }: { policy: PolicyForm }) {
  const s = policy.state.value;
  return (
    <details class="policy" open={s.open} onToggle={(e) => policy.toggled(e.currentTarget.open)}>
      <summary>
        <span class="policy-title">Delegation policy</span>
        <span class="policy-summary muted">{s.summary}</span>
      </summary>
      <form
        class="policy-form"
        onSubmit={(e) => {
          e.preventDefault();
          void policy.save();
        }}
      >
        <div class="policy-problem" role="alert" hidden={s.problem === null}>
          {s.problem
            ? `.ideai/policy.json could not be read, so the defaults apply: ${s.problem}`
            : null}
        </div>
        {POLICY_FIELDS.map(({ key, label, unit, empty }) => {
          const error = s.errors[key];
          return (
            <label key={key} class="policy-field" data-field={key}>
              <span class="policy-label">{label}</span>
              <input
                class={error !== undefined ? "invalid" : undefined}
                name={key}
                type="text"
                inputMode="numeric"
                autocomplete="off"
                placeholder={empty ?? ""}
                title={empty ? `Empty: ${empty}` : ""}
                value={s.values[key]}
                onInput={(e) => policy.typed(key, e.currentTarget.value)}
              />
              <span class="policy-unit muted">{unit}</span>
              <div class="policy-error" role="alert" hidden={error === undefined} data-field={key}>
                {error ?? ""}
              </div>
            </label>
          );
        })}
        <div class="policy-conflict" hidden={s.conflict === null}>
          {s.conflict ? (
            <ConflictNotice
              conflict={s.conflict}
              reload={() => void policy.load(true)}
              overwrite={() => policy.overwrite()}
            />
          ) : null}
        </div>
        <div
          class="policy-error form-error"
          role="alert"
          hidden={s.formError === null}
          data-code={s.formError?.code}
        >
          {s.formError?.text ?? ""}
        </div>
        <div class="form-buttons">
          <button class="btn primary policy-save" type="submit">
            Save
          </button>
          <span class="policy-saved muted">{s.saved}</span>
        </div>
      </form>
    </details>
  );
}
