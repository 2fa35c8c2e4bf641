import fs from 'node:fs';
import path from 'node:path';
import { ParleyError } from '../errors/parley-error.js';
import { CONFIG_FILENAME } from './defaults.js';
import { ConfigSchema, type Config } from './schema.js';

/**
 * Loads the configuration once, at start: defaults, then the JSON file, then
 * `PARLEY_*` environment variables, then command-line flags. Any invalid value
 * fails with CONFIG_INVALID naming the key and where the value came from.
 */
export interface LoadConfigOptions {
  home: string;
  /** `--config FILE`; when absent, `<home>/config.json` is read if it exists. */
  configFile?: string | undefined;
  env?: NodeJS.ProcessEnv;
  /** Dotted keys from flags, e.g. `{ 'server.port': 8080 }`; values may be strings. */
  flags?: Record<string, unknown>;
  /** How each flag was spelt on the command line, for error messages (default `--set KEY`). */
  flagNames?: Record<string, string>;
}

/** Environment variables that are shorter aliases of config keys (fixed contracts). */
const ENV_ALIASES: Record<string, string> = {
  PARLEY_PORT: 'server.port',
  PARLEY_HOST: 'server.host',
  PARLEY_ROSTER: 'trust.rosterPath',
};

export { resolveHome } from './home.js';

export function defaultConfig(): Config {
  return ConfigSchema.parse({});
}

/** Every leaf key of the config, as dotted paths, with the type of its default value. */
type KeyType = 'string' | 'number' | 'boolean' | 'list';

/** The keys a mistyped one may have meant: those of its section, else the sections. */
function knownKeysNear(key: string, keys: Array<{ key: string }>): string {
  const section = key.split('.')[0];
  const inSection = keys.filter((k) => k.key.split('.')[0] === section).map((k) => k.key);
  if (inSection.length > 0) return `the keys of "${section}" are ${inSection.join(', ')}`;
  return `the config sections are ${[...new Set(keys.map((k) => k.key.split('.')[0]))].join(', ')}`;
}

export function configKeys(): Array<{ key: string; type: KeyType; env: string }> {
  const keys: Array<{ key: string; type: KeyType; env: string }> = [];
  const walk = (value: unknown, prefix: string[]): void => {
    // Lists come from the environment and flags as JSON (["chat"]), comma-separated ("chat,meeting") or one word ("all").
    if (Array.isArray(value)) {
      keys.push({ key: prefix.join('.'), type: 'list', env: envNameOf(prefix) });
      return;
    }
    if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) walk(v, [...prefix, k]);
      return;
    }
    const type = typeof value;
    if (type === 'string' || type === 'number' || type === 'boolean') {
      keys.push({ key: prefix.join('.'), type, env: envNameOf(prefix) });
    }
  };
  walk(defaultConfig(), []);
  return keys;
}

export function envNameOf(pathSegments: string[]): string {
  return `PARLEY_${pathSegments.map((s) => s.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()).join('_')}`;
}

export function loadConfig(options: LoadConfigOptions): Config {
  const env = options.env ?? process.env;
  const sources = new Map<string, string>();
  const file = options.configFile ?? path.join(options.home, CONFIG_FILENAME);
  const raw: Record<string, unknown> = readConfigFile(file, options.configFile !== undefined);
  markSources(raw, [], `config file ${file}`, sources);

  const keys = configKeys();
  const byKey = new Map(keys.map((k) => [k.key, k]));
  for (const spec of keys) {
    const value = env[spec.env];
    if (value !== undefined && value !== '') setPath(raw, spec.key, coerce(value, spec.type, spec.key, spec.env), sources, spec.env);
  }
  for (const [alias, key] of Object.entries(ENV_ALIASES)) {
    const value = env[alias];
    const spec = byKey.get(key);
    if (value !== undefined && value !== '' && spec) setPath(raw, key, coerce(value, spec.type, key, alias), sources, alias);
  }
  for (const [key, value] of Object.entries(options.flags ?? {})) {
    if (value === undefined) continue;
    const spec = byKey.get(key);
    if (!spec) {
      throw new ParleyError('CONFIG_INVALID', `Unknown config key "${key}" given as a flag; ${knownKeysNear(key, keys)}.`, {
        field: key,
      });
    }
    const flagName = options.flagNames?.[key] ?? `--set ${key}`;
    setPath(raw, key, typeof value === 'string' ? coerce(value, spec.type, key, flagName) : value, sources, flagName);
  }

  return parseConfig(raw, (key) => sources.get(key) ?? sourceOfPrefix(key, sources));
}

