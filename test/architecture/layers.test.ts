import path from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { BEHIND_HUB, LAYERS, PUBLIC_MODULES, layerLintRules, layerOf } from '../../scripts/layers.mjs';
import { findCircles, readImportGraph, type ImportGraph } from '../helpers/import-graph.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The folder of src/ a file belongs to (`index` and `version` for the two files at its top). */
function folderOf(file: string): string {
  const parts = file.split(path.sep);
  return parts.length === 2 ? parts[1]!.replace(/\.(ts|mjs)$/, '') : parts[1]!;
}

/** Every import that breaks the layer rules, as "from -> to: why". */
function layerViolations(graph: ImportGraph): string[] {
  const found: string[] = [];
  const hub = layerOf('hub')!;
  for (const [from, targets] of graph) {
    const fromFolder = folderOf(from);
    for (const to of targets) {
      const toFolder = folderOf(to);
      if (toFolder === fromFolder) continue;
      const [a, b] = [layerOf(fromFolder), layerOf(toFolder)];
      if (a === undefined || b === undefined) found.push(`${from} -> ${to}: a folder outside scripts/layers.mjs`);
      else if (b >= a) found.push(`${from} -> ${to}: ${b === a ? 'same layer' : 'upward'}`);
      else if (PUBLIC_MODULES.includes(toFolder) && to !== path.join('src', toFolder, 'index.ts')) found.push(`${from} -> ${to}: past the public module`);
      else if (a > hub && BEHIND_HUB.includes(toFolder)) found.push(`${from} -> ${to}: behind the hub`);
    }
  }
  return found;
}

describe('architecture', () => {
  const src = readImportGraph(ROOT, 'src');

  it('layers - every folder of src/ has its place in the layer table', () => {
    const folders = [...new Set([...src.keys()].map(folderOf))].sort();
    expect(folders.filter((folder) => layerOf(folder) === undefined)).toEqual([]);
    expect(LAYERS.flat().filter((folder) => !folders.includes(folder))).toEqual([]);
  });

  it('layers - files import only lower layers, the hub only through its public module, the store only from the hub', () => {
    expect(layerViolations(src)).toEqual([]);
  });

  it('layers - no circle between files of src/ or web/src/, type-only imports included', () => {
    expect(findCircles(src)).toEqual([]);
    expect(findCircles(readImportGraph(ROOT, 'web/src'))).toEqual([]);
  });

  it('layers - the checks find an upward import, an import past the hub module, a store reach and a circle', () => {
    const graph: ImportGraph = new Map([
      ['src/store/a.ts', ['src/hub/index.ts']],
      ['src/http/b.ts', ['src/hub/actor.ts', 'src/store/event-log.ts']],
      ['src/hub/actor.ts', ['src/hub/posting.ts']],
      ['src/hub/posting.ts', ['src/hub/actor.ts']],
    ]);
    expect(layerViolations(graph)).toEqual([
      'src/store/a.ts -> src/hub/index.ts: upward',
      'src/http/b.ts -> src/hub/actor.ts: past the public module',
      'src/http/b.ts -> src/store/event-log.ts: behind the hub',
    ]);
    expect(findCircles(graph)).toEqual([['src/hub/actor.ts', 'src/hub/posting.ts']]);
  });

  it('layers - ESLint refuses the same imports, with the rules eslint.config.js holds', async () => {
    // A path in a variable: the config is plain JavaScript, without types.
    const configFile = '../../eslint.config.js';
    const config = ((await import(configFile)) as { default: unknown[] }).default;
    for (const entry of layerLintRules()) expect(config).toContainEqual(entry);
    const eslint = new ESLint({ cwd: ROOT, overrideConfigFile: true, overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }, ...layerLintRules()] });
    const refusal = async (file: string, code: string): Promise<string[]> =>
      (await eslint.lintText(code, { filePath: path.join(ROOT, file) }))[0]!.messages.map((message) => message.ruleId ?? message.message);
    expect(await refusal('src/store/x.ts', "import type { Hub } from '../hub/index.js';\n")).toEqual(['no-restricted-imports']);
    expect(await refusal('src/http/routes/x.ts', "import { post } from '../../hub/posting.js';\n")).toEqual(['no-restricted-imports']);
    expect(await refusal('src/cli/x.ts', "import { Store } from '../store/store.js';\n")).toEqual(['no-restricted-imports']);
    expect(await refusal('src/http/x.ts', "import { Hub } from '../hub/index.js';\n")).toEqual([]);
  });
});
