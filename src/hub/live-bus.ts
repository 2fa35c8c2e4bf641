// In-process fan-out of what happens in the hub: committed events (with the
// participants they target), presence changes and meeting traffic. Listeners
// are grouped by session, so a publication only visits the listeners of its
// own session. Listeners must not throw; a throwing one is dropped.

import type { MeetingMessage } from '../meeting/ring.js';
import type { ParleyEvent } from '../schema/event.js';
import type { DeliveryReason } from './delivery-reason.js';
import type { CommittedEvent } from './event-draft.js';
import type { PresenceInfo } from './presence.js';

export type LiveItem =
  | { kind: 'event'; session: string; event: ParleyEvent; targets: ReadonlyMap<string, DeliveryReason> }
  | { kind: 'presence'; session: string; presence: PresenceInfo }
  | {
      kind: 'meeting';
      session: string;
      meeting: string;
      action: 'said' | 'joined' | 'left';
      participant: string;
      message?: MeetingMessage;
    };

export type LiveListener = (item: LiveItem) => void;

export class LiveBus {
  private readonly bySession = new Map<string, Set<LiveListener>>();
  private readonly onClose = new Map<LiveListener, () => void>();
  /** Listeners of everything published, whatever its session (what the peer links carry to linked hubs). */
  private readonly everySession = new Set<LiveListener>();
  private closed = false;

  /** `onClose` runs if the hub shuts down while the listener is registered (waits end, streams finish). */
  listen(session: string, listener: LiveListener, onClose?: () => void): () => void {
    if (this.closed) {
      onClose?.();
      return () => undefined;
    }
    if (onClose) this.onClose.set(listener, onClose);
    let set = this.bySession.get(session);
    if (!set) {
      set = new Set();
      this.bySession.set(session, set);
    }
    set.add(listener);
    return () => {
      const current = this.bySession.get(session);
      if (!current) return;
      current.delete(listener);
      this.onClose.delete(listener);
      if (current.size === 0) this.bySession.delete(session);
    };
  }

  /** Ends every wait and live stream: the hub is shutting down. */
  close(): void {
    this.closed = true;
    const callbacks = [...this.onClose.values()];
    this.onClose.clear();
    this.bySession.clear();
    this.everySession.clear();
    for (const callback of callbacks) {
      try {
        callback();
      } catch {
        // a failing observer must not stop the shutdown
      }
    }
  }

  publish(item: LiveItem): void {
    for (const listener of this.everySession) {
      try {
        listener(item);
      } catch {
        this.everySession.delete(listener);
      }
    }
    const set = this.bySession.get(item.session);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        listener(item);
      } catch {
        set.delete(listener);
      }
    }
  }

  publishEvent(committed: CommittedEvent): void {
    this.publish({ kind: 'event', session: committed.event.session, event: committed.event, targets: committed.targets });
  }

  /** Calls `listener` with everything published, in every session, until the returned stop or close. */
  listenEverySession(listener: LiveListener): () => void {
    if (this.closed) return () => undefined;
    this.everySession.add(listener);
    return () => this.everySession.delete(listener);
  }

  listenerCount(session?: string): number {
    if (session !== undefined) return this.bySession.get(session)?.size ?? 0;
    let n = 0;
    for (const set of this.bySession.values()) n += set.size;
    return n;
  }
}
