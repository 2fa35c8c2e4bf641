#!/usr/bin/env node
// Bundles the `parley` command (dist/src/cli/main.js and everything it loads,
// packages included) into dist/src/bundle/, one file per lazily loaded part:
// a command then loads a few files instead of hundreds of modules, which was
// most of the CPU of a short command (hooks run one on every tool call).
// The folder sits at the same depth as the sources' folders, so a path a module
// resolves from its own place (a worker, the web page, bin/parley) is the same
// from the bundle. Native addons stay outside, loaded from node_modules.
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'rolldown';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const out = path.join(root, 'dist', 'src', 'bundle');
fs.rmSync(out, { recursive: true, force: true });
await build({
  input: path.join(root, 'dist', 'src', 'cli', 'main.js'),
  platform: 'node',
  external: ['better-sqlite3', 'sodium-native', /^node:/],
  logLevel: 'warn',
  output: { dir: out, format: 'esm', entryFileNames: 'main.js', chunkFileNames: '[name]-[hash].js', sourcemap: true },
});
