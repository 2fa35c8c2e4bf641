/**
 * What wakes an agent is its choice (`wakeOn`), against the real hub over HTTP
 * and MCP: with `addressed`, a channel message neither ends a wait nor is
 * pushed on the inbox stream, yet stays readable in the inbox and chat_read; a
 * DM or mention still wakes. With `all` (the default) a channel message wakes
 * too. Each test waits until the hub reports the waiter as waiting before
 * posting, so the channel message reaches a wait that is listening, and checks
 * what the wait returned rather than when.
 */

import { describe, expect, it } from 'vitest';
import { cliAt, joinOver, restCall, type Json, type RunningHub } from '../helpers/serve.js';
import { servedHubForFile, servedHubsPerTest } from '../helpers/served-hub.js';
import { openStream } from '../helpers/sse.js';

const served = servedHubForFile();
const otherHubs = servedHubsPerTest();

const call = restCall;

/** Resolves once the hub shows `handle` blocked in a wait (its listener is then in place). */
async function untilWaiting(at: RunningHub, observer: string, handle: string): Promise<void> {
  await expect
    .poll(async () => (await call(at, observer, 'GET', '/presence')).json.presence.find((p: Json) => p.handle === handle)?.connection, { timeout: 10_000 })
    .toBe('waiting');
}

async function people(session: string, waiter: { handle: string; profile?: Json }, at = served.hub) {
  const human = await joinOver(at, { handle: `${session}-human`, session, profile: { kind: 'human' } });
  const agent = await joinOver(at, { handle: waiter.handle, session, ...(waiter.profile ? { profile: waiter.profile } : {}) });
  return { human, agent };
}

