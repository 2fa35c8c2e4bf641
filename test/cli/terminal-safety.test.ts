import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_FILENAME } from '../../src/config/defaults.js';
import { transact } from '../../src/hub/writer.js';
import { openTestHub } from '../helpers/hub.js';
import { startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';
import { childEnv } from '../helpers/serve.js';
import { runCli } from './run-cli.js';
import { servedCli } from './served-cli.js';

/**
 * Nothing another participant wrote reaches the terminal raw, whatever the
 * store holds: a message stored with an ESC sequence, NUL, BEL, a C1 control
 * and a bidi override (as hubs stored signed envelopes before they passed a
 * post's text rules), a presence note with a bidi override (allowed: it is
 * text), a profile with an ESC sequence, and errors quoting what was typed or
 * what a hub answered. Printed through `parley history`, `read`, `inbox`,
 * `tail`, `who` and the error line, each shows as visible escapes.
 */
const HOSTILE = '\x1b[2J\x1b[31mgotcha\x00\x07 next\u0085line \u202Eevil\u202C';
const SHOWN = '\\x1b[2J\\x1b[31mgotcha\\x00\\x07 next\\x85line \\u202eevil\\u202c';
/** Raw characters a terminal acts on; line feeds between lines are the CLI's own. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const ACTED_ON = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

let standIn: LoopbackServer | undefined;

/** The store as an attacker left it: a message by @mallory mentioning @human, with raw controls, and @mallory's client name with an ESC sequence. */
async function hostileStore(home: string): Promise<void> {
  const before = await openTestHub({ home });
  const human = await before.hub.join({ handle: 'human', profile: { kind: 'human' } });
  const mallory = await before.hub.join({ handle: 'mallory' });
  const { ctx } = before.hub.internals;
  const general = [...ctx.state.threads.values()].find((th) => th.name === 'general')!;
  await transact(ctx, (tx) =>
    tx.append({ thread: general, type: 'message', from: mallory.participant.id, to: 'all', content: `@human ${HOSTILE}`, reach: new Map([[human.participant.id, 'mention']]) }),
  );
  await before.close();
  const db = new Database(path.join(home, STORE_FILENAME));
  db.prepare("UPDATE participants SET profile = json_set(profile, '$.client', ?) WHERE handle = 'mallory'").run('\x1b]0;pwned\x07cli');
  db.close();
}

const served = servedCli({ prefix: 'parley-terminal-', prepare: hostileStore, env: { NO_COLOR: '1' }, join: [['human'], ['mallory']] });
const cli = served.cli;

beforeAll(async () => {
  expect((await served.rest('mallory', 'PUT', '/presence', { state: 'thinking', note: 'reading \u202Eevil\u202C' })).status).toBe(200);
});

afterAll(async () => {
  await standIn?.close();
});

const printed = (...args: string[]): Promise<string> => served.ok(...args, '--as', 'human');

describe('cli terminal safety', () => {
  it('terminal safety - history, read and inbox print a stored ESC sequence, NUL, BEL, C1 control and bidi override as visible escapes', async () => {
    for (const out of [await printed('history', 'general'), await printed('inbox', '--peek'), await printed('read', 'general')]) {
      expect(out).toContain(`@mallory: @human ${SHOWN}`);
      expect(out).not.toMatch(ACTED_ON);
    }
    // --json is the same JSON to a program, and nothing a terminal acts on either.
    const json = await printed('history', 'general', '--json');
    expect(json).not.toMatch(ACTED_ON);
    expect((JSON.parse(json) as { events: Array<{ content: unknown }> }).events.map((e) => e.content)).toContain(`@human ${HOSTILE}`);
  }, 60_000);

  it('terminal safety - tail prints the stored message escaped', async () => {
    const tail = served.follow('tail', 'general', '--last', '5', '--as', 'human');
    await tail.until('evil');
    tail.child.kill('SIGTERM');
    const seen = tail.output();
    expect(seen).toContain(`@mallory: @human ${SHOWN}`);
    expect(seen).not.toMatch(ACTED_ON);
  }, 60_000);

  it('terminal safety - who prints a presence note with a bidi override and a profile with an ESC sequence as escapes', async () => {
    const who = await printed('who');
    expect(who).toContain('— reading \\u202eevil\\u202c');
    expect(who).toContain('(\\x1b]0;pwned\\x07cli)');
    expect(who).not.toMatch(ACTED_ON);
  }, 60_000);

  it('terminal safety - an error line quoting what was typed, or what a hub answered, is one line of escapes', async () => {
    const unknownThread = await cli('history', '\u202Eevil', '--as', 'human');
    expect(unknownThread.status).toBe(1);
    expect(unknownThread.stderr).toMatch(/^parley: No thread "\\u202eevil" in session "default"/);
    const typed = await cli('history', 'general', '--\x1b[2J', '--as', 'human');
    expect(typed.status).toBe(2);
    expect(typed.stderr).toContain('unknown option "--\\x1b[2J"');
    // A server at the hub's address that answers an error with raw controls in it.
    standIn = await startLoopbackServer((_req, _body, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'INVALID_INPUT', message: `Bad thread\n${HOSTILE}` } }));
    });
    const answered = await runCli(['history', 'general', '--as', 'human'], childEnv(served.home, { PARLEY_URL: standIn.url, NO_COLOR: '1' }));
    expect(answered.status).toBe(2);
    expect(answered.stderr).toBe(`parley: Bad thread\\x0a${SHOWN}\n`);
    for (const run of [unknownThread, typed, answered]) {
      expect(run.stderr).not.toMatch(ACTED_ON);
      expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
    }
  }, 60_000);
});
