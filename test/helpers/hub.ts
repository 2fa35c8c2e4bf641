import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { createHttpApp, type HttpAppOptions } from '../../src/http/app.js';
import { hostsFor } from '../../src/http/host-guard.js';
import { startHttpServer, type HttpServer, type HttpServerOptions } from '../../src/http/server.js';
import type { Actor } from '../../src/hub/index.js';
import { openHub, type Hub, type HubOptions } from '../../src/hub/hub.js';
import { createMemoryLogger, createSilentLogger, type MemoryLogger } from '../../src/util/logger.js';

/** A fresh temporary home directory, removed by the returned cleanup. */
export function tempHome(prefix = 'parley-test-'): { home: string; cleanup: () => void } {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { home, cleanup: () => fs.rmSync(home, { recursive: true, force: true }) };
}

/** For a file whose tests make scratch homes: the returned function makes one, and each is removed after the test that made it. */
export function tempHomesRemovedAfterEach(prefix = 'parley-test-'): () => string {
  const cleanups: Array<() => void> = [];
  afterEach(() => {
    for (const cleanup of cleanups.splice(0).reverse()) cleanup();
  });
  return () => {
    const made = tempHome(prefix);
    cleanups.push(made.cleanup);
    return made.home;
  };
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

/** The hubs of one test at a time, and what was opened on them: all of it ends after the test, the newest first. */
export interface TestHubs {
  /** Opens a hub as openTestHub does. */
  open(options?: Partial<HubOptions>): Promise<TestHub>;
  /** Closes `t`'s hub and opens another on the same home, as a restart does (the home is removed with `t`). */
  reopen(t: TestHub, options?: Partial<HubOptions>): Promise<TestHub>;
  /** Serves `t`'s hub over HTTP on 127.0.0.1, an ephemeral port, in this process; stopped as "parley serve" stops. */
  serve(t: TestHub, options?: Partial<HttpServerOptions>): Promise<HttpServer>;
  /** Runs `cleanup` after the test, before what was opened earlier ends (an MCP client, a socket). */
  defer(cleanup: () => unknown): void;
}

/**
 * For a file whose tests each open their own hubs: registers an afterEach
 * that closes everything opened through the returned TestHubs, so a test that
 * fails half-way leaves no hub, server or home behind.
 */
export function testHubsClosedAfterEach(): TestHubs {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const open = async (options: Partial<HubOptions> = {}): Promise<TestHub> => {
    const t = await openTestHub(options);
    cleanups.push(() => t.close());
    return t;
  };
  return {
    open,
    async reopen(t, options = {}) {
      await t.hub.close();
      return open({ ...options, home: t.home });
    },
    async serve(t, options = {}) {
      const server = await startHttpServer({ hub: t.hub, host: '127.0.0.1', port: 0, logger: createSilentLogger(), ...options });
      cleanups.push(() => closeServed(t, server));
      return server;
    },
    defer(cleanup) {
      cleanups.push(cleanup);
    },
  };
}

/** The three participants most tests start from: @human (a human), @alice and @bob (agents). */
export interface HumanAliceBob {
  human: Actor;
  alice: Actor;
  bob: Actor;
}

/** Joins @human, @alice and @bob in `session`. */
export async function joinHumanAliceBob(hub: Hub, session = 's'): Promise<HumanAliceBob> {
  const human = await hub.join({ handle: 'human', session, profile: { kind: 'human' } });
  const alice = await hub.join({ handle: 'alice', session });
  const bob = await hub.join({ handle: 'bob', session });
  return { human, alice, bob };
}

/** Where the in-process app is asked: the host and port it is told it serves, though no socket is opened. */
export const APP_BASE = 'http://127.0.0.1:7420';

/** `t`'s hub behind the HTTP app, called in process with app.request(`${APP_BASE}/…`): the routes without a socket. */
export function appOf(t: TestHub, options: Partial<HttpAppOptions> = {}): ReturnType<typeof createHttpApp> {
  return createHttpApp({ hub: t.hub, logger: createSilentLogger(), allowedHosts: hostsFor('127.0.0.1', 7420), ...options });
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
