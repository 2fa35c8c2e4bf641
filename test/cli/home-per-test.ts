import { afterEach } from 'vitest';
import { tempHome } from '../helpers/hub.js';
import { stopHubs } from '../helpers/serve.js';

/**
 * Temporary homes for tests that each start their own hub: the function
 * returned makes one, and after each test every hub and CLI process it
 * started is stopped and its homes removed.
 */
export function homePerTest(): (prefix?: string) => string {
  const cleanups: Array<() => void> = [];
  afterEach(async () => {
    await stopHubs();
    for (const cleanup of cleanups.splice(0)) cleanup();
  });
  return (prefix) => {
    const made = tempHome(prefix);
    cleanups.push(made.cleanup);
    return made.home;
  };
}
