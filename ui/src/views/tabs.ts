// The tab bar: switch, add, close, rename (double-click a title, or F2). A tablist with a roving
// tabindex: Tab reaches the active tab, ←/→/Home/End move between tabs, Enter or Space shows one,
// Delete closes it; Ctrl+PageUp/PageDown switch from anywhere (model/keys.ts).

import { store } from "../model/state";
import { showError } from "./banner";
import { clear, h } from "./dom";

export class TabBar {
  readonly el = h("nav.tabbar", { "aria-label": "Tabs" });
  private list = h("div.tablist", { role: "tablist", "aria-label": "Tabs" });
  private editing = false;
  /** The tab that has the roving tabindex (the one last reached by the keyboard). */
  private current = "";

  constructor() {
    this.list.addEventListener("keydown", (e) => this.onKey(e));
  }

  render(): void {
    if (this.editing) return; // a re-render would drop the title being typed
    const layouts = store.layouts;
    if (!layouts) return clear(this.el);
    const hadFocus = this.list.contains(document.activeElement);
    const closable = layouts.tabs.length > 1;
    if (!layouts.tabs.some((t) => t.id === this.current) || !hadFocus)
      this.current = layouts.active_tab;
    clear(
      this.list,
      ...layouts.tabs.map((tab) => {
        const active = tab.id === layouts.active_tab;
        return h(
          "div.tab",
          {
            role: "tab",
            id: `tab-${tab.id}`,
            "aria-selected": String(active),
            "aria-controls": "workspace",
            tabIndex: tab.id === this.current ? 0 : -1,
            class: active ? "active" : "",
            dataset: { tab: tab.id },
            onclick: () => void this.activate(tab.id),
          },
          h(
            "span.tab-title",
            {
              title: "Double-click to rename (F2)",
              ondblclick: (e: Event) => {
                e.stopPropagation();
                this.rename(e.currentTarget as HTMLElement, tab.id, tab.title);
              },
            },
            tab.title,
          ),
          closable
            ? h(
                "button.tab-close",
                {
                  title: "Close tab",
                  "aria-label": `Close tab ${tab.title}`,
                  tabIndex: -1, // Delete on the tab does it from the keyboard
                  onclick: (e: Event) => {
                    e.stopPropagation();
                    void this.apply({ op: "close_tab", tab_id: tab.id });
                  },
                },
                "✕",
              )
            : null,
        );
      }),
    );
    clear(
      this.el,
      this.list,
      h(
        "button.tab-add",
        {
          title: "New tab (Alt+Shift+T)",
          "aria-label": "New tab",
          onclick: () => void this.add(),
        },
        "+",
      ),
    );
    if (hadFocus) this.tabEl(this.current)?.focus();
  }

  /** Show the next (1) or previous (-1) tab, wrapping (Ctrl+PageDown / Ctrl+PageUp). */
  async step(delta: 1 | -1): Promise<void> {
    const layouts = store.layouts;
    if (!layouts || layouts.tabs.length < 2) return;
    const i = layouts.tabs.findIndex((t) => t.id === layouts.active_tab);
    const next = layouts.tabs[(i + delta + layouts.tabs.length) % layouts.tabs.length];
    await this.activate(next.id);
  }

  async add(): Promise<void> {
    await this.apply({ op: "add_tab", title: `Tab ${(store.layouts?.tabs.length ?? 0) + 1}` });
  }

  private async activate(tabId: string): Promise<void> {
    this.current = tabId;
    if (store.layouts?.active_tab !== tabId)
      await this.apply({ op: "set_active_tab", tab_id: tabId });
  }

  private tabEl(tabId: string): HTMLElement | null {
    return this.list.querySelector<HTMLElement>(`[data-tab="${CSS.escape(tabId)}"]`);
  }

  private onKey(e: KeyboardEvent): void {
    const tabs = store.layouts?.tabs ?? [];
    const target = (e.target as HTMLElement).closest<HTMLElement>(".tab");
    if (!target || e.target !== target || !tabs.length || e.altKey || e.ctrlKey || e.metaKey)
      return;
    const i = tabs.findIndex((t) => t.id === target.dataset.tab);
    const go = (j: number) => {
      this.current = tabs[(j + tabs.length) % tabs.length].id;
      for (const el of this.list.querySelectorAll<HTMLElement>(".tab")) {
        el.tabIndex = el.dataset.tab === this.current ? 0 : -1;
      }
      this.tabEl(this.current)?.focus();
    };
    if (e.key === "ArrowRight") go(i + 1);
    else if (e.key === "ArrowLeft") go(i - 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(tabs.length - 1);
    else if (e.key === "Enter" || e.key === " ") void this.activate(tabs[i].id);
    else if (e.key === "Delete" && tabs.length > 1)
      void this.apply({ op: "close_tab", tab_id: tabs[i].id });
    else if (e.key === "F2") {
      const title = target.querySelector<HTMLElement>(".tab-title");
      if (title) this.rename(title, tabs[i].id, tabs[i].title);
    } else return;
    e.preventDefault();
  }

  /** Edit the title in place: Enter or leaving the field saves, Escape cancels. */
  private rename(label: HTMLElement, tabId: string, current: string): void {
    const input = h("input.tab-rename", {
      value: current,
      maxLength: 60,
      "aria-label": "Tab name",
    });
    let done = false;
    this.editing = true;
    const finish = (save: boolean) => {
      if (done) return;
      done = true;
      this.editing = false;
      const title = input.value.trim();
      if (save && title && title !== current)
        void this.apply({ op: "rename_tab", tab_id: tabId, title });
      else this.render();
    };
    input.addEventListener("keydown", (ev) => {
      ev.stopPropagation();
      if (ev.key === "Enter") finish(true);
      else if (ev.key === "Escape") finish(false);
    });
    input.addEventListener("blur", () => finish(true));
    input.addEventListener("click", (ev) => ev.stopPropagation());
    label.replaceWith(input);
    input.focus();
    input.select();
  }

  private async apply(params: object): Promise<void> {
    try {
      await store.applyLayout(params);
    } catch (e) {
      showError(e);
    }
  }
}
