import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as D from '../../src/config/defaults.js';
import { defaultConfig } from '../../src/config/load.js';
import { tempHomesRemovedAfterEach } from '../helpers/hub.js';
import { refusal } from '../helpers/refusal.js';
import { load, writeConfig } from './config-files.js';

/** A config that cannot be used is refused at load, naming the key (and where it came from) and what to do. */
const home = tempHomesRemovedAfterEach('parley-config-');

describe('config refused', () => {
  it('config - a missing default config file is fine, a missing explicit --config file fails', () => {
    const dir = home();
    expect(load({ home: dir })).toEqual(defaultConfig());
    const missing = path.join(dir, 'nope.json');
    const error = refusal(() => load({ home: dir, configFile: missing }), 'CONFIG_INVALID');
    expect(error.field).toBe('config');
    expect(error.message).toContain(missing);
    expect(error.message).toMatch(/Cannot read config file/);
  });

  it('config - an unknown key given as a flag is refused naming it and the keys it may have meant', () => {
    const dir = home();
    const inSection = refusal(() => load({ home: dir, flags: { 'retention.hourz': '3' } }), 'CONFIG_INVALID');
    expect(inSection.field).toBe('retention.hourz');
    expect(inSection.message).toMatch(/^Unknown config key "retention\.hourz" given as a flag; the keys of "retention" are [^;]*retention\.hours/);
    const noSection = refusal(() => load({ home: dir, flags: { 'retentoin.hours': '3' } }), 'CONFIG_INVALID');
    expect(noSection.message).toMatch(/the config sections are [^;]*\bretention\b/);
    expect(noSection.message).not.toContain('parley --help');
  });

  it('config - a string where a number is expected names the key and its source', () => {
    const dir = home();
    const file = writeConfig(dir, { server: { port: 'abc' } });
    const fromFile = refusal(() => load({ home: dir }), 'CONFIG_INVALID');
    expect(fromFile.field).toBe('server.port');
    expect(fromFile.message).toContain('"server.port"');
    expect(fromFile.message).toContain(`config file ${file}`);
    expect(fromFile.message).toMatch(/expected number/);

    const clean = home();
    const fromEnv = refusal(() => load({ home: clean, env: { PARLEY_CHAT_LIMITS_MAX_MESSAGE_CHARS: 'lots' } }), 'CONFIG_INVALID');
    expect(fromEnv.field).toBe('chat.limits.maxMessageChars');
    expect(fromEnv.message).toContain('"chat.limits.maxMessageChars"');
    expect(fromEnv.message).toContain('PARLEY_CHAT_LIMITS_MAX_MESSAGE_CHARS');
    expect(fromEnv.message).toContain('"lots" is not a number');

    const fromAlias = refusal(() => load({ home: clean, env: { PARLEY_PORT: 'eighty' } }), 'CONFIG_INVALID');
    expect(fromAlias.field).toBe('server.port');
    expect(fromAlias.message).toContain('(from PARLEY_PORT)');

    const fromFlag = refusal(() => load({ home: clean, flags: { 'requests.maxHop': 'three' } }), 'CONFIG_INVALID');
    expect(fromFlag.field).toBe('requests.maxHop');
    expect(fromFlag.message).toContain('(from --set requests.maxHop)');
    expect(fromFlag.message).toContain('"three" is not a number');

    const badBoolean = refusal(() => load({ home: clean, env: { PARLEY_CHAT_ENABLED: 'maybe' } }), 'CONFIG_INVALID');
    expect(badBoolean.field).toBe('chat.enabled');
    expect(badBoolean.message).toContain('(from PARLEY_CHAT_ENABLED)');
    expect(badBoolean.message).toContain('not true or false');
  });

  it('config - an out-of-range value names the key and its source: file, env var or flag', () => {
    const dir = home();
    const file = writeConfig(dir, { server: { port: -1 } });
    const fromFile = refusal(() => load({ home: dir }), 'CONFIG_INVALID');
    expect(fromFile.field).toBe('server.port');
    expect(fromFile.message).toContain(`"server.port" (from config file ${file})`);

    const clean = home();
    const fromEnv = refusal(() => load({ home: clean, env: { PARLEY_PORT: '-1' } }), 'CONFIG_INVALID');
    expect(fromEnv.field).toBe('server.port');
    expect(fromEnv.message).toContain('"server.port" (from PARLEY_PORT)');

    const fromFlag = refusal(() => load({ home: clean, flags: { 'server.port': 70_000 } }), 'CONFIG_INVALID');
    expect(fromFlag.field).toBe('server.port');
    expect(fromFlag.message).toContain('"server.port" (from --set server.port)');

    const notInt = refusal(() => load({ home: clean, env: { PARLEY_MEETING_RING_SIZE: '1.5' } }), 'CONFIG_INVALID');
    expect(notInt.field).toBe('meeting.ringSize');
    expect(notInt.message).toContain('(from PARLEY_MEETING_RING_SIZE)');

    const badEnum = refusal(() => load({ home: clean, env: { PARLEY_STORE_SYNCHRONOUS: 'sometimes' } }), 'CONFIG_INVALID');
    expect(badEnum.field).toBe('store.synchronous');
    expect(badEnum.message).toContain('(from PARLEY_STORE_SYNCHRONOUS)');

    const badWakeOn = refusal(() => load({ home: clean, env: { PARLEY_AGENTS_WAKE_ON: 'sometimes' } }), 'CONFIG_INVALID');
    expect(badWakeOn.field).toBe('agents.wakeOn');
    expect(badWakeOn.message).toContain('"agents.wakeOn" (from PARLEY_AGENTS_WAKE_ON)');

    // The agent hooks' keys.
    const longWait = refusal(() => load({ home: clean, env: { PARLEY_AGENTS_STAY_AVAILABLE_SECONDS: '3601' } }), 'CONFIG_INVALID');
    expect(longWait.field).toBe('agents.stayAvailableSeconds');
    expect(longWait.message).toContain('(from PARLEY_AGENTS_STAY_AVAILABLE_SECONDS)');
    const badHandle = refusal(() => load({ home: clean, flags: { 'agents.stayAvailable': '["coder-1","not a handle"]' } }), 'CONFIG_INVALID');
    expect(badHandle.field).toBe('agents.stayAvailable.1');
    expect(badHandle.message).toContain('"*" for every agent');
    const negativeCap = refusal(() => load({ home: clean, flags: { 'agents.maxStopContinuations': '-1' } }), 'CONFIG_INVALID');
    expect(negativeCap.field).toBe('agents.maxStopContinuations');
    expect(load({ home: clean, flags: { 'agents.stayAvailable': '*' } }).agents.stayAvailable).toEqual(['*']);
  });

  it('config - sign-in waits that contradict each other are refused naming the key', () => {
    const dir = home();
    const longer = refusal(() => load({ home: dir, env: { PARLEY_WEBUI_SIGN_IN_BACKOFF_MS: '2000', PARLEY_WEBUI_SIGN_IN_MAX_BACKOFF_MS: '1000' } }), 'CONFIG_INVALID');
    expect(longer.field).toBe('webui.signIn.backoffMs');
    expect(longer.message).toContain('(from PARLEY_WEBUI_SIGN_IN_BACKOFF_MS)');
    expect(longer.message).toContain('must not exceed webui.signIn.maxBackoffMs');
    const forgotten = refusal(() => load({ home: dir, flags: { 'webui.signIn.forgetMs': '1000' } }), 'CONFIG_INVALID');
    expect(forgotten.field).toBe('webui.signIn.maxBackoffMs');
  });

  it('config - an unknown key in the file (a typo) is refused with its full dotted name', () => {
    const dir = home();
    const file = writeConfig(dir, { chat: { limit: { maxMessageChars: 100 } } });
    const nested = refusal(() => load({ home: dir }), 'CONFIG_INVALID');
    expect(nested.field).toBe('chat.limit');
    expect(nested.message).toContain('"chat.limit"');
    expect(nested.message).toContain(`config file ${file}`);
    expect(nested.message).toMatch(/unknown key/);

    writeConfig(dir, { sever: { port: 1 } });
    const topLevel = refusal(() => load({ home: dir }), 'CONFIG_INVALID');
    expect(topLevel.field).toBe('sever');
    expect(topLevel.message).toContain(`"sever" (from config file ${file})`);

    const flag = refusal(() => load({ home: home(), flags: { 'server.prot': 1 } }), 'CONFIG_INVALID');
    expect(flag.field).toBe('server.prot');
    expect(flag.message).toContain('"server.prot"');
    expect(flag.message).toMatch(/flag/);
  });

  it('config - a malformed JSON file or one that is not an object is refused, naming the file', () => {
    const dir = home();
    const file = writeConfig(dir, '{ "server": { "port": 8080 ');
    const malformed = refusal(() => load({ home: dir }), 'CONFIG_INVALID');
    expect(malformed.field).toBe('config');
    expect(malformed.message).toContain(file);
    expect(malformed.message).toMatch(/not valid JSON/);

    for (const content of ['[1, 2]', '42', 'null', '"text"']) {
      writeConfig(dir, content);
      const error = refusal(() => load({ home: dir }), 'CONFIG_INVALID');
      expect(error.field).toBe('config');
      expect(error.message).toContain(file);
      expect(error.message).toMatch(/must hold a JSON object/);
    }
  });

  it('config - waitTimeoutMs greater than maxWaitTimeoutMs is refused', () => {
    const dir = home();
    const file = writeConfig(dir, { inbox: { waitTimeoutMs: 200_000 } });
    const fromFile = refusal(() => load({ home: dir }), 'CONFIG_INVALID');
    expect(fromFile.field).toBe('inbox.waitTimeoutMs');
    expect(fromFile.message).toContain(`config file ${file}`);
    expect(fromFile.message).toContain(`inbox.maxWaitTimeoutMs (${D.DEFAULT_MAX_WAIT_TIMEOUT_MS})`);

    const fromEnv = refusal(() => load({ home: home(), env: { PARLEY_INBOX_WAIT_TIMEOUT_MS: '5000', PARLEY_INBOX_MAX_WAIT_TIMEOUT_MS: '4000' } }), 'CONFIG_INVALID');
    expect(fromEnv.field).toBe('inbox.waitTimeoutMs');
    expect(fromEnv.message).toContain('(from PARLEY_INBOX_WAIT_TIMEOUT_MS)');
    expect(fromEnv.message).toContain('inbox.maxWaitTimeoutMs (4000)');

    // Equal is allowed.
    const ok = load({ home: home(), env: { PARLEY_INBOX_WAIT_TIMEOUT_MS: '4000', PARLEY_INBOX_MAX_WAIT_TIMEOUT_MS: '4000' } });
    expect(ok.inbox).toMatchObject({ waitTimeoutMs: 4000, maxWaitTimeoutMs: 4000 });
  });

  it('config - an unknown key holding an empty object still names the config file', () => {
    const dir = home();
    const file = writeConfig(dir, { chat: { limit: {} } });
    const error = refusal(() => load({ home: dir }), 'CONFIG_INVALID');
    expect(error.field).toBe('chat.limit');
    expect(error.message).toContain(`config file ${file}`);
  });

  it('config - an invalid section in the file is reported even when the environment sets a key inside it', () => {
    const dir = home();
    writeConfig(dir, { chat: 5 });
    const error = refusal(() => load({ home: dir, env: { PARLEY_CHAT_LIMITS_MAX_MESSAGE_CHARS: '100' } }), 'CONFIG_INVALID');
    expect(error.field).toBe('chat');
  });

});
