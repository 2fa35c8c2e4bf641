import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/hub.js';
import { joinOver, startServe, stopHubs, type RunningHub } from '../helpers/serve.js';
import { fileSnapshot } from '../helpers/store-snapshot.js';

/** An agent trying to lock the human out of a thread, over the REST API of the real hub. */
const PASSWORD = 'steer me not';
let hub: RunningHub;
let home: string;
let cleanup: () => void = () => undefined;
let agent: string;
let otherHuman: string;

beforeAll(async () => {
  ({ home, cleanup } = tempHome());
  hub = await startServe(home, { env: { PARLEY_WEBUI_PASSWORD: PASSWORD } });
  agent = await joinOver(hub, { handle: 'agent', session: 'proj' });
  otherHuman = await joinOver(hub, { handle: 'ada', session: 'proj', profile: { kind: 'human' } });
}, 30_000);

afterAll(async () => {
  await stopHubs();
  cleanup();
});

/** The human signs in as the page does (the hub password); the others use their tokens. */
const HUMAN = { authorization: `Basic ${Buffer.from(`human:${PASSWORD}`).toString('base64')}`, 'x-parley-session': 'proj' };

async function call(auth: string | Record<string, string>, method: string, route: string, body?: unknown): Promise<{ status: number; error?: { code: string; field?: string; message: string } }> {
  const headers = typeof auth === 'string' ? { authorization: `Bearer ${auth}` } : auth;
  const res = await fetch(`${hub.url}/api/v1${route}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as { error?: { code: string; field?: string; message: string } };
  return { status: res.status, ...(json.error ? { error: json.error } : {}) };
}

describe('steering lock-out over REST', () => {
  it('lockout - an agent cannot mute the human, only pause; muted anyway, the human resumes, unmutes and speaks', async () => {
    expect((await call(HUMAN, 'GET', '/whoami')).status).toBe(200);
    // The reported sequence: the agent mutes the human, then pauses the thread.
    const before = fileSnapshot(path.join(home, 'parley.db'));
    const refused = await call(agent, 'POST', '/threads/general/controls', { mute: { targets: ['human'] } });
    expect(refused).toMatchObject({ status: 403, error: { code: 'FORBIDDEN', field: 'control.mute.targets.0', message: expect.stringContaining('@human is a human') } });
    expect(fileSnapshot(path.join(home, 'parley.db'))).toEqual(before);
    expect((await call(agent, 'POST', '/threads/general/controls', { pause: { on: true } })).status).toBe(201);
    // Muted by someone all the same (here another human), in the thread the agent paused.
    expect((await call(otherHuman, 'POST', '/threads/general/controls', { mute: { targets: ['human'] } })).status).toBe(201);
    expect((await call(HUMAN, 'POST', '/threads/general/messages', { text: 'hello?' })).error?.code).toBe('PARTICIPANT_MUTED');
    expect((await call(HUMAN, 'POST', '/threads/general/controls', { pause: { on: false } })).status).toBe(201);
    expect((await call(HUMAN, 'POST', '/threads/general/controls', { unmute: { targets: ['human'] } })).status).toBe(201);
    expect((await call(HUMAN, 'POST', '/threads/general/messages', { text: 'back in charge' })).status).toBe(201);
    expect((await call(agent, 'POST', '/threads/general/messages', { text: 'resumed' })).status).toBe(201);
  });
});
