import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { COMMANDS, GROUPS, subcommands } from '../../src/cli/commands.js';
import { main } from '../../src/cli/main.js';
import { BIN } from '../helpers/serve.js';

/**
 * Every command and group answers --help, -h and `parley help …` with its
 * own help on stdout and exit 0; `parley --help` lists every command. The
 * list is read from the CLI's command table, so a command added later is
 * checked here without changing this test.
 */
let out = '';
let err = '';

beforeEach(() => {
  out = '';
  err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((out += String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((err += String(chunk)), true));
});

afterEach(() => {
  vi.restoreAllMocks();
});

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  out = '';
  err = '';
  const code = await main(argv);
  return { code, out, err };
}

/** Every way to name a command on the command line: "say", "thread create", "token rotate", "serve"... */
function everyCommand(): string[][] {
  return Object.keys(COMMANDS).map((name) => name.split(' '));
}

const verbsOf = (group: string): string[] => subcommands(group).map(([verb]) => verb);

describe('help', () => {
  it('help - every command answers --help, -h and "parley help COMMAND" with its own usage, exit 0', async () => {
    const commands = everyCommand();
    expect(commands.length).toBeGreaterThan(35);
    for (const words of commands) {
      const usage = `Usage: parley ${words.join(' ')}`;
      for (const argv of [[...words, '--help'], [...words, '-h'], ['help', ...words]]) {
        const answer = await run(...argv);
        expect(answer.code, argv.join(' ')).toBe(0);
        expect(answer.err, argv.join(' ')).toBe('');
        expect(answer.out.startsWith(usage), `${argv.join(' ')} printed: ${answer.out.slice(0, 80)}`).toBe(true);
      }
    }
  });

  it('help - each group answers --help and "parley help GROUP" by listing its subcommands, exit 0', async () => {
    for (const group of Object.keys(GROUPS)) {
      for (const argv of [[group, '--help'], [group, '-h'], ['help', group]]) {
        const answer = await run(...argv);
        expect(answer.code, argv.join(' ')).toBe(0);
        expect(answer.out).toContain(`Usage: parley ${group} <`);
        for (const verb of verbsOf(group)) expect(answer.out, `${argv.join(' ')} lists ${verb}`).toContain(`${group} ${verb}`);
      }
    }
    expect(verbsOf('thread')).toEqual(expect.arrayContaining(['create', 'rename', 'side', 'close']));
    expect(verbsOf('meeting')).toEqual(expect.arrayContaining(['join', 'leave', 'say', 'hear', 'who', 'status']));
  });

  it('help - "parley --help" lists every command; an unknown command or subcommand is a usage error', async () => {
    const global = await run('--help');
    expect(global.code).toBe(0);
    for (const words of everyCommand()) {
      const listed = words.length === 1 ? new RegExp(`^  ${words[0]}\\b`, 'm') : new RegExp(`^  ${words[0]} .*\\b${words[1]}\\b`, 'm');
      expect(global.out, `--help lists ${words.join(' ')}`).toMatch(listed);
    }
    expect((await run('help')).out).toBe(global.out);
    // Words that name something every JavaScript object has are no commands either.
    const unknown = [['help', 'frobnicate'], ['thread', 'frobnicate'], ['help', 'thread', 'frobnicate'], ['thread'], ['constructor'], ['toString'], ['thread', 'constructor'], ['help', 'hasOwnProperty'], ['help', 'thread', '__proto__']];
    for (const argv of unknown) {
      const answer = await run(...argv);
      expect(answer.code, argv.join(' ')).toBe(2);
      expect(answer.err.trim().split('\n'), argv.join(' ')).toHaveLength(1);
    }
  });

  it('help - an unknown option is one balanced line naming the option and the help to read, exit 2', async () => {
    for (const [argv, hint] of [
      [['say', 'general', 'hi', '--frob'], 'parley say --help'],
      [['thread', 'create', 'x', '--frob'], 'parley thread create --help'],
      [['status', '--frob'], 'parley status --help'],
      [['token', 'rotate', 'x', '--frob'], 'parley token rotate --help'],
    ] as const) {
      const answer = await run(...argv);
      expect(answer.code).toBe(2);
      const line = answer.err.trim();
      expect(line.split('\n')).toHaveLength(1);
      expect(line).toContain('"--frob"');
      expect(line).toContain(`run "${hint}"`);
      expect(line.split('"').length % 2, line).toBe(1);
      expect(line.split("'").length % 2, line).toBe(1);
    }
    const missing = await run('say', 'general', 'hi', '--as');
    expect(missing.err.trim()).toBe('parley: option "--as" needs a value; run "parley say --help".');
  });

  it('help - the real command: "parley thread --help", "parley meeting --help" and "parley help say" exit 0 with their own help', () => {
    const cli = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 20_000 });
    const thread = cli('thread', '--help');
    expect(thread.status).toBe(0);
    expect(thread.stdout).toContain('thread create NAME');
    const meeting = cli('meeting', '--help');
    expect(meeting.status).toBe(0);
    expect(meeting.stdout).toContain('meeting hear NAME');
    const say = cli('help', 'say');
    expect(say.status).toBe(0);
    expect(say.stdout).toMatch(/^Usage: parley say THREAD TEXT/);
  });

  it('help - "parley help version" says what version does, not the whole list', async () => {
    const answer = await run('help', 'version');
    expect(answer.code).toBe(0);
    expect(answer.out).toBe('Usage: parley version (also --version, -v)\n\nPrints the version of this Parley.\n');
  });

  it('help - "parley mcp --help" shows an MCP entry with the full path of bin/parley, not npx', async () => {
    const answer = await run('mcp', '--help');
    expect(answer.code).toBe(0);
    expect(answer.out).not.toContain('npx');
    expect(answer.out).toContain('{"command": "/path/to/parley/bin/parley", "args": ["mcp", "--as", "coder-1"]}');
  });
});
