#!/usr/bin/env node
// Copies the plain-JavaScript files of src/ (worker entry points) next to their compiled siblings in dist/src/.
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const walk = (dir) => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
for (const file of walk(path.join(root, 'src')).filter((f) => f.endsWith('.mjs'))) {
  const target = path.join(root, 'dist', path.relative(root, file));
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.copyFileSync(file, target);
}
