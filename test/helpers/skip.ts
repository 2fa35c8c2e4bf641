import type { TestContext } from 'vitest';

declare module 'vitest' {
  interface TaskMeta {
    /** Why a test cannot run on this machine; the test runner counts a skip without one as a failure. */
    skipReason?: string;
  }
}

/** Skips the running test, saying why it cannot run here (scripts/run-tests.mjs prints the reason). */
export function skipBecause(context: TestContext, reason: string): never {
  context.task.meta.skipReason = reason;
  return context.skip(reason);
}
