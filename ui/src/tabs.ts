// The tab bar: switch, add, close.

import { showError } from "./banner";
import { clear, h } from "./dom";
import { store } from "./state";

export class TabBar {
  readonly el = h("nav.tabbar");

  render(): void {
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
          h("span.tab-title", {}, tab.title),
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

  private async apply(params: object): Promise<void> {
    try {
      await store.applyLayout(params);
    } catch (e) {
      showError(e);
    }
  }
}
