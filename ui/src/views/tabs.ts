// The tab bar: switch, add, close, rename (double-click a title).

import { store } from "../model/state";
import { showError } from "./banner";
import { clear, h } from "./dom";

export class TabBar {
  readonly el = h("nav.tabbar");

  private editing = false;

  render(): void {
    if (this.editing) return; // a re-render would drop the title being typed
    const layouts = store.layouts;
    if (!layouts) return clear(this.el);
    const closable = layouts.tabs.length > 1;
    clear(
      this.el,
      ...layouts.tabs.map((tab) =>
        h(
          "div.tab",
          {
            class: tab.id === layouts.active_tab ? "active" : "",
            dataset: { tab: tab.id },
            onclick: () => void this.apply({ op: "set_active_tab", tab_id: tab.id }),
          },
          h(
            "span.tab-title",
            { title: "Double-click to rename", ondblclick: (e: Event) => this.rename(e, tab.id, tab.title) },
            tab.title,
          ),
          closable
            ? h(
                "button.tab-close",
                {
                  title: "Close tab",
                  onclick: (e: Event) => {
                    e.stopPropagation();
                    void this.apply({ op: "close_tab", tab_id: tab.id });
                  },
                },
                "✕",
              )
            : null,
        ),
      ),
      h(
        "button.tab-add",
        {
          title: "New tab",
          onclick: () => void this.apply({ op: "add_tab", title: `Tab ${layouts.tabs.length + 1}` }),
        },
        "+",
      ),
    );
  }

  /** Edit the title in place: Enter or leaving the field saves, Escape cancels. */
  private rename(e: Event, tabId: string, current: string): void {
    e.stopPropagation();
    const label = e.currentTarget as HTMLElement;
    const input = h("input.tab-rename", { value: current, maxLength: 60, "aria-label": "Tab name" });
    let done = false;
    this.editing = true;
    const finish = (save: boolean) => {
      if (done) return;
      done = true;
      this.editing = false;
      const title = input.value.trim();
      if (save && title && title !== current) void this.apply({ op: "rename_tab", tab_id: tabId, title });
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
