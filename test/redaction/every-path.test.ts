import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REDACTION_NOTE } from '../../src/config/defaults.js';
import { joinOver, type RunningHub } from '../helpers/serve.js';
import { servedHubsPerTest } from '../helpers/served-hub.js';
import { awsAccessKeyId, awsSecretAccessKey, base62, generatedPrivateKeys, githubPat, jwt, randomFrom, slackBotToken } from './fixtures.js';

/**
 * Secrets an author supplies anywhere — message text, tags, request params and
 * intent, response results, side-channel titles and summaries, thread renames,
 * profiles, presence notes, meeting lines, invitations — are never stored or
 * served as given. Each input path gets its own set of realistic fake secrets,
 * posted through a real hub process over REST and MCP; then every read path,
 * the live streams and the raw bytes of every file in the home are searched for
 * every one of them.
 */

const SESSION = 'redaction';

interface SecretSet {
  awsId: string;
  awsSecret: string;
  ghp: string;
  slack: string;
  jwt: string;
  pem: string;
  /** All of them as an agent might paste them into a message. */
  text: string;
}

/** Every secret handed out, by the input path it was handed to, and the strings that must never reappear. */
class SecretBook {
  readonly needles: Array<{ path: string; needle: string }> = [];

  set(inputPath: string): SecretSet {
    const pem = generatedPrivateKeys()['ed25519 pkcs8']!;
    const s = { awsId: awsAccessKeyId(), awsSecret: awsSecretAccessKey(), ghp: githubPat(), slack: slackBotToken(), jwt: jwt(), pem };
    for (const value of [s.awsId, s.awsSecret, s.ghp, s.slack, s.jwt]) this.needles.push({ path: inputPath, needle: value });
    // A JWT's signature alone, and a key's base64 body (stored JSON escapes the key's newlines, so search its lines).
    this.needles.push({ path: inputPath, needle: s.jwt.split('.')[2]! });
    for (const line of pem.split('\n')) if (!line.startsWith('-----')) this.needles.push({ path: inputPath, needle: line });
    const text = [
      'deploy creds for the release:',
      `aws_access_key_id = ${s.awsId}`,
      `aws_secret_access_key = ${s.awsSecret}`,
      `GH_TOKEN=${s.ghp}`,
      `slack bot ${s.slack}`,
      `Authorization: Bearer ${s.jwt}`,
      s.pem,
      'thanks!',
    ].join('\n');
    return { ...s, text };
  }

  /** A secret that only fits a name (a channel name is lowercase letters, digits, "_" and "-"). */
  nameShaped(inputPath: string): string {
    const name = 'gh' + 'p_' + randomFrom('abcdefghijklmnopqrstuvwxyz0123456789', 36);
    this.needles.push({ path: inputPath, needle: name });
    return name;
  }

  /** "input path → read path" for every needle found in `haystack`. */
  leaksIn(readPath: string, haystack: string | Buffer): string[] {
    return this.needles.filter(({ needle }) => haystack.includes(needle)).map(({ path: from }) => `${from} → ${readPath}`);
  }
}

/** JSON params and results holding secrets at several depths, under a key only a label gives away, and as a key. */
function structured(s: SecretSet): Record<string, unknown> {
  return {
    target: 'production',
    aws: { aws_access_key_id: s.awsId, aws_secret_access_key: s.awsSecret },
    headers: [{ name: 'Authorization', value: `Bearer ${s.jwt}` }],
    tokens: { [s.ghp]: 'ci', slack: s.slack },
    key: s.pem,
    retries: 3,
  };
}

interface Answer {
  status: number;
  text: string;
  json: Record<string, unknown>;
}

