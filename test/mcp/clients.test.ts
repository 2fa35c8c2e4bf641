import fs from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/hub.js';
import { BIN, childEnv, joinOver, startServe, stopHubs, type RunningHub } from '../helpers/serve.js';
import { testToolsInstalled, toolPath, TOOLS_WAIT_MS } from '../helpers/test-tools.js';

/**
 * Third-party MCP clients against a real hub: the MCP Inspector's CLI over
 * both transports, and the MCP conformance suite over Streamable HTTP.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const INSPECTOR = toolPath('@modelcontextprotocol/inspector/cli/build/cli.js');
const CONFORMANCE = toolPath('@modelcontextprotocol/conformance/dist/index.js');

let hub: RunningHub;
let home: string;
let cleanup: () => void = () => undefined;
let token: string;
let proxy: http.Server | undefined;

beforeAll(testToolsInstalled, TOOLS_WAIT_MS);
beforeAll(async () => {
  ({ home, cleanup } = tempHome());
  // The inspector calls a tool of every room, steer's too: an admin's.
  fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({ trust: { access: { inspector: 'admin', 'stdio-agent': 'admin' } } }));
  hub = await startServe(home);
  token = await joinOver(hub, { handle: 'inspector', session: 'proj' });
}, 30_000);

afterAll(async () => {
  if (proxy) await new Promise((resolve) => proxy!.close(resolve));
  await stopHubs();
  cleanup();
});

function run(file: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync(process.execPath, [file, ...args], { cwd: ROOT, env: { ...childEnv(home), ...env }, encoding: 'utf8', timeout: 120_000 });
}

describe('the MCP Inspector CLI', () => {
  it('inspector - lists the tools and calls one over Streamable HTTP', () => {
    const auth = ['--header', `Authorization: Bearer ${token}`];
    const listed = run(INSPECTOR, ['--cli', `${hub.url}/mcp`, '--transport', 'http', '--method', 'tools/list', ...auth]);
    expect(listed.status, listed.stderr).toBe(0);
    const tools = (JSON.parse(listed.stdout) as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
    expect(tools).toEqual(expect.arrayContaining(['whoami', 'inbox', 'wait', 'chat_post', 'chat_read']));
    const called = run(INSPECTOR, ['--cli', `${hub.url}/mcp`, '--transport', 'http', '--method', 'tools/call', '--tool-name', 'chat_post', '--tool-arg', 'text=hello from the inspector', ...auth]);
    expect(called.status, called.stderr).toBe(0);
    const result = JSON.parse(called.stdout) as { content: Array<{ text: string }>; isError?: boolean };
    expect(result.isError ?? false).toBe(false);
    expect(JSON.parse(result.content[0]!.text)).toMatchObject({ id: expect.any(String), seq: expect.any(Number) });
  });

  it('inspector - lists the tools and calls one over stdio (parley mcp)', () => {
    const env = ['-e', `PARLEY_URL=${hub.url}`, '-e', `PARLEY_HOME=${home}`];
    const server = [process.execPath, BIN, 'mcp', '--as', 'stdio-agent', '--session', 'proj'];
    const listed = run(INSPECTOR, ['--cli', ...env, ...server, '--method', 'tools/list']);
    expect(listed.status, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toContain('chat_read');
    const called = run(INSPECTOR, ['--cli', ...env, ...server, '--method', 'tools/call', '--tool-name', 'chat_history']);
    expect(called.status, called.stderr).toBe(0);
    const read = JSON.parse((JSON.parse(called.stdout) as { content: Array<{ text: string }> }).content[0]!.text) as { messages: Array<{ text: string; author: string }> };
    expect(read.messages).toContainEqual(expect.objectContaining({ author: 'inspector', text: 'hello from the inspector' }));
  });

  it('inspector - a tool of every room answers over both transports', () => {
    const calls: Array<[string, string[]]> = [
      ['whoami', []],
      ['chat_threads', []],
      ['steer_done', ['--tool-arg', 'thread=general']],
      ['meeting_list', []],
      ['requests_open', []],
      ['presence_set', ['--tool-arg', 'state=thinking']],
    ];
    const http = ['--cli', `${hub.url}/mcp?rooms=all`, '--transport', 'http', '--header', `Authorization: Bearer ${token}`];
    const stdio = ['--cli', '-e', `PARLEY_URL=${hub.url}`, '-e', `PARLEY_HOME=${home}`, process.execPath, BIN, 'mcp', '--as', 'stdio-agent', '--session', 'proj', '--rooms', 'all'];
    for (const [transport, target] of [['http', http], ['stdio', stdio]] as const) {
      for (const [tool, args] of calls) {
        const called = run(INSPECTOR, [...target, '--method', 'tools/call', '--tool-name', tool, ...args]);
        expect(called.status, `${transport} ${tool}: ${called.stderr}`).toBe(0);
        const result = JSON.parse(called.stdout) as { content: Array<{ text: string }>; isError?: boolean };
        expect(result.isError ?? false, `${transport} ${tool}: ${result.content[0]?.text}`).toBe(false);
      }
    }
  }, 120_000);
});

describe('the MCP conformance suite', () => {
  it('conformance - every scenario that applies to any server passes; the others are in the baseline with their reason', async () => {
    // The suite cannot send credentials: a loopback proxy adds the token. It
    // rewrites Host and Origin only when they name the proxy itself, so the
    // suite's DNS-rebinding probes reach the hub as sent.
    const target = new URL(hub.url);
    proxy = http.createServer((req, res) => {
      const port = (proxy!.address() as { port: number }).port;
      const own = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
      const headers = { ...req.headers, authorization: `Bearer ${token}` };
      if (headers.host && own.has(headers.host)) headers.host = target.host;
      if (headers.origin && own.has(headers.origin.replace(/^https?:\/\//, ''))) headers.origin = `http://${target.host}`;
      const upstream = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy!.listen(0, '127.0.0.1', resolve));
    const url = `http://localhost:${(proxy.address() as { port: number }).port}/mcp`;
    // Not spawnSync: the proxy runs in this process and must keep serving.
    const suite = spawn(process.execPath, [CONFORMANCE, 'server', '--url', url, '--expected-failures', path.join(ROOT, 'test/mcp/conformance-baseline.yml')], { cwd: home });
    let output = '';
    suite.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    suite.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const status = await new Promise<number | null>((resolve) => suite.once('exit', (code) => resolve(code)));
    const outcome = { status };
    for (const scenario of ['server-initialize', 'ping', 'tools-list', 'tools-call-simple-text', 'tools-call-error', 'resources-list', 'dns-rebinding-protection']) {
      expect(output, scenario).toMatch(new RegExp(`✓ ${scenario}: \\d+ passed, 0 failed`));
    }
    expect(outcome.status, output.slice(-2000)).toBe(0);
  }, 300_000);
});
