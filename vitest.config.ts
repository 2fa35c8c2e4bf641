import os from 'node:os';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that drive the programs of test/tools (agent CLIs, the MCP
 * Inspector) run after the others: on a full run those programs install in
 * the background meanwhile (scripts/run-tests.mjs), so nothing waits for them.
 */
const USES_TEST_TOOLS = [/\/test\/clients\//, /\/test\/mcp\/clients\.test\.ts$/];

class TestToolsLast extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const usesTools = (file: TestSpecification) => USES_TEST_TOOLS.some((pattern) => pattern.test(file.moduleId));
    return [...sorted.filter((file) => !usesTools(file)), ...sorted.filter(usesTools)];
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
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
    globalSetup: ['test/setup/browser.global.ts'],
    sequence: { sequencer: TestToolsLast },
  },
});
