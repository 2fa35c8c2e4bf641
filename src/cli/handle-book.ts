import type { ParleyEvent } from '../schema/event.js';
import { participantIdsIn, type HandleOf } from '../format/event-text.js';

/**
 * Handles of the session's participants, for the CLI's sentences: events name
 * participants by id ("muted p_3f…"), people read handles ("muted @bob").
 * The list is asked of the hub only when an event names someone not yet known.
 */
export class HandleBook {
  readonly #handles = new Map<string, string>();
  readonly #list: () => Promise<Array<{ id: string; handle: string }>>;

  constructor(list: () => Promise<Array<{ id: string; handle: string }>>) {
    this.#list = list;
  }

  /** Learns the handles the given events need (one request at most). */
  async learn(events: ParleyEvent[]): Promise<void> {
    if (!events.some((event) => participantIdsIn(event).some((id) => !this.#handles.has(id)))) return;
    for (const { id, handle } of await this.#list()) this.#handles.set(id, handle);
  }

  readonly handleOf: HandleOf = (id) => this.#handles.get(id) ?? id;
}
