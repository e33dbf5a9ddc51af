// A small popup menu (the cell header's "⋯", a terminal's context menu in the window): role=menu,
// arrow keys between items, Escape or Tab closes it and gives the focus back to where it was.
// One menu is open at a time.

import { h } from "./dom";

export type MenuItem = {
  label: string;
  keys?: string;
  disabled?: boolean;
  /** A stable name for tests and styling (data-item). */
  id?: string;
  run: () => void;
};

let current: { close: (refocus: boolean) => void } | null = null;

/** Close the open menu, if any (without moving the focus). */
export function closeMenu(): void {
  current?.close(false);
}

/**
 * Open a menu at a point (a context menu) or under an element (its button, which gets
 * aria-expanded). The focus goes to the first enabled item; closing gives it back to `returnTo`.
 */
export function openMenu(
  at: { x: number; y: number } | HTMLElement,
  items: readonly MenuItem[],
  label: string,
  returnTo: HTMLElement | null = document.activeElement as HTMLElement | null,
): void {
  closeMenu();
  const buttons = items.map((item) =>
    h(
      "button.menu-item",
      {
        role: "menuitem",
        tabIndex: -1,
        disabled: item.disabled,
        dataset: item.id ? { item: item.id } : {},
        onclick: () => {
          close(true);
          item.run();
        },
      },
      h("span.menu-label", {}, item.label),
      item.keys ? h("kbd.menu-keys", {}, item.keys) : null,
    ),
  );
  const menu = h("div.menu", { role: "menu", "aria-label": label }, ...buttons);
  const anchor = at instanceof HTMLElement ? at : null;
  anchor?.setAttribute("aria-expanded", "true");

  const enabled = () => buttons.filter((b) => !b.disabled);
  const move = (delta: number) => {
    const list = enabled();
    if (!list.length) return;
    const i = list.indexOf(document.activeElement as HTMLButtonElement);
    list[(i + delta + list.length) % list.length].focus();
  };
  menu.addEventListener("keydown", (e) => {
    if (e.key === "ArrowDown") move(1);
    else if (e.key === "ArrowUp") move(-1);
    else if (e.key === "Home") enabled()[0]?.focus();
    else if (e.key === "End") enabled().at(-1)?.focus();
    else if (e.key === "Escape") close(true);
    else if (e.key === "Tab") close(true);
    else return;
    e.preventDefault();
    e.stopPropagation();
  });
  const outside = (e: Event) => {
    if (!menu.contains(e.target as Node) && e.target !== anchor) close(false);
  };

  function close(refocus: boolean): void {
    if (current?.close !== close) return;
    current = null;
    document.removeEventListener("pointerdown", outside, true);
    window.removeEventListener("blur", onBlur);
    anchor?.setAttribute("aria-expanded", "false");
    menu.remove();
    if (refocus && returnTo?.isConnected) returnTo.focus();
  }
  const onBlur = () => close(false);
  current = { close };

  document.body.append(menu);
  // Placed after it is in the page (its size is known), kept inside the window.
  const box = anchor ? anchor.getBoundingClientRect() : null;
  const x = box ? box.right - menu.offsetWidth : (at as { x: number }).x;
  const y = box ? box.bottom + 2 : (at as { y: number }).y;
  menu.style.left = `${Math.max(4, Math.min(x, innerWidth - menu.offsetWidth - 4))}px`;
  menu.style.top = `${Math.max(4, Math.min(y, innerHeight - menu.offsetHeight - 4))}px`;
  document.addEventListener("pointerdown", outside, true);
  window.addEventListener("blur", onBlur);
  enabled()[0]?.focus();
}