describe('wakeOn', () => {
  it('wakeOn - addressed: a channel post does not end a REST wait, a DM does; the post stays in the inbox', async () => {
    const { human, agent } = await people('rest', { handle: 'quiet-rest', profile: { wakeOn: 'addressed' } });
    expect((await call(served.hub, agent, 'GET', '/whoami')).json.wakeOn).toBe('addressed');
    const waiting = call(served.hub, agent, 'GET', '/inbox/wait?timeout_ms=20000');
    await untilWaiting(served.hub, human, 'quiet-rest');
    const channel = (await call(served.hub, human, 'POST', '/threads/general/messages', { text: 'busy channel chatter' })).json;
    // Readable without waking: in the inbox (peek) as a channel item that does not wake.
    const peek = (await call(served.hub, agent, 'GET', '/inbox?peek=true')).json;
    expect(peek.items.map((i: Json) => [i.event.id, i.reason, i.wakes])).toEqual([[channel.id, 'channel', false]]);
    const dm = (await call(served.hub, human, 'POST', '/dm', { to: 'quiet-rest', text: 'a word with you' })).json;
    const woke = await waiting;
    expect(woke.status).toBe(200);
    expect(woke.json.timedOut).toBe(false);
    // Had the channel post woken it, the wait would have returned before the DM existed.
    expect(woke.json.items.map((i: Json) => [i.event.id, i.reason, i.wakes])).toEqual([
      [dm.id, 'dm', true],
      [channel.id, 'channel', false],
    ]);
  });

  it('wakeOn - default all: a channel post ends the wait at once', async () => {
    const { human, agent } = await people('eager', { handle: 'eager-rest' });
    expect((await call(served.hub, agent, 'GET', '/whoami')).json.wakeOn).toBe('all');
    const waiting = call(served.hub, agent, 'GET', '/inbox/wait?timeout_ms=20000');
    await untilWaiting(served.hub, human, 'eager-rest');
    const channel = (await call(served.hub, human, 'POST', '/threads/general/messages', { text: 'anyone?' })).json;
    const woke = await waiting;
    expect(woke.json.timedOut).toBe(false);
    expect(woke.json.items.map((i: Json) => [i.event.id, i.reason, i.wakes])).toEqual([[channel.id, 'channel', true]]);
  });

  it('wakeOn - addressed: the inbox stream does not push channel posts, and does push a mention', async () => {
    const { human, agent } = await people('stream', { handle: 'quiet-stream', profile: { wakeOn: 'addressed' } });
    const stream = await openStream(`${served.hub.url}/api/v1/stream?inbox=true&events_only=true`, agent);
    try {
      await call(served.hub, human, 'POST', '/threads/general/messages', { text: 'not for you in particular' });
      const mention = (await call(served.hub, human, 'POST', '/threads/general/messages', { text: '@quiet-stream can you look?' })).json;
      // Events arrive in seq order: the first one pushed is the mention, so the earlier channel post was not.
      let frame = await stream.next();
      while (frame.event !== 'event') frame = await stream.next();
      expect(JSON.parse(frame.data).id).toBe(mention.id);
    } finally {
      stream.drop();
    }
  });

  it('wakeOn - MCP: presence_set wake_on sets it, whoami shows it, and a channel post does not end wait while a mention does', async () => {
    const { human, agent } = await people('mcp', { handle: 'quiet-mcp' });
    const mcp = await served.mcp(agent);
    expect((await mcp.call('whoami')).value.wakeOn).toBe('all');
    await mcp.call('room_load', { room: 'presence' });
    const set = await mcp.call('presence_set', { state: 'listening', wake_on: 'addressed' });
    expect(set.value).toMatchObject({ applied: true, wakeOn: 'addressed' });
    expect((await mcp.call('whoami')).value).toMatchObject({ wakeOn: 'addressed', profile: { wakeOn: 'addressed' } });

    const waiting = mcp.call('wait', { timeout_ms: 20_000 });
    await untilWaiting(served.hub, human, 'quiet-mcp');
    const channel = (await call(served.hub, human, 'POST', '/threads/general/messages', { text: 'status update' })).json;
    const peek = await mcp.call('inbox', { peek: true });
    expect((peek.value.items as Json[]).map((i) => [i.id, i.reason])).toEqual([[channel.id, 'channel']]);
    const read = await mcp.call('chat_read', { thread: 'general' });
    expect((read.value.messages as Json[]).map((m) => m.id)).toContain(channel.id);
    const mention = (await call(served.hub, human, 'POST', '/threads/general/messages', { text: '@quiet-mcp over to you' })).json;
    const woke = await waiting;
    expect(woke.isError).toBe(false);
    expect(woke.value.timedOut).toBe(false);
    expect((woke.value.items as Json[]).map((i) => [i.id, i.reason])).toEqual([[mention.id, 'mention']]);

    // A bad value is refused naming the field, and changes nothing (neither wakeOn nor presence).
    await mcp.call('presence_set', { state: 'thinking' });
    const bad = await mcp.call('presence_set', { state: 'idle', wake_on: 'sometimes' });
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(/^INVALID_INPUT: .*wake_on/);
    expect((await mcp.call('whoami')).value.wakeOn).toBe('addressed');
    const unknownThread = await mcp.call('presence_set', { state: 'idle', thread: 'no-such-thread', wake_on: 'all' });
    expect(unknownThread.isError).toBe(true);
    expect((await mcp.call('whoami')).value.wakeOn).toBe('addressed');
    const presence = (await call(served.hub, human, 'GET', '/presence')).json.presence.find((p: Json) => p.handle === 'quiet-mcp');
    expect(presence.state).toBe('thinking');
  });

  it('wakeOn - PATCH /profile changes it; a bad value is refused naming wakeOn and nothing is stored', async () => {
    const { agent } = await people('patch', { handle: 'patcher' });
    const set = await call(served.hub, agent, 'PATCH', '/profile', { wakeOn: 'addressed' });
    expect(set.status).toBe(200);
    expect(set.json.participant.profile.wakeOn).toBe('addressed');
    expect((await call(served.hub, agent, 'GET', '/whoami')).json.wakeOn).toBe('addressed');
    const bad = await call(served.hub, agent, 'PATCH', '/profile', { wakeOn: 'sometimes', nickname: 'Pat' });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ code: 'INVALID_INPUT', field: 'wakeOn' });
    const after = (await call(served.hub, agent, 'GET', '/whoami')).json;
    expect(after.wakeOn).toBe('addressed');
    expect(after.participant.profile.nickname).toBeUndefined();
    expect((await call(served.hub, agent, 'PATCH', '/profile', { wakeOn: 'all' })).json.participant.profile.wakeOn).toBe('all');
  });

  it('wakeOn - parley join --wake-on sets it; a bad value is refused naming the field and registers no one', async () => {
    const cli = cliAt(served.home, served.hub.url);
    const joined = cli('join', 'cli-quiet', '--session', 'cli', '--wake-on', 'addressed', '--json');
    expect(joined.status, joined.stderr).toBe(0);
    const { token } = JSON.parse(joined.stdout) as { token: string };
    expect((await call(served.hub, token, 'GET', '/whoami')).json.wakeOn).toBe('addressed');

    const bad = cli('join', 'cli-never', '--session', 'cli', '--wake-on', 'sometimes');
    // A usage error (exit 2), in one line naming the field and the values it takes.
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^parley: Invalid profile\.wakeOn: .*"all".*"addressed"/);
    const listed = (await call(served.hub, token, 'GET', '/participants')).json.participants.map((p: Json) => p.handle);
    expect(listed).toContain('cli-quiet');
    expect(listed).not.toContain('cli-never');
  });

  it('wakeOn - agents.wakeOn in config is the default for agents that have not chosen; humans and an agent choosing all still wake on channel posts', async () => {
    const quietHub = (await otherHubs.serve(otherHubs.home(), { env: { PARLEY_AGENTS_WAKE_ON: 'addressed' } })).hub;
    const { human, agent } = await people('cfg', { handle: 'cfg-agent' }, quietHub);
    const chooser = await joinOver(quietHub, { handle: 'cfg-chooser', session: 'cfg', profile: { wakeOn: 'all' } });
    expect((await call(quietHub, agent, 'GET', '/whoami')).json.wakeOn).toBe('addressed');
    expect((await call(quietHub, chooser, 'GET', '/whoami')).json.wakeOn).toBe('all');
    expect((await call(quietHub, human, 'GET', '/whoami')).json.wakeOn).toBe('all');

    const quiet = call(quietHub, agent, 'GET', '/inbox/wait?timeout_ms=20000');
    const eager = call(quietHub, chooser, 'GET', '/inbox/wait?timeout_ms=20000');
    await untilWaiting(quietHub, human, 'cfg-agent');
    await untilWaiting(quietHub, human, 'cfg-chooser');
    const channel = (await call(quietHub, human, 'POST', '/threads/general/messages', { text: 'hello all' })).json;
    expect((await eager).json.items.map((i: Json) => i.event.id)).toEqual([channel.id]);
    const dm = (await call(quietHub, human, 'POST', '/dm', { to: 'cfg-agent', text: 'just you' })).json;
    expect((await quiet).json.items.map((i: Json) => [i.event.id, i.wakes])).toEqual([
      [dm.id, true],
      [channel.id, false],
    ]);
  }, 30_000);
});