/**
 * Validates a raw configuration against the schema, filling defaults. An
 * invalid value is CONFIG_INVALID naming the key and, when `sourceOf` knows
 * it, where the value came from. Used for loaded config and for config given
 * to the library directly.
 */
export function parseConfig(raw: unknown, sourceOf: (key: string) => string | undefined = () => undefined): Config {
  const result = ConfigSchema.safeParse(raw ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const key = issue ? issue.path.map(String).join('.') : '(config)';
  const unknownKeys = issue?.code === 'unrecognized_keys' ? issue.keys : [];
  const fullKey = unknownKeys.length > 0 ? [key, unknownKeys[0]].filter(Boolean).join('.') : key;
  const from = sourceOf(fullKey) ?? 'defaults';
  const reason = unknownKeys.length > 0 ? 'unknown key; check its spelling against the documented keys' : (issue?.message ?? 'invalid');
  throw new ParleyError('CONFIG_INVALID', `Invalid config key "${fullKey}" (from ${from}): ${reason}.`, { field: fullKey });
}

function readConfigFile(file: string, required: boolean): Record<string, unknown> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if (!required && (error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ParleyError('CONFIG_INVALID', `Cannot read config file ${file}: ${(error as Error).message}.`, { field: 'config' });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ParleyError('CONFIG_INVALID', `Config file ${file} is not valid JSON: ${(error as Error).message}. Fix the file.`, {
      field: 'config',
    });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ParleyError('CONFIG_INVALID', `Config file ${file} must hold a JSON object.`, { field: 'config' });
  }
  return parsed as Record<string, unknown>;
}

function coerce(value: string, type: KeyType, key: string, from: string): unknown {
  if (type === 'string') return value;
  if (type === 'list') return parseList(value, key, from);
  if (type === 'number') {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n)) {
      throw new ParleyError('CONFIG_INVALID', `Invalid config key "${key}" (from ${from}): "${value}" is not a number.`, { field: key });
    }
    return n;
  }
  const lowered = value.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(lowered)) return true;
  if (['false', '0', 'no', 'off'].includes(lowered)) return false;
  throw new ParleyError('CONFIG_INVALID', `Invalid config key "${key}" (from ${from}): "${value}" is not true or false.`, { field: key });
}

/**
 * A list-valued key given as one string: a JSON list (`["chat","meeting"]`),
 * a comma-separated one (`chat, meeting`), or the word `all`. Anything that
 * looks like half a JSON list is refused rather than read as a name.
 */
function parseList(value: string, key: string, from: string): unknown {
  const trimmed = value.trim();
  if (trimmed === 'all') return 'all';
  const refuse = (): never => {
    throw new ParleyError(
      'CONFIG_INVALID',
      `Invalid config key "${key}" (from ${from}): "${value}" is not a list; write it as a JSON list of strings (["chat","meeting"]) or comma-separated (chat,meeting).`,
      { field: key },
    );
  };
  if (trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      return refuse();
    }
    if (!Array.isArray(parsed) || !parsed.every((item) => typeof item === 'string')) return refuse();
    return parsed;
  }
  const items = trimmed.split(',').map((item) => item.trim()).filter(Boolean);
  if (items.some((item) => /["[\]]/.test(item))) return refuse();
  return items;
}

function setPath(target: Record<string, unknown>, key: string, value: unknown, sources: Map<string, string>, from: string): void {
  const segments = key.split('.');
  let node = target;
  segments.slice(0, -1).forEach((segment, i) => {
    const next = node[segment];
    if (next === undefined) node[segment] = {};
    else if (next === null || typeof next !== 'object' || Array.isArray(next)) {
      // A section given as something else than an object is an error, not something to paper over.
      const sectionKey = segments.slice(0, i + 1).join('.');
      throw new ParleyError(
        'CONFIG_INVALID',
        `Invalid config key "${sectionKey}" (from ${sources.get(sectionKey) ?? 'config file'}): must be an object of settings.`,
        { field: sectionKey },
      );
    }
    node = node[segment] as Record<string, unknown>;
  });
  node[segments[segments.length - 1] as string] = value;
  sources.set(key, from);
}

function markSources(value: unknown, prefix: string[], from: string, sources: Map<string, string>): void {
  if (prefix.length > 0) sources.set(prefix.join('.'), from);
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) markSources(v, [...prefix, k], from, sources);
    return;
  }
  sources.set(prefix.join('.'), from);
}

function sourceOfPrefix(key: string, sources: Map<string, string>): string | undefined {
  for (const [k, from] of sources) if (k.startsWith(`${key}.`) || key.startsWith(`${k}.`)) return from;
  return undefined;
}
