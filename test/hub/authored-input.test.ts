import { describe, expect, it } from 'vitest';
import { REDACTION_NOTE } from '../../src/config/defaults.js';
import { caught, testHubsClosedAfterEach } from '../helpers/hub.js';
import { githubPat, jwt } from '../redaction/fixtures.js';

const hubs = testHubsClosedAfterEach();

const nested = (levels: number): unknown => (levels === 0 ? 'leaf' : { inner: nested(levels - 1) });

describe('authored input', () => {
  it('authored input - a tag holding a secret is redacted and the message flagged, its clean text left without a note', async () => {
    const t = await hubs.open();
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    const result = await a.post({ thread: 'general', text: 'release notes are up', tags: ['release', githubPat()] });
    expect(result.redacted).toBe(true);
    const [stored] = (await a.history({ thread: 'general', after: result.seq - 1 })).events;
    expect(stored?.content).toBe('release notes are up');
    expect(stored?.meta).toMatchObject({ tags: ['release', '[redacted]'], redacted: true });
  });

  it('authored input - params nested deeper than requests.maxJsonDepth are refused, naming the field, and nothing is stored', async () => {
    const t = await hubs.open({ config: { requests: { maxJsonDepth: 4 } } });
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    const b = await t.hub.join({ handle: 'bob', session: 's' });
    const before = t.hub.stats().lastSeq;
    const error = await caught(() => a.request({ to: 'bob', intent: 'review', params: nested(5) }));
    expect(error).toMatchObject({ code: 'INVALID_INPUT', field: 'params' });
    expect(error.message).toContain('requests.maxJsonDepth');
    expect(t.hub.stats().lastSeq).toBe(before);
    // At the limit it goes through.
    const sent = await a.request({ to: 'bob', intent: 'review', params: nested(4) });
    const deepResult = await caught(() => b.respond({ request_id: sent.request_id, status: 'Completed', result: nested(5) }));
    expect(deepResult).toMatchObject({ code: 'INVALID_INPUT', field: 'result' });
  });

  it('authored input - a request flags redaction of its params in meta; the note goes only on its text', async () => {
    const t = await hubs.open();
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    const b = await t.hub.join({ handle: 'bob', session: 's' });
    const token = jwt();
    const sent = await a.request({ to: 'bob', intent: 'call-api', params: { auth: `Bearer ${token}` }, text: 'please call it' });
    const event = (await b.history({ thread: sent.thread })).events.find((e) => e.id === sent.id);
    expect(event?.content).toMatchObject({ intent: 'call-api', params: { auth: 'Bearer [redacted]' }, text: 'please call it' });
    expect(event?.meta?.redacted).toBe(true);
    const answered = await b.respond({ request_id: sent.request_id, status: 'Completed', result: { token }, text: `done, used ${token}` });
    const response = (await a.history({ thread: sent.thread })).events.find((e) => e.id === answered.id);
    expect(response?.content).toMatchObject({ result: { token: '[redacted]' }, text: `done, used [redacted]${REDACTION_NOTE}` });
    expect(response?.meta?.redacted).toBe(true);
  });

  it('authored input - a channel name holding a secret is refused on create and rename, and nothing is stored', async () => {
    const t = await hubs.open();
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    const name = githubPat().toLowerCase();
    const before = t.hub.stats().lastSeq;
    expect(await caught(() => a.createChannel({ name }))).toMatchObject({ code: 'INVALID_INPUT', field: 'name' });
    await a.createChannel({ name: 'ops' });
    const afterOps = t.hub.stats().lastSeq;
    expect(afterOps).toBeGreaterThan(before);
    expect(await caught(() => a.renameThread({ thread: 'ops', name }))).toMatchObject({ code: 'INVALID_INPUT', field: 'name' });
    expect(t.hub.stats().lastSeq).toBe(afterOps);
    expect((await a.threads()).map((th) => th.name).sort()).toEqual(['general', 'ops']);
  });

  it('authored input - a scanner failure lets names, titles and params through unchanged (fail open), logged', async () => {
    const t = await hubs.open({ scanner: { scan: () => Promise.reject(new Error('scanner exploded')) } });
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    const name = githubPat().toLowerCase();
    expect((await a.createChannel({ name })).name).toBe(name);
    const title = `look at ${githubPat()}`;
    expect((await a.openSide({ parent: 'general', title })).name).toBe(title);
    expect(t.logger.records.filter((r) => r.scannerError === true).length).toBeGreaterThanOrEqual(2);
  });
});
