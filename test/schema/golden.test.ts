import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ParleyEventSchema } from '../../src/schema/event.js';
import { testHubsClosedAfterEach } from '../helpers/hub.js';

const GOLDEN = path.resolve(import.meta.dirname, '../fixtures/golden/v1/events.jsonl');

const hubs = testHubsClosedAfterEach();

describe('event format v1', () => {
  it('golden - every v1 event fixture parses with the event schema, unchanged', () => {
    const lines = fs.readFileSync(GOLDEN, 'utf8').trim().split('\n');
    expect(lines.length).toBeGreaterThan(5);
    for (const line of lines) {
      const event = JSON.parse(line) as unknown;
      expect(ParleyEventSchema.parse(event)).toEqual(event);
    }
  });

  it('golden - events the hub writes, of every type, match the v1 schema', async () => {
    const t = await hubs.open();
    const human = await t.hub.join({ handle: 'human', session: 's', profile: { kind: 'human' } });
    const coder = await t.hub.join({ handle: 'coder-1', session: 's' });
    const first = await human.post({ thread: 'general', text: 'hello @coder-1', tags: ['plan'] });
    await coder.post({ thread: 'general', text: 'reply', reply_to: first.id });
    await human.hardMute('general', ['coder-1']);
    await human.unmute('general', ['coder-1']);
    const req = await coder.request({ to: 'human', intent: 'review', params: { file: 'a.ts' } });
    await human.respond({ request_id: req.request_id, status: 'Completed', result: { ok: true } });
    const side = await coder.openSide({ parent: 'general', title: 'details' });
    await coder.closeSide({ thread: side.id, summary: 'done' });
    await human.renameThread({ thread: 'general', name: 'main' });
    const types = new Set<string>();
    for (const thread of await human.threads()) {
      for (const event of (await human.history({ thread: thread.id, limit: 100 })).events) {
        expect(ParleyEventSchema.safeParse(event).success).toBe(true);
        types.add(event.type);
      }
    }
    expect([...types].sort()).toEqual(['control', 'message', 'request', 'response', 'system']);
  });
});
