// The workspace-trust banner (DESIGN.md §13): a project that came from elsewhere runs nothing by
// itself; this says exactly what it would run, with Trust / Stay restricted.

import { api } from "../model/api";
import type { TrustInfo } from "../model/types";
import { showError } from "./banner";
import { clear, h } from "./dom";

export class TrustBanner {
  readonly el = h("div.trust-host");
  private dismissed = false;

  /** Ask the server and show the banner while the project is not trusted as it is. */
  async refresh(): Promise<void> {
    const info = await api.call("trust.get");
    this.render(info);
  }

  /** A new project: a dismissed banner of the previous one says nothing of this one. */
  reset(): void {
    this.dismissed = false;
    clear(this.el);
  }

  private render(info: TrustInfo): void {
    if (info.state === "trusted" || this.dismissed) {
      clear(this.el);
      return;
    }
    const restricted = info.state === "restricted";
    const headline = restricted
      ? "This project came from elsewhere. Nothing it defines runs until you trust it: no agent " +
        "starts or resumes, and request files wait."
      : "profiles.json changed since you trusted this project. Its own profiles are ignored " +
        "(the built-in ones still work) until you trust it again.";
    const runs = info.would_run.map((row) =>
      h(
        "li",
        {},
        h("span.trust-profile", {}, `${row.profile}${row.overrides_builtin ? " (replaces the built-in)" : ""}: `),
        h("code", {}, row.command.join(" ")),
      ),
    );
    const hooks = info.git_hooks?.names.length
      ? h(
          "div.trust-hooks",
          {},
          `At a merge, git would run this repository's hooks (from ${info.git_hooks.dir}):`,
          h("ul", {}, ...info.git_hooks.names.map((name) => h("li", {}, h("code", {}, name)))),
        )
      : null;
    const resume = info.resume.length
      ? h("div.trust-resume", {}, `Agents it would resume: ${info.resume.join(", ")}`)
      : null;
    const trust = h("button.btn.primary", { onclick: () => void this.trust(trust) }, restricted ? "Trust" : "Trust again");
    clear(
      this.el,
      h(
        "div.banner.trust",
        { role: "alert", dataset: { state: info.state } },
        h("div.trust-text", {}, headline),
        runs.length
          ? h("div.trust-runs", {}, "It would run:", h("ul", {}, ...runs))
          : h("div.trust-runs", {}, "It defines no profile of its own."),
        ...(hooks ? [hooks] : []),
        ...(resume ? [resume] : []),
        h(
          "div.trust-actions",
          {},
          trust,
          h("button.btn", { onclick: () => this.dismiss() }, restricted ? "Stay restricted" : "Keep ignoring"),
        ),
      ),
    );
  }

  private async trust(button: HTMLButtonElement): Promise<void> {
    button.disabled = true;
    try {
      this.render(await api.call("trust.grant"));
    } catch (err) {
      button.disabled = false;
      showError(err, "Trusting the project");
    }
  }

  private dismiss(): void {
    this.dismissed = true;
    clear(this.el);
  }
}
