import { describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/hub.js';
import { restCall, type Json } from '../helpers/serve.js';
import { servedCli } from './served-cli.js';

/**
 * `parley join` under a roster that leaves the handle's key out: it joins
 * (the token works once the key is added) and warns, on stderr and in
 * --json, with the commands that add the key — which, run as printed, do.
 */
describe('parley join with a roster in force (a real hub, the CLI in child processes)', () => {
  const served = servedCli({ throughHome: true, join: [['boss', 'human']] });
  const cli = served.cli;

  it('join - local mode: no warning; under a roster: a newcomer joins with a warning naming it, NOT_IN_ROSTER and the commands that add its key', async () => {
    const local = await cli('join', 'coder-2');
    expect([local.status, local.stderr]).toEqual([0, '']);
    const init = await cli('roster', 'init', '--org', 'acme');
    expect(init.status, init.stderr).toBe(0);

    const joined = await cli('join', 'coder-3', '--home', served.home);
    expect(joined.status, joined.stderr).toBe(0);
    const token = /Token \(also saved in the home\): (\S+)/.exec(joined.stdout)?.[1];
    expect(token).toBeDefined();
    const warning = /^parley: warning: (.*)$/m.exec(joined.stderr)?.[1];
    expect(warning).toMatch(
      /^@coder-3 is not in roster acme v1: its calls will fail with NOT_IN_ROSTER until an admin adds its key\. Add it with: parley roster add ed25519:[\w-]{43} --role member --home \S+ && parley roster sign --home \S+$/,
    );
    expect((await restCall(served.hub, token!, 'GET', '/threads')).json.error).toMatchObject({ code: 'NOT_IN_ROSTER' });

    // The commands, run as printed, put the key in the roster: the same token now works.
    const commands = warning!.slice(warning!.indexOf('parley roster add')).split(' && ');
    for (const command of commands) {
      const [, ...args] = command.split(' ');
      const ran = await cli(...args);
      expect(ran.status, ran.stderr).toBe(0);
    }
    expect((await restCall(served.hub, token!, 'GET', '/whoami')).json).toMatchObject({ access: 'member', trust: { mode: 'roster', org: 'acme', version: 2 } });
    expect((await restCall(served.hub, token!, 'GET', '/threads')).status).toBe(200);

    // A member joining again is not warned.
    const again = await cli('join', 'coder-3');
    expect([again.status, again.stderr]).toEqual([0, '']);
  });

  it('install - an agent CLI installed under a roster that leaves its handle out is warned the same way at its join', async () => {
    const { home: project, cleanup: removeProject } = tempHome('parley-project-');
    try {
      const installed = await cli('install', 'claude', '--as', 'coder-5', '--dir', project);
      expect(installed.status, installed.stderr).toBe(0);
      expect(installed.stderr).toMatch(/^parley: warning: @coder-5 is not in roster acme v\d+: its calls will fail with NOT_IN_ROSTER .* Add it with: parley roster add ed25519:\S+ --role member/m);
    } finally {
      removeProject();
    }
  });

  it('join --json - the answer says access null under the roster and carries the warning; a member\'s has access and no warning', async () => {
    const joined = await cli('join', 'coder-4', '--json');
    expect(joined.status, joined.stderr).toBe(0);
    const answer = JSON.parse(joined.stdout) as Json;
    expect(answer).toMatchObject({ participant: { handle: 'coder-4' }, session: { name: 'default' }, access: null, trust: { mode: 'roster', org: 'acme' } });
    expect(answer.token).toMatch(/\S{20,}/);
    expect(answer.warning).toMatch(/^@coder-4 is not in roster acme v\d+: its calls will fail with NOT_IN_ROSTER .* Add it with: parley roster add ed25519:\S+ --role member && parley roster sign$/);
    expect(joined.stderr).toBe(`parley: warning: ${answer.warning}\n`);

    const member = JSON.parse((await cli('join', 'boss', '--json')).stdout) as Json;
    expect(member).toMatchObject({ access: 'admin', trust: { mode: 'roster' } });
    expect(member).not.toHaveProperty('warning');
  });
});
