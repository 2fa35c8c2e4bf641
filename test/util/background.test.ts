import { describe, expect, it } from 'vitest';
import { inBackground } from '../../src/util/background.js';
import { createMemoryLogger } from '../../src/util/logger.js';

describe('background work', () => {
  it('background - a failure is logged with what the work was doing', async () => {
    const logger = createMemoryLogger();
    let fail!: (error: Error) => void;
    const work = new Promise((_resolve, reject) => (fail = reject));
    inBackground(work, logger, 'closing the MCP session');
    fail(new Error('socket gone'));
    await work.catch(() => 'seen');
    await Promise.resolve();
    expect(logger.records).toEqual([expect.objectContaining({ level: 'warn', msg: 'closing the MCP session failed', error: 'socket gone' })]);
  });

  it('background - work that succeeds logs nothing', async () => {
    const logger = createMemoryLogger();
    const work = Promise.resolve(42);
    inBackground(work, logger, 'refreshing');
    await work;
    await Promise.resolve();
    expect(logger.records).toEqual([]);
  });
});
