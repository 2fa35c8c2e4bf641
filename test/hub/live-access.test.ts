import { describe, expect, it } from 'vitest';
import type { Actor } from '../../src/hub/actor.js';
import type { Roster } from '../../src/schema/roster.js';
import { formatPublicKey } from '../../src/trust/node-id.js';
import { signRoster } from '../../src/trust/roster.js';
import { testHubsClosedAfterEach } from '../helpers/hub.js';
import { nextSkippingPresence } from '../helpers/live-items.js';

const hubs = testHubsClosedAfterEach();

describe('live streams follow access', () => {
  it('live - a participant a new roster leaves out has its open stream ended, not fed what is said next', async () => {
    const t = await hubs.open();
    const alice = await t.hub.join({ handle: 'alice', profile: { kind: 'human' } });
    const bob = await t.hub.join({ handle: 'bob' });
    const { ctx } = t.hub.internals;
    const keyOf = async (actor: Actor): Promise<string> => formatPublicKey(Buffer.from((await actor.whoami()).participant.publicKey, 'base64'));
    const hub = ctx.keys.hub();
    const rosterOf = (version: number, members: Roster['members']): Roster =>
      signRoster({ org_id: 'team', version, timestamp: '2026-11-24T12:00:00Z', members: [{ pubkey: formatPublicKey(hub.raw), role: 'admin' }, ...members], signatures: [] }, hub.privateKey);
    await t.hub.acceptRoster(rosterOf(1, [{ pubkey: await keyOf(alice), role: 'admin' }, { pubkey: await keyOf(bob), role: 'observer' }]));
    const stream = bob.live({ thread: 'general' });
    await alice.post({ thread: 'general', text: 'while bob may read' });
    const first = await nextSkippingPresence(stream);
    expect(first.done).toBe(false);
    expect(JSON.stringify(first.value)).toContain('while bob may read');
    // Bob holds a live stream: leaving him out is confirmed.
    await t.hub.acceptRoster(rosterOf(2, [{ pubkey: await keyOf(alice), role: 'admin' }]), { confirm: true });
    await alice.post({ thread: 'general', text: 'after bob was removed' });
    const next = await nextSkippingPresence(stream);
    expect(next.done).toBe(true);
  });

  it("live - an admin's override that takes away a participant's reading of a channel ends its open stream of that channel", async () => {
    const t = await hubs.open();
    const human = await t.hub.join({ handle: 'human', profile: { kind: 'human' } });
    const alice = await t.hub.join({ handle: 'alice' });
    const bob = await t.hub.join({ handle: 'bob' });
    // Local mode: the human is an admin, the agents operators; the channel is read by operators and above.
    await human.createChannel({ name: 'ops' });
    await human.control('ops', { access: { readers: ['operator'], writers: ['operator'] } });
    const bobStream = bob.live({ thread: 'ops' });
    const aliceStream = alice.live({ thread: 'ops' });
    await alice.post({ thread: 'ops', text: 'while bob may read' });
    expect(JSON.stringify((await nextSkippingPresence(bobStream)).value)).toContain('while bob may read');
    expect(JSON.stringify((await nextSkippingPresence(aliceStream)).value)).toContain('while bob may read');

    await human.setAccess('bob', 'observer');
    await alice.post({ thread: 'ops', text: 'after the override' });
    // Alice's stream getting the post shows it was fanned out; bob's must have ended by then, not be left waiting.
    const seen = nextSkippingPresence(aliceStream).then((item) => ({ stillOpen: JSON.stringify(item.value) }));
    const bobNext = await Promise.race([nextSkippingPresence(bobStream), seen]);
    expect(bobNext).toEqual({ done: true, value: undefined });
    expect((await seen).stillOpen).toContain('after the override');
    aliceStream.close();
  });
});
