import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, childEnv } from '../helpers/serve.js';
import { tempHome } from '../helpers/hub.js';
import { modulesLoaded } from './loaded-modules.js';

/**
 * One-shot commands start fast because they load only what they use. Timing
 * belongs to the benchmark (npm run bench); this checks the cause, which
 * holds on any machine: the modules a command loads.
 */

/** The files (under dist/ or node_modules/) a `parley` command loads, and the built-ins it imports ("node:…"). */
const loadedBy = (args: string[], env: NodeJS.ProcessEnv): string[] => modulesLoaded([BIN, ...args], env);

// One small file of schema/ is allowed, limits.js (plain numbers config/defaults hands on); the rest of schema/ is zod,
// store/ is SQLite, http/ the server. home/ (file modes, the admin token, the lock) is not listed: the lock's SQLite
// would show as node_modules/.
const HEAVY = [
  /node_modules\//,
  /dist\/src\/(hub|mcp|tools|search|redaction|meeting)\//,
  /dist\/src\/schema\/(?!limits\.js)/,
  /dist\/src\/store\//,
  /dist\/src\/http\//,
  /dist\/src\/config\/(schema|load)\.js/,
];

// The command runs from its bundle (scripts/bundle-cli.mjs): a module is listed by the code of it bundled into
// the parts a command loads (their source maps say which); one whose few constants the bundler inlined is not.

/** What an agent CLI's hook must not load: it runs on every tool call (its start-up stays within 1.5x of bare Node). */
const HOOK_HEAVY = [...HEAVY, /dist\/src\/errors\//, /dist\/src\/cli\/(help|conversation|hub-client|hub-address|style)\.js$/];

describe('start-up', () => {
  it('startup - "parley --version" loads the entry and the version, nothing else', () => {
    const { home, cleanup } = tempHome();
    try {
      const loaded = loadedBy(['--version'], childEnv(home));
      expect(loaded.filter((file) => file.startsWith('dist/'))).toEqual(['dist/src/cli/main.js', 'dist/src/version.js']);
      expect(loaded.filter((file) => file.startsWith('node_modules/'))).toEqual([]);
    } finally {
      cleanup();
    }
  });

  it('startup - "parley hook" loads Node\'s built-ins and its own few small modules: no zod, SDK, SQLite, hono, error model, help or conversation commands', () => {
    const { home, cleanup } = tempHome();
    try {
      fs.writeFileSync(path.join(home, 'credentials.json'), JSON.stringify({ 'default/coder': 'pt_unused' }));
      // No PARLEY_* variable: the hook is told its home and hub as install writes it (this hub is down: nothing answers on port 9).
      const env: NodeJS.ProcessEnv = {};
      for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('PARLEY_')) env[key] = value;
      for (const event of ['post-tool-use', 'stop']) {
        const loaded = loadedBy(['hook', 'claude', event, '--as', 'coder', '--home', home, '--url', 'http://127.0.0.1:9'], env);
        expect(loaded, event).toContain('dist/src/cli/hook.js');
        expect(loaded.filter((file) => HOOK_HEAVY.some((pattern) => pattern.test(file))), event).toEqual([]);
        // node:http alone costs more than the hook's request (some 30 ms on Node 24); a socket carries the request.
        expect(loaded.filter((file) => file.startsWith('node:http')), event).toEqual([]);
        expect(loaded, event).toContain('node:net');
        expect(loaded.filter((file) => file.startsWith('dist/')).sort(), event).toEqual(
          [
            'dist/src/cli/client-gone.js',
            'dist/src/cli/hook-clients.js',
            'dist/src/cli/hook.js',
            'dist/src/cli/main.js',
            'dist/src/client/credentials.js',
            'dist/src/client/live-hub.js',
            'dist/src/client/socket-post.js',
            'dist/src/config/defaults.js',
            'dist/src/config/home.js',
            'dist/src/install/hook-events.js',
            'dist/src/version.js',
          ],
        );
      }
    } finally {
      cleanup();
    }
  });

  it('startup - "parley hook" finding its hub through the home adds only the hub proof (two small modules and node:crypto)', () => {
    const { home, cleanup } = tempHome();
    try {
      fs.writeFileSync(path.join(home, 'credentials.json'), JSON.stringify({ 'default/coder': 'pt_unused' }));
      // A hub holds the home (this process's pid) and says it serves where nothing answers (port 9): the proof is asked for, and fails quietly.
      fs.writeFileSync(path.join(home, 'hub.lock.json'), JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString(), url: 'http://127.0.0.1:9', key: `ed25519:${'A'.repeat(43)}` }));
      const env: NodeJS.ProcessEnv = {};
      for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('PARLEY_')) env[key] = value;
      const loaded = loadedBy(['hook', 'claude', 'post-tool-use', '--as', 'coder', '--home', home], env);
      expect(loaded.filter((file) => HOOK_HEAVY.some((pattern) => pattern.test(file)))).toEqual([]);
      expect(loaded.filter((file) => file.startsWith('node:http'))).toEqual([]);
      expect(loaded).toContain('node:crypto');
      expect(loaded.filter((file) => file.startsWith('dist/')).sort()).toEqual(
        [
          'dist/src/cli/client-gone.js',
          'dist/src/cli/hook-clients.js',
          'dist/src/cli/hook.js',
          'dist/src/cli/main.js',
          'dist/src/client/credentials.js',
          'dist/src/client/hub-proof.js',
          'dist/src/client/live-hub.js',
          'dist/src/client/socket-post.js',
          'dist/src/config/defaults.js',
          'dist/src/config/home.js',
          'dist/src/install/hook-events.js',
          'dist/src/trust/hub-proof.js',
          'dist/src/version.js',
        ],
      );
    } finally {
      cleanup();
    }
  });

  it('startup - the one-shot commands load no dependency, and none of the hub, store, HTTP server, MCP or schemas', () => {
    const { home, cleanup } = tempHome();
    try {
      const env = childEnv(home, { PARLEY_URL: 'http://127.0.0.1:9', PARLEY_TOKEN: 'pt_unused' });
      for (const args of [['say', 'general', 'hi'], ['read', 'general'], ['inbox'], ['status'], ['help'], ['help', 'say']]) {
        const loaded = loadedBy(args, env);
        expect(loaded, args.join(' ')).toContain('dist/src/cli/main.js');
        expect(loaded.filter((file) => HEAVY.some((pattern) => pattern.test(file))), args.join(' ')).toEqual([]);
      }
    } finally {
      cleanup();
    }
  });
});
