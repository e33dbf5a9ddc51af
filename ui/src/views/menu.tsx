// A small popup menu (the cell header's "⋯", a terminal's context menu in the window): role=menu,
// arrow keys between items, Escape or Tab closes it and gives the focus back to where it was.
// One menu is open at a time; Preact renders it into a host added to the page while it is open.

import { render } from "preact";

import { rootElement } from "./reactive";

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
  const host = rootElement("menu-host");
  const anchor = at instanceof HTMLElement ? at : null;
  anchor?.setAttribute("aria-expanded", "true");
  const outside = (e: Event) => {
    if (!host.contains(e.target as Node) && e.target !== anchor) close(false);
  };

  function close(refocus: boolean): void {
    if (current?.close !== close) return;
    current = null;
    document.removeEventListener("pointerdown", outside, true);
    window.removeEventListener("blur", onBlur);
    anchor?.setAttribute("aria-expanded", "false");
    render(null, host);
    host.remove();
    if (refocus && returnTo?.isConnected) returnTo.focus();
  }
  const onBlur = () => close(false);
  current = { close };

  document.body.append(host);
  render(<Menu items={items} label={label} close={close} />, host);
  // Placed after it is in the page (its size is known), kept inside the window.
  const menu = host.firstElementChild as HTMLElement;
  const box = anchor ? anchor.getBoundingClientRect() : null;
  const x = box ? box.right - menu.offsetWidth : (at as { x: number }).x;
  const y = box ? box.bottom + 2 : (at as { y: number }).y;
  menu.style.left = `${Math.max(4, Math.min(x, innerWidth - menu.offsetWidth - 4))}px`;
  menu.style.top = `${Math.max(4, Math.min(y, innerHeight - menu.offsetHeight - 4))}px`;
  document.addEventListener("pointerdown", outside, true);
  window.addEventListener("blur", onBlur);
  enabledItems(menu)[0]?.focus();
}

function enabledItems(menu: HTMLElement): HTMLButtonElement[] {
  return [...menu.querySelectorAll<HTMLButtonElement>(".menu-item:not(:disabled)")];
}

type MenuProps = { items: readonly MenuItem[]; label: string; close: (refocus: boolean) => void };

function Menu({ items, label, close }: MenuProps) {
  const onKeyDown = (e: KeyboardEvent) => {
    const list = enabledItems(e.currentTarget as HTMLElement);
    const move = (delta: number) => {
      if (!list.length) return;
      const i = list.indexOf(document.activeElement as HTMLButtonElement);
      list[(i + delta + list.length) % list.length].focus();
    };
    if (e.key === "ArrowDown") move(1);
    else if (e.key === "ArrowUp") move(-1);
    else if (e.key === "Home") list[0]?.focus();
    else if (e.key === "End") list.at(-1)?.focus();
    else if (e.key === "Escape") close(true);
    else if (e.key === "Tab") close(true);
    else return;
    e.preventDefault();
    e.stopPropagation();
  };
  return (
    <div class="menu" role="menu" aria-label={label} onKeyDown={onKeyDown}>
      {items.map((item, i) => (
        <button
          key={i}
          class="menu-item"
          role="menuitem"
          tabIndex={-1}
          disabled={item.disabled}
          data-item={item.id}
          onClick={() => {
            close(true);
            item.run();
          }}
        >
          <span class="menu-label">{item.label}</span>
          {item.keys ? <kbd class="menu-keys">{item.keys}</kbd> : null}
        </button>
      ))}
    </div>
  );
}
