// What an operation hands the writer to append (writer.ts), and what the
// writer hands the live bus once it is committed.

import type { EventMeta, EventType, ParleyEvent } from '../schema/event.js';
import type { Reach } from './delivery-reason.js';
import type { ThreadRecord } from './records.js';

export interface EventDraft {
  thread: ThreadRecord;
  type: EventType;
  from: string;
  to: string;
  content: unknown;
  meta?: EventMeta;
  /** Who this event reaches, with why, as the message rules decided (fan-out on write of the High inbox items). */
  reach?: Reach;
  /**
   * An event its author signed elsewhere (src/hub/ingest.ts): its id, counters and signature are
   * kept as they are; it is shown with the hub's receipt time and meta, its signed ts and meta kept beside them.
   */
  sealed?: SignedElsewhere;
}

/** What an author who signed an event elsewhere fixed: everything it signed that the hub would otherwise choose. */
export interface SignedElsewhere {
  id: string;
  /** The author's ts, as signed (the event's ts is the hub's receipt time). */
  ts: number;
  /** The author's meta, as signed (the event's meta is the hub's). */
  meta: Record<string, unknown> | null;
  ttl_secs: number;
  sender_seq: number;
  sender_epoch: Buffer;
  sig: Buffer;
  /** The thread id it signed, when it is stored under another thread of this hub (taken from a linked hub). */
  thread?: string;
  /** The author's previous crossing event's sender_seq in the thread and epoch, as a linked hub said it (see history-gaps.ts). */
  prev?: number | null;
}

/** A committed event with who it reaches (the live bus carries both). */
export interface CommittedEvent {
  event: ParleyEvent;
  targets: Reach;
}
