import { styleText } from 'node:util';

/**
 * Colours for the CLI's human-readable output, only where a person reads it:
 * on a terminal, unless NO_COLOR is set or TERM is "dumb"; FORCE_COLOR turns
 * them on anywhere (for pagers that understand them). Piped output and --json
 * stay plain.
 */
export interface Style {
  time(text: string): string;
  author(text: string): string;
  tag(text: string): string;
  error(text: string): string;
}

type Format = Parameters<typeof styleText>[0];

export function colourWanted(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false') return true;
  return stream.isTTY === true && env.TERM !== 'dumb';
}

export function styleFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): Style {
  const on = colourWanted(stream, env);
  // The choice is made here, for this stream and environment. Node 22.13+ would
  // otherwise decide again against process.stdout and process.env (so the
  // errors on a terminal's stderr, or a style asked for in a test, came out
  // plain whenever stdout was piped); Node 20 ignores the option.
  const paint = (format: Format) => (text: string) => (on ? styleText(format, text, { validateStream: false }) : text);
  return { time: paint('dim'), author: paint(['bold', 'cyan']), tag: paint('yellow'), error: paint('red') };
}
