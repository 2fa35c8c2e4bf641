import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

// The built script, as bench/mcp.ts runs it (npm run build first).
const ECHO = fileURLToPath(new URL('../../dist/bench/mcp-echo-server.js', import.meta.url));

let child: ChildProcess | undefined;
afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = once(child, 'exit');
    child.kill();
    await exited;
  }
  child = undefined;
});

describe('the MCP echo server the benchmarks compare with', () => {
  it('echo server - answers a request whose body is not JSON with a 500 and goes on serving', async () => {
    const started = spawn(process.execPath, [ECHO, 'http'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    let stderr = '';
    started.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const [first] = (await once(started.stdout, 'data')) as [Buffer];
    const url = `http://127.0.0.1:${first.toString('utf8').trim()}/mcp`;

    const bad = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{not json' });
    expect(bad.status).toBe(500);
    await expect.poll(() => stderr).toContain('mcp-echo-server: SyntaxError');
    // Still up: a request with no session and no initialize is refused as before.
    const next = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(next.status).toBe(400);
  });
});
