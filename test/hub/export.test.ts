import { describe, expect, it } from 'vitest';
import { ParleyEventSchema } from '../../src/schema/event.js';
import { caught, testHubsClosedAfterEach } from '../helpers/hub.js';

const hubs = testHubsClosedAfterEach();

async function text(chunks: AsyncIterable<string | Uint8Array>): Promise<string> {
  let all = '';
  for await (const chunk of chunks) all += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
  return all;
}

describe('export', () => {
  it('export - a thread as JSON Lines holds every event, in seq order, in the v1 format', async () => {
    // 1205 posts at once on purpose: the write limit is off.
    const t = await hubs.open({ config: { chat: { limits: { writesPerMinute: 0 } } } });
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    const b = await t.hub.join({ handle: 'bob', session: 's' });
    const posted = [];
    for (let i = 0; i < 1205; i++) posted.push((await (i % 2 ? a : b).post({ thread: 'general', text: `line ${i}` })).id);
    await a.request({ to: 'bob', intent: 'review', thread: 'general' });
    const { contentType, chunks } = await a.export({ thread: 'general', format: 'jsonl' });
    const body = await text(chunks);
    expect(contentType).toBe('application/x-ndjson');
    const events = body.trim().split('\n').map((line) => ParleyEventSchema.parse(JSON.parse(line)));
    const messages = events.filter((e) => e.type === 'message').map((e) => e.id);
    expect(messages).toEqual(posted);
    expect(events.map((e) => e.seq)).toEqual([...events.map((e) => e.seq)].sort((x, y) => x - y));
    expect(events.at(-1)?.type).toBe('request');
  });

  it('export - a thread as Markdown reads as a transcript', async () => {
    const t = await hubs.open();
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    await a.post({ thread: 'general', text: 'We ship on Friday.' });
    const { contentType, chunks } = await a.export({ thread: 'general' });
    const body = await text(chunks);
    expect(contentType).toContain('text/markdown');
    expect(body.startsWith('# #general')).toBe(true);
    expect(body).toMatch(/\*\*@alice\*\* · \d{4}-\d\d-\d\dT[^\n]+ · message\n\nWe ship on Friday\./);
    expect((await caught(() => a.export({ thread: 'general', format: 'pdf' as never }))).field).toBe('format');
  });
});
