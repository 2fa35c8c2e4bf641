/**
 * A tiny structured logger: one JSON object per line on stderr, so that stdout
 * stays free for protocol traffic (MCP stdio) and command output. Tests pass a
 * memory logger to assert on what was logged.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface LogRecord {
  level: LogLevel;
  msg: string;
  [key: string]: unknown;
}

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

const LEVEL_RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

function makeLogger(sink: (record: LogRecord) => void, minLevel: LogLevel): Logger {
  const emit = (level: LogLevel, msg: string, fields?: Record<string, unknown>): void => {
    if (LEVEL_RANK[level] < LEVEL_RANK[minLevel]) return;
    sink({ level, msg, ...fields });
  };
  return {
    debug: (msg, fields) => emit('debug', msg, fields),
    info: (msg, fields) => emit('info', msg, fields),
    warn: (msg, fields) => emit('warn', msg, fields),
    error: (msg, fields) => emit('error', msg, fields),
  };
}

export function createStderrLogger(minLevel: LogLevel = 'info'): Logger {
  return makeLogger((record) => {
    process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), ...record }, errorReplacer)}\n`);
  }, minLevel);
}

export function createSilentLogger(): Logger {
  return makeLogger(() => undefined, 'error');
}

export interface MemoryLogger extends Logger {
  readonly records: LogRecord[];
}

export function createMemoryLogger(minLevel: LogLevel = 'debug'): MemoryLogger {
  const records: LogRecord[] = [];
  return Object.assign(makeLogger((record) => records.push(record), minLevel), { records });
}

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message };
  return value;
}
