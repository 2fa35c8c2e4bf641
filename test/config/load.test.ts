import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as D from '../../src/config/defaults.js';
import { configKeys, defaultConfig, envNameOf, resolveHome } from '../../src/config/load.js';
import type { ConfigInput } from '../../src/config/schema.js';
import { ParleyError } from '../../src/errors/parley-error.js';
import { openHub } from '../../src/hub/hub.js';
import { createSilentLogger } from '../../src/util/logger.js';
import { caught, tempHomesRemovedAfterEach } from '../helpers/hub.js';
import { refusal } from '../helpers/refusal.js';
import { load, writeConfig } from './config-files.js';

const home = tempHomesRemovedAfterEach('parley-config-');

describe('config loading', () => {
  it('config - with no file, env or flags every value is its documented default', () => {
    const config = load({ home: home() });
    expect(config.server).toEqual({ host: '127.0.0.1', port: 7420, maxBodyBytes: 1024 * 1024, sseKeepAliveMs: 15_000, sseStallTimeoutMs: 30_000 });
    expect(config.chat.enabled).toBe(true);
    expect(config.chat.limits).toEqual({ maxMessageChars: 4096, maxInputChars: 1_000_000, maxReadBytes: 128 * 1024, concurrentReads: 2, writeBurst: 60, writesPerMinute: 600 });
    expect(config.chat.scanner).toEqual({ enabled: true, timeoutMs: 800 });
    expect(config.chat.defaultChannel).toBe('general');
    expect(config.requests).toEqual({ maxHop: 3, maxParamsBytes: 64 * 1024, maxJsonDepth: 32 });
    expect(config.inbox).toEqual({ waitTimeoutMs: 25_000, maxWaitTimeoutMs: 120_000, liveQueueLimit: 10_000 });
    expect(config.presence).toEqual({ ttlSeconds: 300 });
    expect(config.meeting).toEqual({ maxParticipants: 32, ringSize: 100, maxMessageChars: 1024 });
    expect(config.participation).toEqual({ permissiveMaxMembers: 3 });
    expect(config.agents).toEqual({ wakeOn: 'all', stayAvailable: [], stayAvailableSeconds: 300, maxStopContinuations: 5 });
    expect(config.store).toEqual({ synchronous: 'normal', checkpoint: { thresholdPages: 4096, fallbackBytes: 256 * 1024 * 1024, walSizeLimitBytes: 16 * 1024 * 1024 } });
    expect(config.install).toEqual({ hookTimeoutSeconds: 10, stopTimeoutMarginSeconds: 30, mcpStartupTimeoutSeconds: 30 });
    expect(config.peers).toEqual({ listen: [], mdns: false, name: '', sync: { maxMessages: 100, maxBytes: 1_048_576, intervalSeconds: 30, peers: 3 } });
    expect(config.webui).toEqual({ password: '', signIn: { maxFailures: 10, backoffMs: 1000, maxBackoffMs: 900_000, forgetMs: 86_400_000, maxTracked: 10_000 } });

    // The same values, by their names in defaults.ts.
    expect(config).toEqual({
      server: {
        host: D.DEFAULT_HOST,
        port: D.DEFAULT_PORT,
        maxBodyBytes: D.DEFAULT_MAX_BODY_BYTES,
        sseKeepAliveMs: D.DEFAULT_SSE_KEEPALIVE_MS,
        sseStallTimeoutMs: D.DEFAULT_SSE_STALL_TIMEOUT_MS,
      },
      webui: {
        password: D.DEFAULT_WEBUI_PASSWORD,
        signIn: {
          maxFailures: D.DEFAULT_SIGN_IN_MAX_FAILURES,
          backoffMs: D.DEFAULT_SIGN_IN_BACKOFF_MS,
          maxBackoffMs: D.DEFAULT_SIGN_IN_MAX_BACKOFF_MS,
          forgetMs: D.DEFAULT_SIGN_IN_FORGET_MS,
          maxTracked: D.DEFAULT_SIGN_IN_MAX_TRACKED,
        },
      },
      chat: {
        enabled: D.DEFAULT_CHAT_ENABLED,
        limits: {
          maxMessageChars: D.DEFAULT_MAX_MESSAGE_CHARS,
          maxInputChars: D.DEFAULT_MAX_INPUT_CHARS,
          maxReadBytes: D.DEFAULT_MAX_READ_BYTES,
          concurrentReads: D.DEFAULT_READS_PER_PARTICIPANT,
          writeBurst: D.DEFAULT_WRITE_BURST,
          writesPerMinute: D.DEFAULT_WRITES_PER_MINUTE,
        },
        scanner: { enabled: D.DEFAULT_SCANNER_ENABLED, timeoutMs: D.DEFAULT_SCANNER_TIMEOUT_MS },
        defaultChannel: D.DEFAULT_DEFAULT_CHANNEL,
      },
      requests: { maxHop: D.DEFAULT_MAX_HOP, maxParamsBytes: D.DEFAULT_MAX_PARAMS_BYTES, maxJsonDepth: D.DEFAULT_MAX_JSON_DEPTH },
      inbox: {
        waitTimeoutMs: D.DEFAULT_WAIT_TIMEOUT_MS,
        maxWaitTimeoutMs: D.DEFAULT_MAX_WAIT_TIMEOUT_MS,
        liveQueueLimit: D.DEFAULT_LIVE_QUEUE_LIMIT,
      },
      presence: { ttlSeconds: D.DEFAULT_PRESENCE_TTL_SECONDS },
      meeting: {
        maxParticipants: D.DEFAULT_MEETING_MAX_PARTICIPANTS,
        ringSize: D.DEFAULT_MEETING_RING_SIZE,
        maxMessageChars: D.DEFAULT_MEETING_MAX_MESSAGE_CHARS,
      },
      participation: { permissiveMaxMembers: D.DEFAULT_PERMISSIVE_MAX_MEMBERS },
      agents: {
        wakeOn: D.DEFAULT_AGENT_WAKE_ON,
        stayAvailable: [...D.DEFAULT_AGENTS_STAY_AVAILABLE],
        stayAvailableSeconds: D.DEFAULT_AGENTS_STAY_AVAILABLE_SECONDS,
        maxStopContinuations: D.DEFAULT_AGENTS_MAX_STOP_CONTINUATIONS,
      },
      store: {
        synchronous: D.DEFAULT_STORE_SYNCHRONOUS,
        checkpoint: { thresholdPages: D.DEFAULT_CHECKPOINT_THRESHOLD_PAGES, fallbackBytes: D.DEFAULT_CHECKPOINT_WRITER_FALLBACK_BYTES, walSizeLimitBytes: D.DEFAULT_WAL_SIZE_LIMIT_BYTES },
      },
      mcp: {
        rooms: [...D.DEFAULT_MCP_ROOMS],
        participantRooms: {},
        excludedKinds: [...D.DEFAULT_MCP_EXCLUDED_KINDS],
        compat: D.DEFAULT_MCP_COMPAT,
        compatMeeting: D.DEFAULT_MCP_COMPAT_MEETING,
        waitTimeoutMs: D.DEFAULT_MCP_WAIT_TIMEOUT_MS,
        sessionIdleMs: D.DEFAULT_MCP_SESSION_IDLE_MS,
        maxSessions: D.DEFAULT_MCP_MAX_SESSIONS,
        maxSessionsPerParticipant: D.DEFAULT_MCP_MAX_SESSIONS_PER_PARTICIPANT,
        maxSessionsPerToken: D.DEFAULT_MCP_MAX_SESSIONS_PER_TOKEN,
        maxBatchSize: D.DEFAULT_MCP_MAX_BATCH_SIZE,
      },
      coordinator: {
        enabled: D.DEFAULT_COORDINATOR_ENABLED,
        handle: D.DEFAULT_COORDINATOR_HANDLE,
        channel: D.DEFAULT_COORDINATOR_CHANNEL,
        sessions: [...D.DEFAULT_COORDINATOR_SESSIONS],
        timeoutSeconds: D.DEFAULT_COORDINATOR_TIMEOUT_SECONDS,
        maxDepth: D.DEFAULT_COORDINATOR_MAX_DEPTH,
        maxRunsPerHour: D.DEFAULT_COORDINATOR_MAX_RUNS_PER_HOUR,
        maxOutputChars: D.DEFAULT_COORDINATOR_MAX_OUTPUT_CHARS,
        pollMs: D.DEFAULT_COORDINATOR_POLL_MS,
        agents: {},
      },
      install: {
        hookTimeoutSeconds: D.INSTALL_HOOK_TIMEOUT_SECONDS,
        stopTimeoutMarginSeconds: D.INSTALL_STOP_TIMEOUT_MARGIN_SECONDS,
        mcpStartupTimeoutSeconds: D.INSTALL_MCP_STARTUP_TIMEOUT_SECONDS,
      },
      trust: {
        rosterPath: D.DEFAULT_TRUST_ROSTER_PATH,
        localAccess: { human: D.DEFAULT_TRUST_LOCAL_ACCESS_HUMAN, agent: D.DEFAULT_TRUST_LOCAL_ACCESS_AGENT },
        access: {},
        ttlSecs: D.DEFAULT_TRUST_TTL_SECS,
        maxTtlSecs: D.DEFAULT_TRUST_MAX_TTL_SECS,
        clockSkewSecs: D.DEFAULT_TRUST_CLOCK_SKEW_SECS,
        replayMaxIds: D.DEFAULT_TRUST_REPLAY_MAX_IDS,
        maxEnvelopeBytes: D.DEFAULT_TRUST_MAX_ENVELOPE_BYTES,
      },
      retention: {
        hours: D.DEFAULT_RETENTION_HOURS,
        messages: D.DEFAULT_RETENTION_MESSAGES,
        archiveHours: D.DEFAULT_RETENTION_ARCHIVE_HOURS,
        intervalMs: D.DEFAULT_RETENTION_INTERVAL_MS,
        chunkBudgetMs: D.DEFAULT_RETENTION_CHUNK_BUDGET_MS,
      },
      peers: {
        listen: [...D.DEFAULT_PEERS_LISTEN],
        mdns: D.DEFAULT_PEERS_MDNS,
        name: D.DEFAULT_PEERS_NAME,
        sync: {
          maxMessages: D.DEFAULT_PEERS_SYNC_MAX_MESSAGES,
          maxBytes: D.DEFAULT_PEERS_SYNC_MAX_BYTES,
          intervalSeconds: D.DEFAULT_PEERS_SYNC_INTERVAL_SECONDS,
          peers: D.DEFAULT_PEERS_SYNC_PEERS,
        },
      },
    });
    expect(defaultConfig()).toEqual(config);
  });

  it('config - the config file in the home overrides the defaults, key by key', () => {
    const dir = home();
    writeConfig(dir, { server: { port: 8123 }, chat: { limits: { maxMessageChars: 500 }, scanner: { enabled: false } }, store: { synchronous: 'full' } });
    const config = load({ home: dir });
    expect(config.server).toMatchObject({ host: D.DEFAULT_HOST, port: 8123, maxBodyBytes: D.DEFAULT_MAX_BODY_BYTES });
    expect(config.chat.limits).toMatchObject({ maxMessageChars: 500, maxInputChars: D.DEFAULT_MAX_INPUT_CHARS, writeBurst: D.DEFAULT_WRITE_BURST, writesPerMinute: D.DEFAULT_WRITES_PER_MINUTE });
    expect(config.chat.scanner).toEqual({ enabled: false, timeoutMs: D.DEFAULT_SCANNER_TIMEOUT_MS });
    expect(config.store.synchronous).toBe('full');
    expect(config.meeting.ringSize).toBe(D.DEFAULT_MEETING_RING_SIZE);
  });

  it('config - an explicit --config file is read instead of the one in the home', () => {
    const dir = home();
    writeConfig(dir, { server: { port: 8001 } });
    const other = writeConfig(dir, { server: { port: 8002 } }, 'other.json');
    expect(load({ home: dir }).server.port).toBe(8001);
    expect(load({ home: dir, configFile: other }).server.port).toBe(8002);
  });

  it('config - environment variables override the file, and PARLEY_PORT is an alias of server.port', () => {
    const dir = home();
    writeConfig(dir, { server: { port: 8123, host: '127.0.0.2' }, chat: { limits: { maxMessageChars: 500 } } });
    const config = load({
      home: dir,
      env: {
        PARLEY_CHAT_LIMITS_MAX_MESSAGE_CHARS: '100',
        PARLEY_PORT: '9000',
        PARLEY_CHAT_ENABLED: 'off',
        PARLEY_STORE_SYNCHRONOUS: 'normal',
        PARLEY_INBOX_WAIT_TIMEOUT_MS: ' 1500 ',
        PARLEY_SERVER_MAX_BODY_BYTES: '4096',
        // Empty values are ignored, not read as "" or 0.
        PARLEY_MEETING_RING_SIZE: '',
        UNRELATED: 'x',
      },
    });
    expect(config.chat.limits.maxMessageChars).toBe(100);
    expect(config.server).toMatchObject({ host: '127.0.0.2', port: 9000, maxBodyBytes: 4096 });
    expect(config.chat.enabled).toBe(false);
    expect(config.store.synchronous).toBe('normal');
    expect(config.inbox.waitTimeoutMs).toBe(1500);
    expect(config.meeting.ringSize).toBe(D.DEFAULT_MEETING_RING_SIZE);

    expect(load({ home: dir, env: { PARLEY_SERVER_PORT: '9001' } }).server.port).toBe(9001);
    expect(load({ home: dir, env: { PARLEY_HOST: '0.0.0.0' } }).server.host).toBe('0.0.0.0');
    for (const [text, value] of [['true', true], ['1', true], ['yes', true], ['ON', true], ['false', false], ['0', false], ['no', false]] as const) {
      expect(load({ home: dir, env: { PARLEY_CHAT_SCANNER_ENABLED: text } }).chat.scanner.enabled).toBe(value);
    }
  });

  it('config - flags override the environment and the file', () => {
    const dir = home();
    writeConfig(dir, { server: { port: 8123 }, requests: { maxHop: 5 } });
    const env = { PARLEY_PORT: '9000', PARLEY_SERVER_PORT: '9001', PARLEY_REQUESTS_MAX_HOP: '6', PARLEY_PRESENCE_TTL_SECONDS: '60' };
    const config = load({ home: dir, env, flags: { 'server.port': 9100, 'requests.maxHop': '7', 'chat.enabled': 'false', 'meeting.ringSize': undefined } });
    expect(config.server.port).toBe(9100);
    expect(config.requests.maxHop).toBe(7);
    expect(config.chat.enabled).toBe(false);
    // Keys no flag set keep the environment's value, or the default.
    expect(config.presence.ttlSeconds).toBe(60);
    expect(config.meeting.ringSize).toBe(D.DEFAULT_MEETING_RING_SIZE);
  });

  it('config - configKeys lists every leaf key with its type and PARLEY_ environment name', () => {
    const keys = configKeys();
    expect(keys).toEqual(
      expect.arrayContaining([
        { key: 'server.port', type: 'number', env: 'PARLEY_SERVER_PORT' },
        { key: 'server.host', type: 'string', env: 'PARLEY_SERVER_HOST' },
        { key: 'chat.enabled', type: 'boolean', env: 'PARLEY_CHAT_ENABLED' },
        { key: 'chat.limits.maxMessageChars', type: 'number', env: 'PARLEY_CHAT_LIMITS_MAX_MESSAGE_CHARS' },
        { key: 'chat.scanner.timeoutMs', type: 'number', env: 'PARLEY_CHAT_SCANNER_TIMEOUT_MS' },
        { key: 'requests.maxHop', type: 'number', env: 'PARLEY_REQUESTS_MAX_HOP' },
        { key: 'inbox.waitTimeoutMs', type: 'number', env: 'PARLEY_INBOX_WAIT_TIMEOUT_MS' },
        { key: 'presence.ttlSeconds', type: 'number', env: 'PARLEY_PRESENCE_TTL_SECONDS' },
        { key: 'meeting.maxParticipants', type: 'number', env: 'PARLEY_MEETING_MAX_PARTICIPANTS' },
        { key: 'store.synchronous', type: 'string', env: 'PARLEY_STORE_SYNCHRONOUS' },
        { key: 'webui.password', type: 'string', env: 'PARLEY_WEBUI_PASSWORD' },
      ]),
    );
    expect(new Set(keys.map((k) => k.key)).size).toBe(keys.length);
    expect(new Set(keys.map((k) => k.env)).size).toBe(keys.length);
    for (const { key, env } of keys) {
      expect(env).toMatch(/^PARLEY_[A-Z0-9]+(_[A-Z0-9]+)*$/);
      expect(envNameOf(key.split('.'))).toBe(env);
    }
    expect(envNameOf(['chat', 'limits', 'maxMessageChars'])).toBe('PARLEY_CHAT_LIMITS_MAX_MESSAGE_CHARS');
  });

  it('config - every key can be set through its environment variable', () => {
    const dir = home();
    const defaults = defaultConfig() as unknown as Record<string, Record<string, unknown>>;
    const valueAt = (config: unknown, key: string): unknown =>
      key.split('.').reduce<unknown>((node, segment) => (node as Record<string, unknown>)[segment], config);
    for (const { key, type, env } of configKeys()) {
      const current = valueAt(defaults, key);
      // A valid value different from the default where one is easy to name.
      const next =
        type === 'boolean' ? !current : type === 'number' ? (current as number) + 1 : key === 'store.synchronous' ? 'normal' : key === 'agents.wakeOn' ? 'addressed' : key === 'chat.defaultChannel' ? 'lobby' : key.startsWith('trust.localAccess.') ? 'member' : 'set-by-env';
      // Lists are comma-separated in the environment.
      const [raw, expected] =
        key === 'peers.listen'
          ? ['/ip4/127.0.0.1/tcp/0, /ip6/::1/tcp/7475', ['/ip4/127.0.0.1/tcp/0', '/ip6/::1/tcp/7475']]
          : type === 'list'
            ? ['meeting, requests', ['meeting', 'requests']]
            : [String(next), next];
      const config = load({ home: dir, env: { [env]: raw } });
      expect(valueAt(config, key), `${env} should set ${key}`).toEqual(expected);
    }
    expect(load({ home: dir, env: { PARLEY_MCP_ROOMS: 'all' } }).mcp.rooms).toBe('all');
    // The roster's path has the short alias the CLI documents.
    expect(load({ home: dir, env: { PARLEY_ROSTER: '/r.json' } }).trust.rosterPath).toBe('/r.json');
    expect(refusal(() => load({ home: dir, env: { PARLEY_TRUST_LOCAL_ACCESS_AGENT: 'boss' } }), 'CONFIG_INVALID').field).toBe('trust.localAccess.agent');
    expect(refusal(() => load({ home: dir, env: { PARLEY_MCP_ROOMS: 'chat,Bad Room' } }), 'CONFIG_INVALID').field).toBe('mcp.rooms.1');
  });

  it('config - every list-valued key takes a JSON list from --set and the environment; a malformed one is refused naming the key and source', () => {
    const dir = home();
    const listKeys = configKeys().filter((k) => k.type === 'list');
    expect(listKeys.map((k) => k.key).sort()).toEqual(['agents.stayAvailable', 'coordinator.sessions', 'mcp.excludedKinds', 'mcp.rooms', 'peers.listen']);
    const valueAt = (config: unknown, key: string): unknown =>
      key.split('.').reduce<unknown>((node, segment) => (node as Record<string, unknown>)[segment], config);
    for (const { key, env } of listKeys) {
      const flag = `--set ${key}`;
      // Two valid items of the key: names, or for peers.listen listen addresses.
      const [a, b] = key === 'peers.listen' ? ['/ip4/127.0.0.1/tcp/0', '/ip6/::1/tcp/7475'] : ['meeting', 'requests'];
      expect(valueAt(load({ home: dir, flags: { [key]: `["${a}","${b}"]` } }), key), flag).toEqual([a, b]);
      expect(valueAt(load({ home: dir, flags: { [key]: ` [ "${a}" ] ` } }), key), flag).toEqual([a]);
      expect(valueAt(load({ home: dir, flags: { [key]: '[]' } }), key), flag).toEqual([]);
      expect(valueAt(load({ home: dir, flags: { [key]: `${a}, ${b}` } }), key), flag).toEqual([a, b]);
      expect(valueAt(load({ home: dir, env: { [env]: `["${a}"]` } }), key), env).toEqual([a]);
      for (const malformed of ['["meeting"', '["meeting", 2]', '{"a":1}', '"meeting"', 'meeting"]', '[meeting]']) {
        const fromFlag = refusal(() => load({ home: dir, flags: { [key]: malformed } }), 'CONFIG_INVALID');
        expect(fromFlag.field).toBe(key);
        expect(fromFlag.message).toContain(`"${key}" (from --set ${key})`);
        expect(fromFlag.message).toContain('JSON list of strings');
        const fromEnv = refusal(() => load({ home: dir, env: { [env]: malformed } }), 'CONFIG_INVALID');
        expect(fromEnv.message).toContain(`"${key}" (from ${env})`);
      }
    }
    // The case the issue names: the architect is excluded, not a kind called ["architect"].
    expect(load({ home: dir, flags: { 'mcp.excludedKinds': '["architect"]' } }).mcp.excludedKinds).toEqual(['architect']);
  });

  it('config - resolveHome prefers the flag, then PARLEY_HOME, then ~/.parley', () => {
    const flag = path.join(os.tmpdir(), 'parley-flag-home');
    const fromEnv = path.join(os.tmpdir(), 'parley-env-home');
    expect(resolveHome(flag, { PARLEY_HOME: fromEnv })).toBe(flag);
    expect(resolveHome(undefined, { PARLEY_HOME: fromEnv })).toBe(fromEnv);
    expect(resolveHome(undefined, {})).toBe(path.join(os.homedir(), D.DEFAULT_HOME_DIRNAME));
    expect(resolveHome(undefined, {})).toBe(path.join(os.homedir(), '.parley'));
    // Relative paths are made absolute against the working directory.
    expect(resolveHome('rel/home', {})).toBe(path.resolve('rel/home'));
    expect(path.isAbsolute(resolveHome(undefined, { PARLEY_HOME: 'relative' }))).toBe(true);
  });

  it('config - an empty PARLEY_HOME is ignored like other empty variables', () => {
    expect(resolveHome(undefined, { PARLEY_HOME: '' })).toBe(path.join(os.homedir(), D.DEFAULT_HOME_DIRNAME));
  });

  it('config - openHub validates a partial config and names the bad key before touching the home', async () => {
    const parent = home();
    const dir = path.join(parent, 'never-created');
    const thrown = await caught(() => openHub({ home: dir, logger: createSilentLogger(), config: { chat: { limits: { maxMessageChars: 'x' } } } as unknown as ConfigInput }));
    expect(thrown).toBeInstanceOf(ParleyError);
    const error = thrown as ParleyError;
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.field).toBe('chat.limits.maxMessageChars');
    expect(error.message).toContain('"chat.limits.maxMessageChars"');
    expect(fs.existsSync(dir)).toBe(false);

    // A valid partial config is completed with the defaults.
    const hub = await openHub({ home: dir, logger: createSilentLogger(), config: { chat: { limits: { maxMessageChars: 100 } } } });
    try {
      expect(hub.config.chat.limits).toMatchObject({ maxMessageChars: 100, maxInputChars: D.DEFAULT_MAX_INPUT_CHARS, writeBurst: D.DEFAULT_WRITE_BURST, writesPerMinute: D.DEFAULT_WRITES_PER_MINUTE });
      expect(hub.config.server.port).toBe(D.DEFAULT_PORT);
    } finally {
      await hub.close();
    }
  });

  it('config - openHub refuses an invalid config given to it, naming the key, before taking the home', async () => {
    const dir = home();
    const refused = await caught(() => openHub({ home: dir, config: { meeting: { ringSize: 0 } } as ConfigInput, logger: createSilentLogger() }));
    expect(refused).toMatchObject({ code: 'CONFIG_INVALID', field: 'meeting.ringSize' });
    expect(refused.message).toContain('the options given to openHub');
    // Nothing was taken or created: a valid hub opens on the same home.
    const hub = await openHub({ home: dir, logger: createSilentLogger() });
    await hub.close();
  });
});

