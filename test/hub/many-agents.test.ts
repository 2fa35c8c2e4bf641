import { describe, expect, it } from 'vitest';
import type { Actor } from '../../src/hub/actor.js';
import { openTestHub } from '../helpers/hub.js';

describe('many agents', () => {
  it('many agents - 100 agents post and read at once without deadlock, loss or corruption', async () => {
    const t = await openTestHub();
    try {
      const agents: Actor[] = [];
      for (let i = 0; i < 100; i++) agents.push(await t.hub.join({ handle: `agent-${i}`, session: 'swarm' }));
      for (const agent of agents) await agent.readNew({ thread: 'general', limit: 1000 });
      const perAgent = 5;
      const seen = new Map<string, Set<string>>(agents.map((a) => [a.participant.handle, new Set()]));
      const posted: string[] = [];
      await Promise.all(
        agents.map(async (agent, i) => {
          for (let n = 0; n < perAgent; n++) {
            const target = agents[(i + 1) % agents.length]!.participant.handle;
            const result = await agent.post({ thread: 'general', text: `agent ${i} says ${n} to @${target}` });
            posted.push(result.id);
            const read = await agent.readNew({ thread: 'general', limit: 1000 });
            for (const e of read.events) seen.get(agent.participant.handle)!.add(e.id);
          }
        }),
      );
      // Everyone drains what is left; then each has seen every post but their own.
      for (const agent of agents) {
        for (;;) {
          const read = await agent.readNew({ thread: 'general', limit: 1000 });
          for (const e of read.events) seen.get(agent.participant.handle)!.add(e.id);
          if (!read.more) break;
        }
      }
      expect(posted).toHaveLength(100 * perAgent);
      expect(new Set(posted).size).toBe(posted.length);
      for (const agent of agents) {
        expect(seen.get(agent.participant.handle)!.size).toBe(100 * perAgent - perAgent);
        const mentions = (await agent.inbox({ limit: 500 })).items.filter((i) => i.reason === 'mention');
        // Mentions already read through readNew are delivered; none is pending twice.
        expect(mentions).toHaveLength(0);
        // Each mention was delivered, and acknowledged if the agent posted in the thread after reading it (an answer).
        const states = (await agent.deliveries('all', 500)).map((d) => d.state);
        expect(states).toHaveLength(perAgent);
        expect(states.filter((state) => state !== 'delivered' && state !== 'acknowledged')).toEqual([]);
      }
      const history = await agents[0]!.history({ thread: 'general', limit: 1000 });
      const seqs = history.events.map((e) => e.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(t.hub.integrityCheck()).toBe('ok');
    } finally {
      await t.close();
    }
  });
});
