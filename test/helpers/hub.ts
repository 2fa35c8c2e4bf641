import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { HttpServer } from '../../src/http/server.js';
import { openHub, type Hub, type HubOptions } from '../../src/hub/hub.js';
import { createMemoryLogger, type MemoryLogger } from '../../src/util/logger.js';

/** A fresh temporary home directory, removed by the returned cleanup. */
export function tempHome(prefix = 'parley-test-'): { home: string; cleanup: () => void } {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { home, cleanup: () => fs.rmSync(home, { recursive: true, force: true }) };
}

export interface TestHub {
  hub: Hub;
  home: string;
  logger: MemoryLogger;
  close: () => Promise<void>;
}

/** Opens a real hub on a real SQLite file in a temporary home. */
export async function openTestHub(options: Partial<HubOptions> = {}): Promise<TestHub> {
  const { home, cleanup } = options.home ? { home: options.home, cleanup: () => undefined } : tempHome();
  const logger = createMemoryLogger();
  const hub = await openHub({ logger, ...options, home });
  return {
    hub,
    home,
    logger,
    close: async () => {
      await hub.close();
      cleanup();
    },
  };
}

/**
 * Stops a hub served in process, as "parley serve" does: the hub's shutdown
 * ends the open streams and waits, then the server finishes closing.
 */
export async function closeServed(hub: TestHub | undefined, server: HttpServer | undefined): Promise<void> {
  const closing = server?.close();
  await hub?.close();
  await closing;
}

/** Runs `fn` and returns the error it threw (failing if it did not throw). */
export async function caught(fn: () => unknown): Promise<{ code?: string; field?: string; message: string }> {
  try {
    await fn();
  } catch (error) {
    return error as { code?: string; field?: string; message: string };
  }
  throw new Error('expected an error, but the call succeeded');
}
