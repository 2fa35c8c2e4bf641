import { generateText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { registerParticipant, saveToken } from '../../src/client/registration.js';
import { RestParticipant } from '../../src/client/rest-participant.js';
import { promptAddendum } from '../../src/format/agent-prompts.js';
import { parleyMiddleware, type ParleyOptions } from '../../src/middleware/index.js';
import { openAgentHub } from '../helpers/agent-hub.js';
import { caught, tempHome } from '../helpers/hub.js';
import { startServe, stopHubs, type RunningHub } from '../helpers/serve.js';
import { block, dmLine, shape, textAnswer } from './model-script.js';

/**
 * How the middleware reaches the hub when it is given only a handle: as the
 * CLI does (the token `parley join` kept in the home, PARLEY_TOKEN, the hub
 * the home's lock file names, joining through the home's admin token), what
 * it says when a token is wrong, and that a model call still goes out — with
 * a log line saying why without chat — when the hub does not answer.
 */
const cleanups: Array<() => Promise<void> | void> = [];
const servedHomes: Array<() => void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await stopHubs();
  // A served home goes last, once its hub is stopped: a running hub may still write there.
  for (const remove of servedHomes.splice(0)) remove();
});

/** A home with `parley serve` running on it (a child process on an ephemeral port). */
async function servedHome(): Promise<{ home: string; hub: RunningHub }> {
  const { home, cleanup } = tempHome();
  servedHomes.push(cleanup);
  return { home, hub: await startServe(home) };
}

/** The human of a served home, joined as `parley join human --kind human` does. */
async function humanOf(url: string, home: string): Promise<RestParticipant> {
  const { token } = await registerParticipant(url, home, { handle: 'human', profile: { kind: 'human' } });
  const human = new RestParticipant(url, token);
  cleanups.push(() => human.close());
  return human;
}

/** A model wrapped with parleyMiddleware (these options plus a log kept in `logs`) and its mock. */
function wrapped(options: ParleyOptions, logs: string[] = []) {
  const mw = parleyMiddleware({ log: (line) => logs.push(line), ...options });
  cleanups.push(() => mw.close());
  const mock = new MockLanguageModelV3({ doGenerate: textAnswer('ok') });
  return { mock, model: wrapLanguageModel({ model: mock, middleware: mw }) };
}

/** Sets an environment variable for this test only. */
function setEnv(name: string, value: string): void {
  const before = process.env[name];
  process.env[name] = value;
  cleanups.push(() => {
    if (before === undefined) delete process.env[name];
    else process.env[name] = before;
  });
}

