// The workspace-trust banner (DESIGN.md §13): a project that came from elsewhere runs nothing by
// itself; this says exactly what it would run, with Trust / Stay restricted.

import { signal } from "@preact/signals";
import { render } from "preact";

import { api } from "../model/api";
import type { TrustInfo } from "../model/types";
import { showError } from "./banner";
import { rootElement } from "./reactive";

type TrustState = { info: TrustInfo | null; dismissed: boolean; granting: boolean };

export class TrustBanner {
  readonly el = rootElement("trust-host");
  readonly state = signal<TrustState>({ info: null, dismissed: false, granting: false });

  constructor() {
    render(<Trust banner={this} />, this.el);
  }

  /** Ask the server and show the banner while the project is not trusted as it is. */
  async refresh(): Promise<void> {
    const info = await api.call<TrustInfo>("trust.get");
    this.set({ info });
  }

  /** A new project: a dismissed banner of the previous one says nothing of this one. */
  reset(): void {
    this.set({ info: null, dismissed: false, granting: false });
  }

  async trust(): Promise<void> {
    this.set({ granting: true });
    try {
      this.set({ info: await api.call<TrustInfo>("trust.grant"), granting: false });
    } catch (err) {
      this.set({ granting: false });
      showError(err, "Trusting the project");
    }
  }

  dismiss(): void {
    this.set({ dismissed: true });
  }

  private set(change: Partial<TrustState>): void {
    this.state.value = { ...this.state.value, ...change };
  }
}

function Trust({ banner }: { banner: TrustBanner }) {
  const { info, dismissed, granting } = banner.state.value;
  if (!info || info.state === "trusted" || dismissed) return null;
  const restricted = info.state === "restricted";
  const headline = restricted
    ? "This project came from elsewhere. Nothing it defines runs until you trust it: no agent " +
      "starts or resumes, and request files wait."
    : "profiles.json changed since you trusted this project. Its own profiles are ignored " +
      "(the built-in ones still work) until you trust it again.";
  const hooks = info.git_hooks?.names.length ? info.git_hooks : null;
  return (
    <div class="banner trust" role="alert" data-state={info.state}>
      <div class="trust-text">{headline}</div>
      {info.would_run.length ? (
        <div class="trust-runs">
          It would run:
          <ul>
            {info.would_run.map((row) => (
              <li key={row.profile}>
                <span class="trust-profile">
                  {`${row.profile}${row.overrides_builtin ? " (replaces the built-in)" : ""}: `}
                </span>
                <code>{row.command.join(" ")}</code>
              </li>
            ))}
          </ul>
        </div>
      ) : (
        <div class="trust-runs">It defines no profile of its own.</div>
      )}
      {hooks ? (
        <div class="trust-hooks">
          {`At a merge, git would run this repository's hooks (from ${hooks.dir}):`}
          <ul>
            {hooks.names.map((name) => (
              <li key={name}>
                <code>{name}</code>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {info.resume.length ? (
        <div class="trust-resume">{`Agents it would resume: ${info.resume.join(", ")}`}</div>
      ) : null}
      <div class="trust-actions">
        <button class="btn primary" disabled={granting} onClick={() => void banner.trust()}>
          {restricted ? "Trust" : "Trust again"}
        </button>
        <button class="btn" onClick={() => banner.dismiss()}>
          {restricted ? "Stay restricted" : "Keep ignoring"}
        </button>
      </div>
    </div>
  );
}
