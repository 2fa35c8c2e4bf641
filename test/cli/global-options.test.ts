import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/hub.js';
import { childEnv, startServe, stopHubs, type RunningHub } from '../helpers/serve.js';
import { runCli } from './run-cli.js';

/**
 * The options `parley --help` lists as global (--home, --url, --config, --as,
 * --session, --json, --help) work before the command as well as after it,
 * for plain commands, conversation commands and group subcommands alike.
 */
let hub: RunningHub;
let home: string;
let elsewhere: string;
const cleanups: Array<() => void> = [];

beforeAll(async () => {
  const made = tempHome();
  home = made.home;
  cleanups.push(made.cleanup);
  // The environment names another, empty home: only a --home before the command reaches the hub.
  const other = tempHome();
  elsewhere = other.home;
  cleanups.push(other.cleanup);
  hub = await startServe(home);
}, 120_000);

afterAll(async () => {
  await stopHubs();
  for (const cleanup of cleanups) cleanup();
});

const cli = (...args: string[]) => runCli(args, childEnv(elsewhere));

describe('global options before the command', () => {
  it('global options - --home before "join" registers on that home’s hub and keeps the token there', async () => {
    const joined = await cli('--home', home, 'join', 'human', '--kind', 'human');
    expect(joined.stderr).toBe('');
    expect(joined.status).toBe(0);
    expect(joined.stdout).toContain('human');
    expect(fs.existsSync(path.join(elsewhere, 'hub.lock.json'))).toBe(false);
  });

  it('global options - --home, --as and --json before a conversation command and a group subcommand', async () => {
    const said = await cli(`--home=${home}`, '--as', 'human', '--json', 'say', 'general', 'hello');
    expect(said.stderr).toBe('');
    expect(said.status).toBe(0);
    expect(JSON.parse(said.stdout)).toMatchObject({ seq: expect.any(Number), id: expect.any(String) });

    const created = await cli('--home', home, '--as', 'human', 'thread', 'create', 'design');
    expect(created.stderr).toBe('');
    expect(created.stdout).toMatch(/^created #design/);

    // --url before the command, the other options after it.
    const history = await cli('--url', hub.url, 'history', 'general', '--home', home, '--as', 'human');
    expect(history.status).toBe(0);
    expect(history.stdout).toContain('@human: hello');
  });

  it('global options - --help before a command shows its help; an unknown or incomplete option before it is a usage error', async () => {
    const help = await cli('--help', 'say');
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: parley say THREAD TEXT/);
    const groupHelp = await cli('-h', 'thread');
    expect(groupHelp.status).toBe(0);
    expect(groupHelp.stdout).toMatch(/^Usage: parley thread </);

    const unknown = await cli('--bogus', 'join', 'x');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/^parley: unknown option "--bogus" before the command \(the options that may go there: --home, --url, --config, --as, --session, --json/);
    const bare = await cli('--home');
    expect(bare.status).toBe(2);
    expect(bare.stderr).toBe('parley: option "--home" needs a value; run "parley --help".\n');

    // An option the command does not take is refused by the command, as it would be after it.
    const refused = await cli('--as', 'human', 'status', '--home', home);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('unknown option "--as"');
  });
});
