import { describe, expect, it } from 'vitest';
import { Lifecycle } from '../../src/hub/lifecycle.js';
import { LiveBus } from '../../src/hub/live-bus.js';

describe('lifecycle', () => {
  it('lifecycle - drain waits for every operation in flight, including ones that fail', async () => {
    const lifecycle = new Lifecycle();
    const order: string[] = [];
    let finishA!: () => void;
    let failB!: (e: Error) => void;
    void lifecycle.track(new Promise<void>((resolve) => (finishA = resolve)).then(() => void order.push('a')));
    lifecycle.track(new Promise<void>((_r, reject) => (failB = reject))).catch(() => order.push('b'));
    expect(lifecycle.inflight).toBe(2);
    const drained = lifecycle.drain().then(() => order.push('drained'));
    finishA();
    failB(new Error('x'));
    await drained;
    expect(order).toEqual(['a', 'b', 'drained']);
    expect(lifecycle.inflight).toBe(0);
  });
});

describe('live bus', () => {
  it('live bus - publishes only to listeners of the same session; a throwing listener is dropped', () => {
    const bus = new LiveBus();
    const seen: string[] = [];
    bus.listen('s1', (item) => seen.push(`s1:${item.kind}`));
    bus.listen('s2', (item) => seen.push(`s2:${item.kind}`));
    bus.listen('s1', () => {
      throw new Error('bad listener');
    });
    const presence = { participant: 'p', handle: 'h', state: 'idle' as const, connection: 'connected' as const, seq: 1, lastSeen: '', details: { profile: { kind: 'agent' as const, roles: [] } } };
    bus.publish({ kind: 'presence', session: 's1', presence });
    bus.publish({ kind: 'presence', session: 's1', presence });
    expect(seen).toEqual(['s1:presence', 's1:presence']);
    expect(bus.listenerCount('s1')).toBe(1);
  });

  it('live bus - close runs every close callback once and refuses later listeners', () => {
    const bus = new LiveBus();
    const closed: string[] = [];
    bus.listen('s', () => undefined, () => closed.push('a'));
    const unlisten = bus.listen('s', () => undefined, () => closed.push('b'));
    unlisten();
    bus.close();
    bus.listen('s', () => undefined, () => closed.push('late'));
    expect(closed).toEqual(['a', 'late']);
    expect(bus.listenerCount()).toBe(0);
  });
});
