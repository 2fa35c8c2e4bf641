/**
 * What the agent loop's parts share: the agent's options, its budget, its
 * history, its local inbox, the signal that stops it, and how it reports
 * (events and log lines). The loop (inbox-loop.ts), a turn (turn.ts), the
 * relevance check (relevance-filter.ts) and linking to the hub
 * (hub-linking.ts) each take these instead of reaching into one another.
 */

import type { ModelMessage, ToolSet } from 'ai';
import type { ChatFeed } from '../middleware/chat-feed.js';
import type { HubLink } from '../middleware/hub-link.js';
import type { AgentEvent, StopReason } from './agent-events.js';
import type { AgentOptions } from './agent-options.js';
import type { Budget } from './budget.js';
import type { SubagentResult } from './subagent-result.js';
import type { TurnHistory } from './turn-history.js';

/** Why the loop ends, in a sentence. */
export interface Stop {
  reason: StopReason;
  message: string;
}

/** How a turn ended: normally, at a limit, or with a failed model call. */
export interface TurnOutcome {
  stop?: Stop;
  failed?: Error;
}

/** What the loop works with over one link to the hub (made again when the hub comes back). */
export interface Session {
  link: HubLink;
  feed: ChatFeed;
  tools: ToolSet;
  system: string;
}

/** One agent's loop parts, made once by the agent and handed to each part of the loop. */
export interface LoopParts {
  readonly options: AgentOptions;
  readonly budget: Budget;
  /** The loop's own history: what each turn was given and what the model did. */
  readonly history: TurnHistory;
  /** The local inbox: finished subagents' results, High priority. */
  readonly results: SubagentResult[];
  /** Stops everything: waits, pauses and model calls in flight. */
  readonly stopping: AbortSignal;
  /** The messages of the model call under way (what a fork made during it copies). */
  context: readonly ModelMessage[] | undefined;
  /** Tells `onEvent`; a listener that throws is said in the log, never breaks the loop. */
  emit(event: AgentEvent): void;
  log(line: string): void;
}
