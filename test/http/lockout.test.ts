import { beforeAll, describe, expect, it } from 'vitest';
import { joinOver } from '../helpers/serve.js';
import { servedHubForFile } from '../helpers/served-hub.js';

/**
 * An agent trying to lock the human out of a thread, over the REST API of the
 * real hub. Steering is an admin's: in local mode agents are operators, so
 * the agent cannot pause at all (it once could, and then could not resume,
 * locking every agent out); an agent the config makes admin steers both ways.
 */
const PASSWORD = 'steer me not';
const served = servedHubForFile({ config: { trust: { access: { steerer: 'admin' } } }, env: { PARLEY_WEBUI_PASSWORD: PASSWORD } });
let agent: string;
let steerer: string;
let otherHuman: string;

beforeAll(async () => {
  agent = await joinOver(served.hub, { handle: 'agent', session: 'proj' });
  steerer = await joinOver(served.hub, { handle: 'steerer', session: 'proj' });
  otherHuman = await joinOver(served.hub, { handle: 'ada', session: 'proj', profile: { kind: 'human' } });
});

/** The human signs in as the page does (the hub password); the others use their tokens. */
const HUMAN = { authorization: `Basic ${Buffer.from(`human:${PASSWORD}`).toString('base64')}`, 'x-parley-session': 'proj' };

async function call(auth: string | Record<string, string>, method: string, route: string, body?: unknown): Promise<{ status: number; error?: { code: string; field?: string; message: string } }> {
  const headers = typeof auth === 'string' ? { authorization: `Bearer ${auth}` } : auth;
  const res = await fetch(`${served.hub.url}/api/v1${route}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as { error?: { code: string; field?: string; message: string } };
  return { status: res.status, ...(json.error ? { error: json.error } : {}) };
}

describe('steering lock-out over REST', () => {
  it('lockout - an agent (operator) can neither mute the human nor pause: FORBIDDEN_ROLE, nothing stored; muted anyway, the human resumes, unmutes and speaks', async () => {
    expect((await call(HUMAN, 'GET', '/whoami')).status).toBe(200);
    // The reported sequence: the agent mutes the human, then pauses the thread.
    const before = served.stored();
    const muting = await call(agent, 'POST', '/threads/general/controls', { mute: { targets: ['human'] } });
    expect(muting).toMatchObject({ status: 403, error: { code: 'FORBIDDEN_ROLE', message: expect.stringContaining('mute needs admin; you (@agent) are operator') } });
    const pausing = await call(agent, 'POST', '/threads/general/controls', { pause: { on: true } });
    expect(pausing).toMatchObject({ status: 403, error: { code: 'FORBIDDEN_ROLE', details: { need: 'admin', have: 'operator' }, message: 'pause needs admin; you (@agent) are operator; nothing was done. An admin (@ada or @human or @steerer) can grant it: parley roster set-role @agent admin' } });
    expect(served.stored()).toEqual(before);
    expect((await call(agent, 'POST', '/threads/general/messages', { text: 'still talking' })).status).toBe(201);
    // An admin agent pauses; muted by someone all the same (here another human), the human resumes, unmutes and speaks.
    expect((await call(steerer, 'POST', '/threads/general/controls', { pause: { on: true } })).status).toBe(201);
    expect((await call(otherHuman, 'POST', '/threads/general/controls', { mute: { targets: ['human'] } })).status).toBe(201);
    expect((await call(HUMAN, 'POST', '/threads/general/messages', { text: 'hello?' })).error?.code).toBe('PARTICIPANT_MUTED');
    expect((await call(HUMAN, 'POST', '/threads/general/controls', { pause: { on: false } })).status).toBe(201);
    expect((await call(HUMAN, 'POST', '/threads/general/controls', { unmute: { targets: ['human'] } })).status).toBe(201);
    expect((await call(HUMAN, 'POST', '/threads/general/messages', { text: 'back in charge' })).status).toBe(201);
    expect((await call(agent, 'POST', '/threads/general/messages', { text: 'resumed' })).status).toBe(201);
  });

  it('lockout - an agent given admin (trust.access) pauses and resumes the thread itself', async () => {
    expect((await call(steerer, 'POST', '/threads/general/controls', { pause: { on: true } })).status).toBe(201);
    expect((await call(agent, 'POST', '/threads/general/messages', { text: 'paused?' })).error?.code).toBe('THREAD_PAUSED');
    expect((await call(steerer, 'POST', '/threads/general/controls', { pause: { on: false } })).status).toBe(201);
    expect((await call(agent, 'POST', '/threads/general/messages', { text: 'going on' })).status).toBe(201);
  });
});
