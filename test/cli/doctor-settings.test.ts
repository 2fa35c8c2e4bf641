import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { childEnv, joinOver, startServe } from '../helpers/serve.js';
import { runCli } from './run-cli.js';
import { homePerTest } from './home-per-test.js';

/**
 * `parley doctor` shows the settings of the hub running on the home (its
 * flags and environment included), which it asks through the admin route
 * GET /api/v1/hub/config, and says so; with no hub it shows the config
 * file's, and says that.
 */
const newHome = homePerTest();

interface Report {
  ok: boolean;
  checks: Array<{ name: string; ok: boolean; detail: string }>;
}

async function doctor(home: string): Promise<Record<string, string>> {
  const run = await runCli(['doctor', '--json'], childEnv(home));
  const report = JSON.parse(run.stdout) as Report;
  return Object.fromEntries(report.checks.map((c) => [c.name, c.detail]));
}

describe('doctor and the running hub', () => {
  it('doctor - shows the running hub’s retention (set by a flag), then the config file’s once it stops', async () => {
    const home = newHome();
    fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({ retention: { hours: 48 } }));
    const hub = await startServe(home, { args: ['--set', 'retention.messages=3'] });

    const running = await doctor(home);
    expect(running.settings).toBe(`settings of the running hub (pid ${hub.child.pid})`);
    expect(running.retention).toContain('keeps 48 h or the 3 newest events of each thread');

    expect(await hub.stop()).toBe(0);
    const stopped = await doctor(home);
    expect(stopped.settings).toBe('settings from the config file; no hub runs');
    expect(stopped.retention).toContain('keeps 48 h or the 10000 newest events of each thread');
  });

  it('hub config route - the admin token reads the settings in force, secrets left out; a participant token is refused', async () => {
    const home = newHome();
    const adapterKey = 'sk-adapter-key-never-shown';
    fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({ coordinator: { agents: { coder: { command: ['true'], env: { API_KEY: adapterKey } } } } }));
    const password = 'hub-password-never-shown';
    const hub = await startServe(home, { env: { PARLEY_WEBUI_PASSWORD: password }, args: ['--set', 'chat.limits.maxMessageChars=2000'] });

    const answer = await fetch(`${hub.url}/api/v1/hub/config`, { headers: { authorization: `Bearer ${hub.adminToken()}` } });
    expect(answer.status).toBe(200);
    const text = await answer.text();
    expect(text).not.toContain(password);
    expect(text).not.toContain(adapterKey);
    const body = JSON.parse(text) as { pid: number; config: Record<string, Record<string, unknown>> };
    expect(body.pid).toBe(hub.child.pid);
    expect(body.config.chat!.limits).toMatchObject({ maxMessageChars: 2000 });
    expect(body.config.retention).toMatchObject({ hours: 72, messages: 10000 });
    expect(body.config.webui).toMatchObject({ passwordSet: true });
    expect(body.config.webui).not.toHaveProperty('password');
    expect((body.config.coordinator!.agents as Record<string, { env: Record<string, string> }>).coder!.env).toEqual({ API_KEY: '[secret]' });

    const token = await joinOver(hub, { handle: 'coder' });
    const refused = await fetch(`${hub.url}/api/v1/hub/config`, { headers: { authorization: `Bearer ${token}` } });
    expect(refused.status).toBe(401);

    const document = (await (await fetch(`${hub.url}/api/v1/openapi.json`, { headers: { authorization: `Bearer ${token}` } })).json()) as { paths: Record<string, Record<string, { security: unknown[] }>> };
    expect(document.paths['/api/v1/hub/config']?.get?.security).toEqual([{ adminToken: [] }]);
  });
});
