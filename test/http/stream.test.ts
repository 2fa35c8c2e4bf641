import { describe, expect, it } from 'vitest';
import { testHubsClosedAfterEach } from '../helpers/hub.js';
import { openStream, type SseFrame } from '../helpers/sse.js';

const hubs = testHubsClosedAfterEach();

describe('http stream', () => {
  it('stream - SSE ids are seqs; reconnecting with Last-Event-ID delivers every missed event exactly once', async () => {
    const t = await hubs.open();
    const writer = await t.hub.join({ handle: 'writer', session: 's' });
    await t.hub.join({ handle: 'reader', session: 's' });
    const token = await t.hub.issueToken('reader', 's');
    const server = await hubs.serve(t);
    const url = `${server.url}/api/v1/stream?events_only=true`;

    const first = await openStream(url, token);
    const before = [];
    for (let i = 0; i < 5; i++) before.push(await writer.post({ thread: 'general', text: `before ${i}` }));
    const seen: SseFrame[] = [];
    for (let i = 0; i < 5; i++) seen.push(await first.next());
    expect(seen.map((f) => f.id)).toEqual(before.map((p) => String(p.seq)));
    expect(seen.map((f) => (JSON.parse(f.data) as { content: string }).content)).toEqual(before.map((_, i) => `before ${i}`));
    first.drop();

    const missed = [];
    for (let i = 0; i < 5; i++) missed.push(await writer.post({ thread: 'general', text: `missed ${i}` }));
    const second = await openStream(url, token, seen[seen.length - 1]!.id);
    const later = writer.post({ thread: 'general', text: 'live' });
    const resumed: SseFrame[] = [];
    for (let i = 0; i < 6; i++) resumed.push(await second.next());
    second.drop();
    expect(resumed.map((f) => f.id)).toEqual([...missed.map((p) => String(p.seq)), String((await later).seq)]);
  });

  it('stream - presence and meeting traffic travel on the stream; a bad Last-Event-ID is refused', async () => {
    const t = await hubs.open();
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    await t.hub.join({ handle: 'bob', session: 's' });
    const token = await t.hub.issueToken('bob', 's');
    const server = await hubs.serve(t);
    // alice is connected (an MCP session of hers is open), so what she declares shows.
    const session = a.holdPresence('mcp');
    const stream = await openStream(`${server.url}/api/v1/stream`, token);
    await a.setPresence({ state: 'typing' });
    await a.meetingSay('standup', 'hello');
    const frames = [await stream.next(), await stream.next(), await stream.next(), await stream.next()];
    stream.drop();
    session();
    expect(frames.map((f) => f.event)).toEqual(['presence', 'presence', 'meeting', 'meeting']);
    // First bob's own stream making him connected, then what alice declared.
    expect(JSON.parse(frames[0]!.data)).toMatchObject({ handle: 'bob', connection: 'connected' });
    expect(JSON.parse(frames[1]!.data)).toMatchObject({ handle: 'alice', state: 'typing', connection: 'connected' });
    expect(frames.some((f) => f.data.includes('"hello"'))).toBe(true);
    const bad = await fetch(`${server.url}/api/v1/stream`, { headers: { authorization: `Bearer ${token}`, 'last-event-id': 'abc' } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: 'INVALID_INPUT', field: 'Last-Event-ID' } });
  });
});
