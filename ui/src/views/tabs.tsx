// The tab bar: switch, add, close, rename (double-click a title, or F2). A tablist with a roving
// tabindex: Tab reaches the active tab, ←/→/Home/End move between tabs, Enter or Space shows one,
// Delete closes it; Ctrl+PageUp/PageDown switch from anywhere (model/keys.ts). Rendered by Preact
// from the store's layouts each time main.ts calls `render`, except while a title is typed.

import { render } from "preact";

import type { LayoutOp } from "../model/api.gen";
import { store } from "../model/state";
import type { Layouts, Tab } from "../model/types";
import { showError } from "./banner";
import { classes } from "./reactive";

export class TabBar {
  readonly el = document.createElement("nav");
  /** The tab whose title is typed, and its title then. */
  private editing: { tabId: string; title: string } | null = null;
  /** The tab that has the roving tabindex (the one last reached by the keyboard). */
  private current = "";

  constructor() {
    this.el.className = "tabbar";
    this.el.setAttribute("aria-label", "Tabs");
  }

  render(): void {
    if (this.editing) return; // a re-render would drop the title being typed
    this.draw();
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

  async activate(tabId: string): Promise<void> {
    this.current = tabId;
    if (store.layouts?.active_tab !== tabId)
      await this.apply({ op: "set_active_tab", tab_id: tabId });
  }

  async close(tabId: string): Promise<void> {
    await this.apply({ op: "close_tab", tab_id: tabId });
  }

  onKey(e: KeyboardEvent): void {
    const tabs = store.layouts?.tabs ?? [];
    const target = (e.target as HTMLElement).closest<HTMLElement>(".tab");
    if (!target || e.target !== target || !tabs.length || e.altKey || e.ctrlKey || e.metaKey)
      return;
    const i = tabs.findIndex((t) => t.id === target.dataset.tab);
    const go = (j: number) => {
      this.current = tabs[(j + tabs.length) % tabs.length].id;
      this.draw(); // which moves the tab stop and the focus there
    };
    if (e.key === "ArrowRight") go(i + 1);
    else if (e.key === "ArrowLeft") go(i - 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(tabs.length - 1);
    else if (e.key === "Enter" || e.key === " ") void this.activate(tabs[i].id);
    else if (e.key === "Delete" && tabs.length > 1) void this.close(tabs[i].id);
    else if (e.key === "F2") this.rename(tabs[i]);
    else return;
    e.preventDefault();
  }

  /** Edit the title in place: Enter or leaving the field saves, Escape cancels. */
  rename(tab: Tab): void {
    this.editing = { tabId: tab.id, title: tab.title };
    this.draw();
    const input = this.el.querySelector<HTMLInputElement>("input.tab-rename");
    input?.focus();
    input?.select();
  }

  /** The title typed in tab `tabId`: saved (when it changed) or dropped. */
  renamed(tabId: string, typed: string, save: boolean): void {
    const editing = this.editing;
    if (editing?.tabId !== tabId) return; // done already (Enter, then the field's blur)
    this.editing = null;
    const title = typed.trim();
    if (save && title && title !== editing.title)
      void this.apply({ op: "rename_tab", tab_id: tabId, title });
    else this.render();
  }

  isEditing(tabId: string): boolean {
    return this.editing?.tabId === tabId;
  }

  isTabStop(tabId: string): boolean {
    return this.current === tabId;
  }

  private draw(): void {
    const layouts = store.layouts;
    if (!layouts) return render(null, this.el);
    const hadFocus = this.el.querySelector(".tablist")?.contains(document.activeElement) ?? false;
    if (!layouts.tabs.some((t) => t.id === this.current) || !hadFocus)
      this.current = layouts.active_tab;
    render(<Tabs bar={this} layouts={layouts} />, this.el);
    if (hadFocus) this.tabEl(this.current)?.focus();
  }

  private tabEl(tabId: string): HTMLElement | null {
    return this.el.querySelector<HTMLElement>(`.tab[data-tab="${CSS.escape(tabId)}"]`);
  }

  private async apply(params: LayoutOp): Promise<void> {
    try {
      await store.applyLayout(params);
    } catch (e) {
      showError(e);
    }
  }
}

function Tabs({ bar, layouts }: { bar: TabBar; layouts: Layouts }) {
  const closable = layouts.tabs.length > 1;
  return (
    <>
      <div class="tablist" role="tablist" aria-label="Tabs" onKeyDown={(e) => bar.onKey(e)}>
        {layouts.tabs.map((tab) => (
          <TabView
            key={tab.id}
            bar={bar}
            tab={tab}
            active={tab.id === layouts.active_tab}
            closable={closable}
          />
        ))}
      </div>
      <button
        class="tab-add"
        title="New tab (Alt+Shift+T)"
        aria-label="New tab"
        onClick={() => void bar.add()}
      >
        +
      </button>
    </>
  );
}

type TabProps = { bar: TabBar; tab: Tab; active: boolean; closable: boolean };

function TabView({ bar, tab, active, closable }: TabProps) {
  return (
    <div
      class={classes("tab", active && "active")}
      role="tab"
      id={`tab-${tab.id}`}
      aria-selected={active ? "true" : "false"}
      aria-controls="workspace"
      tabIndex={bar.isTabStop(tab.id) ? 0 : -1}
      data-tab={tab.id}
      onClick={() => void bar.activate(tab.id)}
    >
      {bar.isEditing(tab.id) ? (
        <TitleInput bar={bar} tab={tab} />
      ) : (
        <span
          class="tab-title"
          title="Double-click to rename (F2)"
          onDblClick={(e) => {
            e.stopPropagation();
            bar.rename(tab);
          }}
        >
          {tab.title}
        </span>
      )}
      {closable ? (
        <button
          class="tab-close"
          title="Close tab"
          aria-label={`Close tab ${tab.title}`}
          tabIndex={-1} // Delete on the tab does it from the keyboard
          onClick={(e) => {
            e.stopPropagation();
            void bar.close(tab.id);
          }}
        >
          ✕
        </button>
      ) : null}
    </div>
  );
}

function TitleInput({ bar, tab }: { bar: TabBar; tab: Tab }) {
  const done = (e: Event, save: boolean) =>
    bar.renamed(tab.id, (e.currentTarget as HTMLInputElement).value, save);
  return (
    <input
      class="tab-rename"
      value={tab.title}
      maxLength={60}
      aria-label="Tab name"
      onKeyDown={(e) => {
        e.stopPropagation();
        if (e.key === "Enter") done(e, true);
        else if (e.key === "Escape") done(e, false);
      }}
      onBlur={(e) => done(e, true)}
      onClick={(e) => e.stopPropagation()}
    />
  );
}
