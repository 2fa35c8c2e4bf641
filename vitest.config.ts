import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that drive the programs of test/tools (agent CLIs, the MCP
 * Inspector) are among the longest. When those programs are installed already
 * (the stamp test/tools/install.mjs writes once an install is complete) they
 * run first, so that no long file is left running alone at the end; when not,
 * they run after the others, while the programs install in the background
 * (scripts/run-tests.mjs), so that nothing waits for them.
 */
const USES_TEST_TOOLS = [/\/test\/clients\//, /\/test\/mcp\/clients\.test\.ts$/];

function testToolsInstalled(): boolean {
  const tools = path.join(import.meta.dirname, 'test', 'tools');
  const stamp = path.join(tools, 'node_modules', '.parley-installed');
  if (!fs.existsSync(stamp)) return false;
  const lockfileHash = crypto.createHash('sha256').update(fs.readFileSync(path.join(tools, 'package-lock.json'))).digest('hex');
  return fs.readFileSync(stamp, 'utf8') === `${lockfileHash} ${process.platform}-${process.arch}\n`;
}

class TestToolsOrder extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const usesTools = (file: TestSpecification) => USES_TEST_TOOLS.some((pattern) => pattern.test(file.moduleId));
    const withTools = sorted.filter(usesTools);
    const others = sorted.filter((file) => !usesTools(file));
    return testToolsInstalled() ? [...withTools, ...others] : [...others, ...withTools];
  }
}

/**
 * Files that keep a fresh module registry (vitest's default), apart from the
 * others: the ones that drive agent CLIs, whose program start-up is timed by
 * the CLI itself, and the checkpointer's, whose bound holds only if its worker
 * keeps pace with the writes (no heap or timers left by earlier files).
 */
const ISOLATED = ['test/clients/**/*.test.ts', 'test/mcp/clients.test.ts', 'test/store/checkpointer.test.ts'];
/** The load tests, a project of their own: scripts/run-tests.mjs runs them last and alone. */
const LOAD = ['test/load/**/*.test.ts'];

export default defineConfig({
  test: {
    // Files run side by side (maxWorkers below), so a test that starts many
    // processes gets less of the machine than alone: room for that, still far
    // short of what a hang would take.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most test files wait (on child processes, worker threads, fsync) far more
    // than they compute: vitest's default of one worker per core less one left
    // a 2-core machine running them one at a time, mostly idle.
    maxWorkers: Math.max(2, Math.ceil(os.availableParallelism() * 1.5)),
    sequence: { sequencer: TestToolsOrder },
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...ISOLATED, ...LOAD],
          // A worker keeps the modules it loaded from one test file to the next:
          // loading and transforming the same sources again for every file was
          // most of a file's CPU. The files share no state through modules: each
          // opens its own hubs and homes, and restores what it stubs.
          isolate: false,
          globalSetup: ['test/setup/browser.global.ts'],
        },
      },
      { extends: true, test: { name: 'isolated', include: ISOLATED } },
      { extends: true, test: { name: 'load', include: LOAD } },
    ],
  },
});