function restAs(hub: RunningHub, token: string) {
  return async (method: string, route: string, body?: unknown): Promise<Answer> => {
    const res = await fetch(`${hub.url}/api/v1${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // Markdown export and the like.
    }
    return { status: res.status, text, json };
  };
}

const fieldOf = (answer: Answer): unknown => (answer.json.error as { field?: string } | undefined)?.field;

/** Reads a live stream in the background until `marker` has gone by; resolves with everything read. */
async function streamUntil(hub: RunningHub, token: string, marker: string): Promise<{ text: Promise<string>; abort: () => void }> {
  const controller = new AbortController();
  const res = await fetch(`${hub.url}/api/v1/stream`, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, signal: controller.signal });
  expect(res.status).toBe(200);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let read = '';
  const text = (async () => {
    try {
      while (!read.includes(marker)) {
        const { value, done } = await reader.read();
        if (done) break;
        read += value;
      }
    } catch {
      // Aborted, or the hub went away: what was read is the answer.
    }
    controller.abort();
    return read;
  })();
  return { text, abort: () => controller.abort() };
}

/** Every file under `dir`, with its raw bytes. */
function filesUnder(dir: string): Array<{ name: string; bytes: Buffer }> {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => {
      const file = path.join(entry.parentPath, entry.name);
      return { name: path.relative(dir, file), bytes: fs.readFileSync(file) };
    });
}

const served = servedHubsPerTest();

describe('redaction on every path', () => {
  it('every path - secrets sent through every input are absent from every read path, the live streams and the files of the home', { timeout: 180_000 }, async () => {
    // alice and carol invite (a control, over REST and MCP): an admin's.
    const running = await served.serve(served.home('parley-redaction-'), { config: { trust: { access: { alice: 'admin', carol: 'admin' } } } });
    const { hub, home } = running;
    const book = new SecretBook();
    const leaks: string[] = [];
    const expectOk = (label: string, answer: Answer): Answer => {
      expect(answer.status, `${label}: ${answer.text}`).toBeLessThan(300);
      return answer;
    };

    // Participants: alice posts over REST, carol over MCP, bob (a human) answers and reads.
    const tokens = {
      alice: await joinOver(hub, { handle: 'alice', session: SESSION }),
      bob: await joinOver(hub, { handle: 'bob', session: SESSION, profile: { kind: 'human' } }),
      carol: await joinOver(hub, { handle: 'carol', session: SESSION }),
    };
    const joinSecrets = book.set('join profile');
    await joinOver(hub, { handle: 'erin', session: SESSION, profile: { nickname: joinSecrets.ghp, client: joinSecrets.awsId, model: `m ${joinSecrets.slack}` } });
    const alice = restAs(hub, tokens.alice);
    const bob = restAs(hub, tokens.bob);
    const carolRest = restAs(hub, tokens.carol);

    const MARKER = `end-of-inputs-${base62(12)}`;
    const streams = await Promise.all(Object.values(tokens).map((token) => streamUntil(hub, token, MARKER)));
    const carol = await running.mcp(tokens.carol, '?rooms=all');
    const mcp = async (label: string, tool: string, args: Record<string, unknown>) => {
      const result = await carol.call(tool, args);
      expect(result.isError, `${label}: ${result.text}`).toBe(false);
      return result.value;
    };

    // REST inputs ------------------------------------------------------------
    let s = book.set('REST post (text, tags)');
    expectOk('post', await alice('POST', '/threads/general/messages', { text: s.text, tags: [s.ghp, s.slack] }));
    s = book.set('REST dm (text, tags)');
    expectOk('dm', await alice('POST', '/dm', { to: 'bob', text: s.text, tags: [s.ghp] }));
    s = book.set('REST request (intent, params, text)');
    const request = expectOk('request', await alice('POST', '/requests', { to: 'bob', intent: `rotate ${s.ghp}`, params: structured(s), text: s.text }));
    s = book.set('REST response (result, text)');
    expectOk('respond', await bob('POST', `/requests/${request.json.request_id as string}/responses`, { status: 'Completed', result: structured(s), text: s.text }));

    s = book.set('REST side channel (title, rename, summary)');
    const side = expectOk('side open', await alice('POST', '/threads/general/side', { title: `incident ${s.ghp} ${s.awsId}` }));
    const sideId = side.json.id as string;
    expect.soft(side.json.name).toBe('incident [redacted] [redacted]');
    expectOk('side rename', await alice('POST', `/threads/${sideId}/rename`, { name: `renamed ${s.jwt}` }));
    expectOk('side message', await alice('POST', `/threads/${sideId}/messages`, { text: `in the side: ${s.slack}` }));
    const closed = expectOk('side close', await alice('POST', `/threads/${sideId}/close`, { summary: s.text }));
    expect.soft(closed.json.redacted).toBe(true);

    s = book.set('REST profile');
    const profile = expectOk('profile', await alice('PATCH', '/profile', { nickname: s.ghp, client: s.awsId, model: `model ${s.slack}` }));
    expect
      .soft((profile.json.participant as { profile: Record<string, unknown> }).profile)
      .toMatchObject({ nickname: '[redacted]', client: '[redacted]', model: 'model [redacted]' });
    s = book.set('REST presence note');
    expectOk('presence', await alice('PUT', '/presence', { state: 'thinking', note: `waiting on ${s.ghp}` }));
    s = book.set('REST meeting say');
    expectOk('meeting say', await alice('POST', '/meetings/standup/say', { text: s.text }));
    s = book.set('REST invite profile');
    expectOk('invite', await alice('POST', '/threads/general/controls', { invite: { participant_id: 'dave', profile: { nickname: s.ghp, model: `m ${s.slack}` } } }));

    // Names that address something cannot be rewritten: a secret there is refused, and nothing is stored.
    // (Soft checks: on failure the test goes on, to list every leak at the end.)
    const created = await alice('POST', '/threads', { name: book.nameShaped('REST channel create name') });
    expect.soft([created.status, fieldOf(created)]).toEqual([400, 'name']);
    expectOk('ops channel', await alice('POST', '/threads', { name: 'ops' }));
    const renamed = await alice('POST', '/threads/ops/rename', { name: book.nameShaped('REST channel rename') });
    expect.soft([renamed.status, fieldOf(renamed)]).toEqual([400, 'name']);
    s = book.set('REST request id');
    const badId = await alice('POST', '/requests', { to: 'bob', intent: 'check', request_id: s.ghp });
    expect.soft([badId.status, fieldOf(badId)]).toEqual([400, 'request_id']);

    // MCP inputs -------------------------------------------------------------
    s = book.set('MCP chat_post (text, tags)');
    expect.soft(await mcp('chat_post', 'chat_post', { thread: 'general', text: s.text, tags: [s.ghp] })).toMatchObject({ redacted: true });
    s = book.set('MCP chat_dm');
    await mcp('chat_dm', 'chat_dm', { to: 'bob', text: s.text });
    s = book.set('MCP request_send (intent, params, text)');
    await mcp('request_send', 'request_send', { to: 'bob', intent: `rotate ${s.awsId}`, params: structured(s), text: s.text });
    const ask = expectOk('request to carol', await alice('POST', '/requests', { to: 'carol', intent: 'fetch-credentials', params: { env: 'staging' } }));
    s = book.set('MCP request_respond (result, text)');
    await mcp('request_respond', 'request_respond', { request_id: ask.json.request_id, status: 'Completed', result: structured(s), text: s.text });
    s = book.set('MCP side_open and side_close');
    const mcpSide = await mcp('side_open', 'side_open', { parent: 'general', title: `debug ${s.ghp}` });
    await mcp('side_close', 'side_close', { thread: mcpSide.id, summary: s.text });
    s = book.set('MCP presence_set');
    await mcp('presence_set', 'presence_set', { state: 'typing', note: `token ${s.slack}` });
    s = book.set('MCP meeting_say');
    await mcp('meeting_say', 'meeting_say', { meeting: 'standup', text: s.text });
    s = book.set('MCP steer_invite profile');
    await mcp('steer_invite', 'steer_invite', { thread: 'general', participant: 'frank', profile: { nickname: s.ghp, client: s.awsId } });
    expect.soft((await carol.call('chat_thread_create', { name: book.nameShaped('MCP chat_thread_create name') })).isError).toBe(true);

    expectOk('marker', await alice('POST', '/threads/general/messages', { text: MARKER }));

    // Read paths -------------------------------------------------------------
    const streamed = await Promise.all(streams.map((stream) => stream.text));
    for (const [i, text] of streamed.entries()) {
      expect(text).toContain(MARKER);
      leaks.push(...book.leaksIn(`live stream of ${Object.keys(tokens)[i]}`, text));
    }
    // The stream carried the redacted events, presence notes and meeting lines.
    expect.soft(streamed[1]).toContain('[redacted]');
    expect.soft(streamed[1]).toContain('waiting on [redacted]');

    let redactedFlags = 0;
    for (const [who, rest] of [['alice', alice], ['bob', bob], ['carol', carolRest]] as const) {
      const read = async (route: string): Promise<Answer> => {
        const answer = expectOk(`${who} GET ${route}`, await rest('GET', route));
        leaks.push(...book.leaksIn(`REST ${route} as ${who}`, answer.text));
        return answer;
      };
      const threads = (await read('/threads')).json.threads as Array<{ id: string }>;
      for (const thread of threads) {
        await read(`/threads/${thread.id}`);
        const history = await read(`/threads/${thread.id}/history?limit=1000`);
        for (const event of history.json.events as Array<{ meta?: { redacted?: boolean } }>) if (event.meta?.redacted) redactedFlags += 1;
        await read(`/threads/${thread.id}/new`);
        await read(`/threads/${thread.id}/export?format=markdown`);
        await read(`/threads/${thread.id}/export?format=jsonl`);
      }
      await read('/inbox?peek=true&limit=500');
      await read('/inbox?limit=500');
      await read('/deliveries?state=acknowledged');
      await read('/requests/open');
      await read('/presence');
      await read('/participants');
      await read('/whoami');
      await read('/meetings');
      await read('/meetings/standup/hear?last_heard=0');
      await read('/meetings/standup/ring');
      for (const word of ['deploy', 'incident', 'renamed', 'rotate', 'side', 'thanks']) await read(`/search?q=${word}&limit=1000`);
      for (const { needle } of book.needles) {
        const answer = await rest('GET', `/search?q=${encodeURIComponent(needle.slice(0, 400))}&limit=1000`);
        leaks.push(...book.leaksIn(`REST search as ${who}`, answer.text));
        // A secret that was indexed would be found by its own words.
        if (answer.status === 200) expect.soft((answer.json.events as unknown[]).length, `search for a ${needle.length}-char secret as ${who}`).toBe(0);
      }
    }
    // Messages, requests, responses, the side channel's events and the invitations are flagged.
    expect.soft(redactedFlags).toBeGreaterThan(10);
    // A request keeps its shape: each secret replaced in place, the note only at the end of its text.
    const found = (await bob('GET', '/search?q=rotate')).json.events as Array<{ type: string; content: { params: Record<string, unknown>; text: string }; meta?: { redacted?: boolean } }>;
    const asked = found.find((event) => event.type === 'request');
    expect.soft(asked?.meta?.redacted).toBe(true);
    expect
      .soft(asked?.content.params)
      .toMatchObject({ target: 'production', aws: { aws_secret_access_key: '[redacted]' }, tokens: { '[redacted]': 'ci' }, key: '[redacted]', retries: 3 });
    expect.soft(JSON.stringify(asked?.content.params)).not.toContain(REDACTION_NOTE);
    expect.soft(asked?.content.text.endsWith(REDACTION_NOTE)).toBe(true);

    // MCP reads, as carol and as bob (who has the DMs).
    const bobMcp = await running.mcp(tokens.bob, '?rooms=all');
    for (const [who, client] of [['carol', carol], ['bob', bobMcp]] as const) {
      const read = async (tool: string, args: Record<string, unknown> = {}) => {
        const result = await client.call(tool, args);
        expect(result.isError, `${who} ${tool}: ${result.text}`).toBe(false);
        leaks.push(...book.leaksIn(`MCP ${tool} as ${who}`, result.text));
        return result.value;
      };
      const threads = (await read('chat_threads')).threads as Array<{ id: string }>;
      expect(threads.length).toBeGreaterThan(2);
      for (const thread of threads) await read('chat_history', { thread: thread.id, limit: 500 });
      await read('who');
      await read('whoami');
      await read('inbox');
      await read('requests_open');
      await read('meeting_hear', { meeting: 'standup', last_heard: 0 });
      for (const word of ['deploy', 'incident', 'rotate']) await read('chat_search', { query: word });
    }

    // The files of the home, while the hub runs (the WALs hold the newest pages) and after it stopped.
    for (const file of filesUnder(home)) leaks.push(...book.leaksIn(`file ${file.name} (hub running)`, file.bytes));
    await carol.close();
    await bobMcp.close();
    for (const stream of streams) stream.abort();
    expect(await hub.stop()).toBe(0);
    const files = filesUnder(home);
    expect(files.map((f) => f.name)).toEqual(expect.arrayContaining(['parley.db', 'search.db']));
    for (const file of files) leaks.push(...book.leaksIn(`file ${file.name} (hub stopped)`, file.bytes));
    leaks.push(...book.leaksIn('the hub log', hub.output()));

    expect([...new Set(leaks)]).toEqual([]);
  });
});