describe('parleyMiddleware finds its hub and token as the CLI does', () => {
  it('discovery - the token "parley join" kept in the home\'s credentials.json and the URL in its hub.lock.json', async () => {
    const { home, hub } = await servedHome();
    await registerParticipant(hub.url, home, { handle: 'bot', profile: { kind: 'agent' } });
    const kept = JSON.parse(fs.readFileSync(path.join(home, 'credentials.json'), 'utf8')) as Record<string, string>;
    expect(Object.keys(kept)).toEqual(['default/bot']);
    const human = await humanOf(hub.url, home);
    const dm = await human.dm({ to: 'bot', text: 'found you' });
    const { mock, model } = wrapped({ handle: 'bot', home });

    await generateText({ model, prompt: 'go', maxRetries: 0 });

    expect(shape(mock.doGenerateCalls[0]!.prompt).at(-1)).toEqual(['user', block(dmLine(dm, 'human', 'found you'))]);
    expect((await human.sentDeliveries()).map((d) => [d.id, d.to, d.state])).toEqual([[dm.id, 'bot', 'injected']]);
    // It used the kept token: it did not join again (which would have kept a new one).
    const after = JSON.parse(fs.readFileSync(path.join(home, 'credentials.json'), 'utf8')) as Record<string, string>;
    expect(after['default/bot']).toBe(kept['default/bot']);
  });

  it('discovery - a handle with no kept token joins through the home\'s admin token, as an agent, and keeps its token', async () => {
    const { home, hub } = await servedHome();
    const human = await humanOf(hub.url, home);
    const { mock, model } = wrapped({ handle: 'newbie', home });

    await generateText({ model, prompt: 'go', maxRetries: 0 });

    expect(shape(mock.doGenerateCalls[0]!.prompt)[0]).toEqual(['system', promptAddendum('newbie')]);
    expect((await human.participants()).find((p) => p.handle === 'newbie')).toMatchObject({ handle: 'newbie', profile: { kind: 'agent' } });
    const kept = JSON.parse(fs.readFileSync(path.join(home, 'credentials.json'), 'utf8')) as Record<string, string>;
    expect(Object.keys(kept).sort()).toEqual(['default/human', 'default/newbie']);
    // The kept token is the one it uses: a DM now reaches its next call.
    const dm = await human.dm({ to: 'newbie', text: 'welcome' });
    await generateText({ model, prompt: 'go', maxRetries: 0 });
    expect(shape(mock.doGenerateCalls[1]!.prompt).at(-1)).toEqual(['user', block(dmLine(dm, 'human', 'welcome'))]);
  });

  it('discovery - PARLEY_TOKEN and PARLEY_URL when neither is given', async () => {
    const hub = await openAgentHub(['bot']);
    cleanups.push(() => hub.close());
    const { home, cleanup } = tempHome();
    cleanups.push(cleanup);
    setEnv('PARLEY_TOKEN', hub.agents.bot!.token);
    setEnv('PARLEY_URL', hub.url);
    const dm = await hub.human.dm({ to: 'bot', text: 'via env' });
    const { mock, model } = wrapped({ handle: 'bot', home });

    await generateText({ model, prompt: 'go', maxRetries: 0 });

    expect(shape(mock.doGenerateCalls[0]!.prompt).at(-1)).toEqual(['user', block(dmLine(dm, 'human', 'via env'))]);
  });

  it('discovery - a token of another handle is INVALID_INPUT naming token; the model is not called', async () => {
    const hub = await openAgentHub(['bot', 'other']);
    cleanups.push(() => hub.close());
    const { mock, model } = wrapped({ handle: 'bot', url: hub.url, token: hub.agents.other!.token });

    const error = await caught(() => generateText({ model, prompt: 'go', maxRetries: 0 }));

    expect(error).toMatchObject({ code: 'INVALID_INPUT', field: 'token' });
    expect(error.message).toBe('Invalid token: it belongs to @other, not @bot; pass @bot\'s token or its handle.');
    expect(mock.doGenerateCalls).toEqual([]);
  });

  it('discovery - a revoked or unknown token given explicitly is UNAUTHORIZED naming token; nothing is joined in its place', async () => {
    const hub = await openAgentHub(['bot']);
    cleanups.push(() => hub.close());
    const revoked = hub.agents.bot!.token;
    expect(await hub.t.hub.revokeToken(revoked)).toBe(true);
    for (const token of [revoked, 'pt_not-a-token-of-this-hub']) {
      const { mock, model } = wrapped({ handle: 'bot', url: hub.url, token });
      const error = await caught(() => generateText({ model, prompt: 'go', maxRetries: 0 }));
      expect(error).toMatchObject({ code: 'UNAUTHORIZED', field: 'token' });
      expect(error.message).toBe(`The token given for @bot is not a valid token of the hub at ${hub.url}; pass the one "parley join bot" printed.`);
      expect(mock.doGenerateCalls).toEqual([]);
    }
  });

  it('discovery - a token revoked while the agent works: its calls go out without chat, saying why; once a new token is kept in the home, the chat comes again', async () => {
    const hub = await openAgentHub(['bot']);
    cleanups.push(() => hub.close());
    const { home, cleanup } = tempHome();
    cleanups.push(cleanup);
    saveToken(home, 'default', 'bot', hub.agents.bot!.token);
    const logs: string[] = [];
    const { mock, model } = wrapped({ handle: 'bot', url: hub.url, home }, logs);
    const first = await hub.human.dm({ to: 'bot', text: 'first' });
    await generateText({ model, prompt: 'go', maxRetries: 0 });

    expect(await hub.t.hub.revokeToken(hub.agents.bot!.token)).toBe(true);
    const second = await hub.human.dm({ to: 'bot', text: 'second' });
    // Still refused at the next call (the kept token is the revoked one): the calls go on, without chat.
    for (let i = 0; i < 2; i++) expect((await generateText({ model, prompt: 'go', maxRetries: 0 })).text).toBe('ok');
    saveToken(home, 'default', 'bot', await hub.t.hub.issueToken('bot'));
    await generateText({ model, prompt: 'go', maxRetries: 0 });

    const lastMessages = mock.doGenerateCalls.map((call) => shape(call.prompt).at(-1));
    expect(lastMessages).toEqual([
      ['user', block(dmLine(first, 'human', 'first'))],
      ['user', 'go'],
      ['user', 'go'],
      ['user', block(dmLine(second, 'human', 'second'))],
    ]);
    expect(logs.map((line) => line.replace(/: .*/, ''))).toEqual([
      'parley',
      'parley',
      'parley',
      'parley',
    ]);
    expect(logs[1]).toMatch(/^parley: no new chat for @bot this call: /);
    expect(logs[2]).toMatch(/^parley: no chat for @bot this call: /);
    expect((await hub.human.sentDeliveries()).map((d) => [d.id, d.state])).toEqual([
      [second.id, 'injected'],
      [first.id, 'injected'],
    ]);
  });

  it('discovery - a token revoked during a call: its commit is refused, the chat is not lost, and the next call links with the token now kept and gets it again', async () => {
    const hub = await openAgentHub(['bot']);
    cleanups.push(() => hub.close());
    const { home, cleanup } = tempHome();
    cleanups.push(cleanup);
    saveToken(home, 'default', 'bot', hub.agents.bot!.token);
    const logs: string[] = [];
    const mw = parleyMiddleware({ handle: 'bot', url: hub.url, home, log: (line) => logs.push(line) });
    cleanups.push(() => mw.close());
    let calls = 0;
    const mock = new MockLanguageModelV3({
      doGenerate: async () => {
        // The human rotates the agent's token while its first call runs.
        if (calls++ === 0) {
          await hub.t.hub.revokeToken(hub.agents.bot!.token);
          saveToken(home, 'default', 'bot', await hub.t.hub.issueToken('bot'));
        }
        return textAnswer('ok');
      },
    });
    const model = wrapLanguageModel({ model: mock, middleware: mw });
    const dm = await hub.human.dm({ to: 'bot', text: 'rotate me' });
    await generateText({ model, prompt: 'go', maxRetries: 0 });
    await generateText({ model, prompt: 'go', maxRetries: 0 });
    expect(mock.doGenerateCalls.map((call) => shape(call.prompt).at(-1))).toEqual([
      ['user', block(dmLine(dm, 'human', 'rotate me'))],
      ['user', block(dmLine(dm, 'human', 'rotate me'))],
    ]);
    expect(logs[0]).toMatch(/^parley: could not advance @bot's cursor/);
    expect(logs[1]).toMatch(/^parley: injected 1 chat message into the model call for @bot/);
    expect((await hub.human.sentDeliveries()).map((d) => [d.id, d.state])).toEqual([[dm.id, 'injected']]);
  });

  it('discovery - a hub that stops answering: the call goes out without chat and a log line says why; once the hub is back (on a new port) the chat comes again', async () => {
    const { home, hub } = await servedHome();
    await registerParticipant(hub.url, home, { handle: 'bot', profile: { kind: 'agent' } });
    const humanToken = (await registerParticipant(hub.url, home, { handle: 'human', profile: { kind: 'human' } })).token;
    const logs: string[] = [];
    const { mock, model } = wrapped({ handle: 'bot', home }, logs);
    await generateText({ model, prompt: 'go', maxRetries: 0 });

    expect(await hub.stop()).toBe(0);
    const result = await generateText({ model, prompt: 'go', maxRetries: 0 });
    expect(result.text).toBe('ok');
    expect(shape(mock.doGenerateCalls[1]!.prompt)).toEqual([
      ['system', promptAddendum('bot')],
      ['user', 'go'],
    ]);
    expect(logs).toEqual([`parley: no new chat for @bot this call: No hub answers at ${hub.url} (ECONNREFUSED); start one with "parley serve".`]);

    const again = await startServe(home);
    const human = new RestParticipant(again.url, humanToken);
    cleanups.push(() => human.close());
    const dm = await human.dm({ to: 'bot', text: 'back again' });
    await generateText({ model, prompt: 'go', maxRetries: 0 });
    expect(shape(mock.doGenerateCalls[2]!.prompt).at(-1)).toEqual(['user', block(dmLine(dm, 'human', 'back again'))]);
    expect((await human.sentDeliveries()).map((d) => [d.id, d.state])).toEqual([[dm.id, 'injected']]);
  });

  it('discovery - a hub that does not answer at the first call: the call goes out as it came and a log line says why', async () => {
    const { home, hub } = await servedHome();
    await registerParticipant(hub.url, home, { handle: 'bot', profile: { kind: 'agent' } });
    expect(await hub.stop()).toBe(0);
    const logs: string[] = [];
    const { mock, model } = wrapped({ handle: 'bot', url: hub.url, home }, logs);

    const result = await generateText({ model, system: 'S', prompt: 'go', maxRetries: 0 });

    expect(result.text).toBe('ok');
    expect(shape(mock.doGenerateCalls[0]!.prompt)).toEqual([
      ['system', 'S'],
      ['user', 'go'],
    ]);
    expect(logs).toEqual([`parley: no chat for @bot this call: No hub answers at ${hub.url} (ECONNREFUSED); start one with "parley serve".`]);
  });

  it('discovery - a hub that hangs (its process stopped) holds a call no longer than hubTimeoutMs: the call goes out without chat and a log line says why', async () => {
    const { home, hub } = await servedHome();
    await registerParticipant(hub.url, home, { handle: 'bot', profile: { kind: 'agent' } });
    const logs: string[] = [];
    const { mock, model } = wrapped({ handle: 'bot', home, hubTimeoutMs: 300 }, logs);
    await generateText({ model, prompt: 'go', maxRetries: 0 });

    process.kill(hub.child.pid!, 'SIGSTOP');
    cleanups.push(() => void process.kill(hub.child.pid!, 'SIGCONT'));
    const result = await generateText({ model, prompt: 'go', maxRetries: 0 });

    expect(result.text).toBe('ok');
    expect(shape(mock.doGenerateCalls[1]!.prompt)).toEqual([
      ['system', promptAddendum('bot')],
      ['user', 'go'],
    ]);
    expect(logs).toEqual([`parley: no new chat for @bot this call: The hub at ${hub.url} did not answer within 300 ms.`]);

    // A middleware not yet linked: the call goes out as it came.
    const fresh: string[] = [];
    const unlinked = wrapped({ handle: 'bot', home, hubTimeoutMs: 300 }, fresh);
    await generateText({ model: unlinked.model, system: 'S', prompt: 'go', maxRetries: 0 });
    expect(shape(unlinked.mock.doGenerateCalls[0]!.prompt)).toEqual([
      ['system', 'S'],
      ['user', 'go'],
    ]);
    expect(fresh).toEqual(['parley: no chat for @bot this call: The hub did not answer within 300 ms.']);
  });

  it('discovery - a hub that stops while two calls run: both calls return their answers; neither takes the chat, which a log line says', async () => {
    const { home, hub } = await servedHome();
    await registerParticipant(hub.url, home, { handle: 'bot', profile: { kind: 'agent' } });
    const human = await humanOf(hub.url, home);
    const dm = await human.dm({ to: 'bot', text: 'are you there?' });
    const logs: string[] = [];
    let bothRunning!: () => void;
    const running = new Promise<void>((resolve) => (bothRunning = resolve));
    const gates = [0, 1].map(() => {
      let open!: () => void;
      return { opened: new Promise<void>((resolve) => (open = resolve)), open: () => open() };
    });
    const mw = parleyMiddleware({ handle: 'bot', home, log: (line) => logs.push(line) });
    cleanups.push(() => mw.close());
    let calls = 0;
    const mock = new MockLanguageModelV3({
      doGenerate: async () => {
        const mine = calls++;
        if (mine === 1) bothRunning();
        await gates[mine]!.opened;
        return textAnswer(`answer ${mine + 1}`);
      },
    });
    const model = wrapLanguageModel({ model: mock, middleware: mw });

    const first = generateText({ model, prompt: 'go', maxRetries: 0 });
    const second = generateText({ model, prompt: 'go', maxRetries: 0 });
    await running;
    expect(await hub.stop()).toBe(0);
    gates[0]!.open();
    expect((await first).text).toBe('answer 1');
    gates[1]!.open();
    expect((await second).text).toBe('answer 2');

    expect(mock.doGenerateCalls.map((call) => shape(call.prompt).at(-1))).toEqual([
      ['user', block(dmLine(dm, 'human', 'are you there?'))],
      ['user', block(dmLine(dm, 'human', 'are you there?'))],
    ]);
    expect(logs).toEqual([
      expect.stringMatching(/^parley: could not advance @bot's cursor to \d+ \(No hub answers at .*\); the same messages come with the next call\.$/),
      expect.stringMatching(/^parley: could not advance @bot's cursor to \d+ \(No hub answers at .*\); the same messages come with the next call\.$/),
    ]);
  });
});
