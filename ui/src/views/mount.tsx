// An element built outside Preact (a view object's `el`: the tab bar, the side panel...) placed
// in a Preact tree. Its wrapper takes no box of its own (display: contents), so the page lays
// out, and CSS matches, as if the element stood in the wrapper's place.

import { useLayoutEffect, useRef } from "preact/hooks";

const CONTENTS = { display: "contents" };

export function Mount({ el }: { el: HTMLElement }) {
  const host = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    host.current?.replaceChildren(el);
  }, [el]);
  return <div style={CONTENTS} ref={host} />;
}
