// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { ApiFailure } from "../model/api";
import { store } from "../model/state";
import { AgentEditor } from "./agents";
import { fakeApi, settle, type FakeApi } from "./fakeapi";
import { agentRow, profile } from "./testdata";

let fake: FakeApi;
let editor: AgentEditor;

beforeEach(async () => {
  store.agents = [agentRow("lead"), agentRow("dev")];
  store.profiles = [profile("claude"), profile("shell", { structured: null, modes: ["terminal"] })];
  store.hosts = [];
  fake = fakeApi({
    "agents.list": () => store.agents,
    "agents.create": () => ({}),
    "policy.get": () => ({ policy: { max_depth: 3, ask_timeout_s: 300, queue_wait_s: 60 } }),
  });
  editor = new AgentEditor();
  document.body.replaceChildren(editor.el);
  await settle();
});

afterEach(() => fake.restore());

const $ = <T extends Element = HTMLElement>(sel: string) => editor.el.querySelector<T>(sel)!;
const button = (text: string) =>
  [...editor.el.querySelectorAll("button")].find((b) => b.textContent === text)!;
function type(sel: string, text: string): void {
  const input = $<HTMLInputElement>(sel);
  input.value = text;
  input.dispatchEvent(new Event("input", { bubbles: true }));
}

describe("the agent editor", { timeout: 5000 }, () => {
  it("lists the store's agents, and follows it when it changes", async () => {
    expect(
      [...editor.el.querySelectorAll(".agent-row")].map((r) => r.getAttribute("data-agent")),
    ).toEqual(["lead", "dev"]);
    store.agents = [...store.agents, agentRow("qa")];
    store.notify();
    await settle();
    expect($('.agent-row[data-agent="qa"]')).not.toBeNull();
  });

  it("creates an agent from the form and says so above the list", async () => {
    button("New agent").click();
    await settle();
    type('input[name="name"]', "  reviewer ");
    type('textarea[name="context"]', "Review diffs.");
    $<HTMLFormElement>("form.agent-form").requestSubmit();
    await settle();
    const [params] = fake.paramsOf("agents.create");
    expect(params).toMatchObject({
      name: "reviewer",
      profile: "claude",
      context: "Review diffs.",
      asks_from: ["*"],
    });
    expect($("form.agent-form")).toBeNull();
    expect($(".agents-notice").textContent).toContain("Created reviewer");
  });

  it("says a refused name under its field, until the name is edited", async () => {
    fake.answer("agents.create", () => {
      throw new ApiFailure({
        code: "INVALID",
        message: "agent name must be a slug",
        field: "name",
      });
    });
    button("New agent").click();
    await settle();
    type('input[name="name"]', "Bad Name");
    type('textarea[name="context"]', "kept");
    $<HTMLFormElement>("form.agent-form").requestSubmit();
    await settle();
    const error = $('.field-error[data-field="name"]');
    expect(error.hidden).toBe(false);
    expect(error.textContent).toBe("agent name must be a slug");
    expect($('input[name="name"]').classList.contains("invalid")).toBe(true);
    expect($<HTMLTextAreaElement>('textarea[name="context"]').value).toBe("kept");
    type('input[name="name"]', "good");
    await settle();
    expect($('.field-error[data-field="name"]').hidden).toBe(true);
  });

  it("keeps what was typed while the store changes under the open form", async () => {
    button("New agent").click();
    await settle();
    type('input[name="name"]', "half-typ");
    store.agents = [...store.agents, agentRow("qa")];
    store.notify();
    await settle();
    expect($<HTMLInputElement>('input[name="name"]').value).toBe("half-typ");
    expect($('.asks-from-agents label[data-agent="qa"]')).not.toBeNull();
  });

  it("asks only the checked agents when 'only these' is picked", async () => {
    button("New agent").click();
    await settle();
    type('input[name="name"]', "x");
    $<HTMLInputElement>('input[name="asks-from"][value="only"]').click();
    await settle();
    const dev = $<HTMLInputElement>('input[name="asks-from-agent"][value="dev"]');
    expect(dev.disabled).toBe(false);
    dev.click();
    await settle();
    $<HTMLFormElement>("form.agent-form").requestSubmit();
    await settle();
    expect(fake.paramsOf("agents.create")[0].asks_from).toEqual(["dev"]);
  });

  it("on a save refused for a change on disk, shows both versions and overwrites", async () => {
    fake.answer("agents.get", () => ({ ...agentRow("dev"), context: "old", version: "v1" }));
    let saves = 0;
    fake.answer("agents.update", () => {
      if (saves++ === 0) {
        throw new ApiFailure({
          code: "CONFLICT",
          message: "changed on disk",
          path: "/p/.ideai/agents/dev.md",
          version_on_disk: "v2",
          content_on_disk: "theirs",
          yours: "mine",
        });
      }
      return {};
    });
    $('.agent-row[data-agent="dev"]')
      .querySelector<HTMLButtonElement>("button:nth-of-type(1)")!
      .click();
    await settle();
    expect($("form.agent-form").dataset.editing).toBe("dev");
    $<HTMLFormElement>("form.agent-form").requestSubmit();
    await settle();
    expect($(".agent-conflict").hidden).toBe(false);
    expect($(".conflict-version.on-disk .conflict-text").textContent).toBe("theirs");
    $<HTMLButtonElement>("button.conflict-overwrite").click();
    await settle();
    const updates = fake.paramsOf("agents.update");
    expect(updates.map((u) => u.version)).toEqual(["v1", "v2"]);
    expect($(".agents-notice").textContent).toContain("Saved dev");
  });
});

describe("the agent form's choices", { timeout: 5000 }, () => {
  it("offers the profile's permission modes as options with their value", async () => {
    store.profiles = [{ ...profile("claude"), permission_modes: ["plan", "acceptEdits"] } as never];
    button("New agent").click();
    await settle();
    const options = editor.el.querySelectorAll('select[name="permission_mode"] option[value]');
    expect([...options].map((o) => o.getAttribute("value"))).toEqual(["", "plan", "acceptEdits"]);
    expect($('select[name="mode"]').hasAttribute("disabled")).toBe(false);
  });
});

describe("the delegation policy form", { timeout: 5000 }, () => {
  it("fills from policy.get, keeps typing across a reload, and saves numbers", async () => {
    await editor.policy.load();
    await settle();
    const depth = () => $<HTMLInputElement>('input[name="max_depth"]');
    expect(depth().value).toBe("3");
    expect($(".policy-summary").textContent).toContain("depth 3");
    type('input[name="max_depth"]', "5");
    await editor.policy.load(); // a refresh of the panel: the typing stays
    await settle();
    expect(depth().value).toBe("5");
    fake.answer("policy.set", (p) => ({ policy: p.policy }));
    $<HTMLButtonElement>("button.policy-save").click();
    await settle();
    expect((fake.paramsOf("policy.set")[0].policy as Record<string, unknown>).max_depth).toBe(5);
    expect($(".policy-saved").textContent).toBe("Saved.");
  });

  it("says a box that is not a number next to it, and opens", async () => {
    await editor.policy.load();
    await settle();
    type('input[name="ask_timeout_s"]', "soon");
    $<HTMLButtonElement>("button.policy-save").click();
    await settle();
    const error = $('.policy-error[data-field="ask_timeout_s"]');
    expect(error.hidden).toBe(false);
    expect(error.textContent).toContain("not a number");
    expect($<HTMLDetailsElement>("details.policy").open).toBe(true);
    expect(fake.paramsOf("policy.set")).toHaveLength(0);
  });
});
