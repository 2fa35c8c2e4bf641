import path from 'node:path';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('background work', () => {
  it('lint - a bare void and a silent catch are refused in src/; inBackground, settled and a catch that says why pass', async () => {
    // A path in a variable: the config is plain JavaScript, without types.
    const configFile = '../../eslint.config.js';
    const config = ((await import(configFile)) as { default: Linter.Config[] }).default;
    const entry = config.find((c) => c.rules?.['no-void'] !== undefined);
    expect(entry).toBeDefined();
    const eslint = new ESLint({ cwd: ROOT, overrideConfigFile: true, overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser }, plugins: { '@typescript-eslint': tseslint.plugin } }, entry!] });
    const rulesHit = async (code: string): Promise<string[]> =>
      (await eslint.lintText(code, { filePath: path.join(ROOT, 'src/hub/example.ts') }))[0]!.messages.map((m) => m.ruleId ?? m.message);
    expect(await rulesHit('declare const p: Promise<void>;\nvoid p;\n')).toEqual(['no-void']);
    expect(await rulesHit('declare const p: Promise<void>;\nexport const q = p.catch(() => undefined);\n')).toEqual(['no-restricted-syntax']);
    expect(await rulesHit('declare const p: Promise<void>;\nexport const q = p.catch(() => {});\n')).toEqual(['@typescript-eslint/no-empty-function']);
    expect(await rulesHit('declare const p: Promise<void>;\nexport const q = p.catch(() => {\n  // Reported to the caller already.\n});\n')).toEqual([]);
    expect(await rulesHit("import { inBackground, settled } from '../util/background.js';\ndeclare const p: Promise<void>;\ninBackground(p, console, 'x');\nexport const q = settled(p);\n")).toEqual([]);
  });
});
