import type { Caller } from './records.js';
import type { HubContext } from './context.js';
import { Ending, type Held } from './held.js';

/** An MCP session served in another process (`parley mcp` over stdio), as the hub holds it. */
export interface Connection {
  /** Resolves when it ends: closed, or the hub shutting down. */
  ended: Promise<void>;
  close(): void;
}

/** Opens a connection of the caller that lasts until closed or the hub's shutdown (the gate holds the caller present meanwhile). */
export function openConnection(ctx: Pick<HubContext, 'bus'>, caller: Caller): Held<Connection> {
  const ending = new Ending();
  const ended = new Promise<void>((resolve) => ending.onEnd(resolve));
  // Listening only to hear the hub shut down; the traffic itself is not wanted.
  const unlisten = ctx.bus.listen(caller.session.id, () => undefined, ending.end);
  ending.onEnd(unlisten);
  return { value: { ended, close: ending.end }, ending };
}
