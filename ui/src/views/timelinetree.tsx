// The delegation timeline's tree: a chain, its root ask with the asks made while serving it
// nested under the one that made them (indented up to MAX_INDENT), and the user's runs of chat
// messages to one agent folded into one line.

import { MAX_INDENT } from "../model/chains";
import type { ChainItem, ChatGroup, Hop } from "../model/timeline";
import { usageDetail, usageText } from "../model/usage";
import { classes } from "./reactive";
import { ChatButton, HopRow, span, toggled, type TimelineProps } from "./timelinerow";

export function Chain(props: TimelineProps & { item: ChainItem }) {
  const { item } = props;
  const nested = item.asks > 1 || item.root.placeholder;
  const facts = [
    `${item.asks} ask${item.asks === 1 ? "" : "s"}`,
    item.depth !== null ? `depth ${item.depth}` : null,
    item.usage ? usageText(item.usage) : null,
    item.failed ? `${item.failed} failed` : null,
    item.running ? `${item.running} running` : null,
    item.queued ? `${item.queued} queued` : null,
  ].filter(Boolean);
  return (
    <div
      class="tl-chain"
      data-chain={item.chainId ?? undefined}
      data-running={String(item.running)}
    >
      <Node {...props} hop={item.root} level={0} />
      {nested && props.state.chain === null ? (
        <div class="tl-chain-totals muted" title={usageDetail(item.usage)}>
          {`Chain: ${facts.join(" · ")}`}
        </div>
      ) : null}
    </div>
  );
}

function Node(props: TimelineProps & { hop: Hop; level: number }) {
  const { hop, level } = props;
  return (
    <div class="tl-node" data-depth={hop.depth !== null ? String(hop.depth) : undefined}>
      <HopRow {...props} hop={hop} isRoot={level === 0} />
      {hop.children.length ? (
        <div class={classes("tl-children", level + 1 >= MAX_INDENT && "capped")}>
          {hop.children.map((c) => (
            <Node key={c.key} {...props} hop={c} level={level + 1} />
          ))}
        </div>
      ) : null}
    </div>
  );
}

/** A user's run of chat messages to one agent: one line, its messages under it. */
export function Chats(props: TimelineProps & { group: ChatGroup }) {
  const { group } = props;
  const oldest = group.hops[group.hops.length - 1];
  const key = `chats:${oldest.key}`;
  return (
    <details
      class="tl-chats"
      open={props.open.has(key)}
      onToggle={toggled(props.open, key)}
      data-target={group.target}
      data-count={String(group.hops.length)}
    >
      <summary>
        <div class="deleg-main">
          <span class="badge source ui">chat</span>
          <span class="tl-chats-who">{`you → ${group.target}`}</span>
          <span class="muted tl-chats-count">{`${group.hops.length} messages`}</span>
          <span class="spacer" />
          {group.failed ? (
            <span class="pill outcome fail">{`${group.failed} failed`}</span>
          ) : (
            <span class="pill outcome ok">ok</span>
          )}
        </div>
        <div class="deleg-sub">
          <span class="muted">{span(group.startedAt, group.endedAt, Date.now())}</span>
          <span class="spacer" />
          {group.usage ? (
            <span class="deleg-usage muted" title={usageDetail(group.usage)}>
              {usageText(group.usage)}
            </span>
          ) : null}
        </div>
        <div class="deleg-times">
          <span class="muted">chat messages</span>
          <span class="spacer" />
          <ChatButton agent={group.target} />
        </div>
      </summary>
      <div class="tl-children">
        {group.hops.map((hop) => (
          <HopRow key={hop.key} {...props} hop={hop} isRoot inGroup />
        ))}
      </div>
    </details>
  );
}
