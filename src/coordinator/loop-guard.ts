/**
 * The loop guard: no agent-to-agent ping-pong beyond `coordinator.maxDepth`.
 * A human's message is depth 0; an answer the coordinator posts for a trigger
 * at depth d carries depth d+1, as a visible tag ("parley:depth=1") that
 * survives restarts and reads the same in process and over REST. A trigger at
 * maxDepth or deeper is refused. Agents with sessions of their own (hooks,
 * MCP) post without the tag, so the thread is read too: a trigger is at least
 * as deep as the agents' turns, alternating, that lead to it (see threadDepth).
 * What makes a loop is agents answering each other, not one agent saying two
 * things in a row.
 */

import { COORDINATOR_DEPTH_TAG_PREFIX } from '../config/defaults.js';
import type { ParleyEvent } from '../schema/event.js';
import type { ParticipantKind } from '../schema/participant.js';
import { isCoordinatorNotice } from './notice-tag.js';
import type { Trigger } from './triggers.js';

export function depthTag(depth: number): string {
  return `${COORDINATOR_DEPTH_TAG_PREFIX}${depth}`;
}

/** The depth an answer carries, from its tag; undefined for an event the coordinator did not post. */
export function taggedDepth(event: ParleyEvent): number | undefined {
  for (const tag of event.meta?.tags ?? []) {
    if (!tag.startsWith(COORDINATOR_DEPTH_TAG_PREFIX)) continue;
    const depth = Number(tag.slice(COORDINATOR_DEPTH_TAG_PREFIX.length));
    if (Number.isInteger(depth) && depth >= 0) return depth;
  }
  return undefined;
}

/**
 * The depth of a trigger. Untagged, it is 0 — unless its author is an agent
 * the coordinator ran, which may have posted through its own tools (an adapter
 * with Parley's MCP) instead of its stdout: then it counts one deeper than the
 * run that gave it the turn, so a loop through tools is bounded too.
 */
export function triggerDepth(event: ParleyEvent, lastRunDepthOfAuthor: number | undefined): number {
  const tagged = taggedDepth(event);
  if (tagged !== undefined) return tagged;
  return lastRunDepthOfAuthor === undefined ? 0 : lastRunDepthOfAuthor + 1;
}

/**
 * How many turns of agents, alternating, since the last human's event, end
 * with `trigger` in `history` (the thread up to and including it, oldest
 * first): a human's message is 0, an agent's answer to it 1, another agent's
 * answer to that 2 — whether or not the coordinator posted them. A turn is
 * what one agent posts in a row: context and then a question ("Context: the
 * PR touches 3 files.", then "@coder-2 could you review it?") are one turn.
 * Events by `ignore` (the coordinator's own), refusal notices, and events that
 * are neither messages, requests nor responses (controls, say) neither count
 * nor break the run, except that any human's event ends it: a human is
 * steering.
 */
export function threadDepth(history: readonly ParleyEvent[], trigger: ParleyEvent, kindOf: (handle: string) => ParticipantKind | undefined, ignore: string): number {
  const at = history.findIndex((e) => e.id === trigger.id);
  if (at < 0) return 0;
  let turns = 0;
  let turnOf: string | undefined;
  for (let i = at; i >= 0; i--) {
    const event = history[i]!;
    if (event.from === ignore || isCoordinatorNotice(event)) continue;
    if (kindOf(event.author) === 'human') break;
    if (event.type !== 'message' && event.type !== 'request' && event.type !== 'response') continue;
    if (event.from !== turnOf) {
      turns++;
      turnOf = event.from;
    }
  }
  return turns;
}

/** The depth a run for `triggers` answers at: that of the deepest. */
export function deepest(triggers: readonly Trigger[]): number {
  return Math.max(...triggers.map((t) => t.depth));
}

export function stopsAt(depth: number, maxDepth: number): boolean {
  return depth >= maxDepth;
}
