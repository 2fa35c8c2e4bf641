import { applySpans, mergeSpans, type Redactor, type TextSpan } from './redactor.js';

/**
 * Redaction of what an author supplies besides message text: a title, a tag,
 * a presence note, a profile, a request's params, a response's result. Every
 * string at any depth of the value passes the secret scanner and each secret
 * becomes `[redacted]` in place. Nothing is truncated and no note is appended
 * inside the value (a note would change the data a program reads); the caller
 * marks the event `redacted` instead, as it does for messages.
 *
 * Object keys are scanned too: a map keyed by token (`{"ghp_…": "ci"}`) would
 * otherwise keep the token. A string value is scanned together with its key,
 * as `key: value`, because some rules only know a secret by its label
 * (`aws_secret_access_key: …`); each part keeps only the spans that fall in it.
 */

export interface AuthoredRedaction<T> {
  value: T;
  redacted: boolean;
  /** The scanner failed or ran out of time; what it did not scan is kept as given. */
  scannerError: boolean;
}

/** Separates a key from its value in the text scanned for both. */
const KEY_SEPARATOR = ': ';

/** True when `value` nests objects and arrays deeper than `maxDepth` (a scalar has depth 0). */
export function jsonDepthExceeds(value: unknown, maxDepth: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (maxDepth <= 0) return true;
  const children: unknown[] = Array.isArray(value) ? value : Object.values(value);
  return children.some((child) => jsonDepthExceeds(child, maxDepth - 1));
}

/** The part of `spans` inside [from, to), as spans of that part. */
function within(spans: readonly TextSpan[], from: number, to: number): TextSpan[] {
  return spans
    .map(({ start, end }) => ({ start: Math.max(start, from) - from, end: Math.min(end, to) - from }))
    .filter(({ start, end }) => end > start);
}

/**
 * Walking a value builds the list of texts to scan and a function that puts
 * the value back together from their spans, so that one scanner call covers
 * the whole value (with one time budget).
 */
interface Plan {
  texts: string[];
  /** Set when a rebuild replaced something. */
  redacted: boolean;
}

type Rebuild = (spans: readonly TextSpan[][]) => unknown;

function replaced(plan: Plan, text: string, spans: readonly TextSpan[]): string {
  if (mergeSpans(spans, text.length).length === 0) return text;
  plan.redacted = true;
  return applySpans(text, spans);
}

function planValue(plan: Plan, value: unknown, depthLeft: number): Rebuild {
  if (typeof value === 'string') {
    const i = plan.texts.push(value) - 1;
    return (spans) => replaced(plan, value, spans[i] ?? []);
  }
  if (value === null || typeof value !== 'object') return () => value;
  // Callers check the depth with a clear error first; this only keeps the recursion bounded.
  if (depthLeft <= 0) throw new RangeError('value nested deeper than the redaction walk allows');
  if (Array.isArray(value)) {
    const items = value.map((item) => planValue(plan, item, depthLeft - 1));
    return (spans) => items.map((item) => item(spans));
  }
  const entries = Object.entries(value).map(([key, child]): ((spans: readonly TextSpan[][]) => [string, unknown]) => {
    if (typeof child === 'string') {
      const valueStart = key.length + KEY_SEPARATOR.length;
      const i = plan.texts.push(key + KEY_SEPARATOR + child) - 1;
      return (spans) => {
        const found = spans[i] ?? [];
        return [replaced(plan, key, within(found, 0, key.length)), replaced(plan, child, within(found, valueStart, valueStart + child.length))];
      };
    }
    const i = plan.texts.push(key) - 1;
    const rebuildChild = planValue(plan, child, depthLeft - 1);
    return (spans) => [replaced(plan, key, spans[i] ?? []), rebuildChild(spans)];
  });
  return (spans) => Object.fromEntries(distinctKeys(entries.map((entry) => entry(spans))));
}

/**
 * Two keys redacted to the same text must not overwrite each other: a later
 * one that meets a key already used gets ` (2)`, ` (3)`… appended.
 */
function distinctKeys(entries: Array<[string, unknown]>): Array<[string, unknown]> {
  const used = new Set<string>();
  return entries.map(([key, value]) => {
    let unique = key;
    for (let n = 2; used.has(unique); n++) unique = `${key} (${n})`;
    used.add(unique);
    return [unique, value];
  });
}

/**
 * Redacts every string of `value` (a string, an array, or a JSON object) at
 * any depth up to `maxDepth` levels of nesting, keys included. The input is
 * not changed; the result is a copy when anything was redacted.
 */
export async function redactAuthored<T>(redactor: Redactor, value: T, maxDepth: number): Promise<AuthoredRedaction<T>> {
  const plan: Plan = { texts: [], redacted: false };
  const rebuild = planValue(plan, value, maxDepth);
  if (plan.texts.length === 0) return { value, redacted: false, scannerError: false };
  const found = await redactor.find(plan.texts);
  const rebuilt = rebuild(found.spans) as T;
  return plan.redacted ? { value: rebuilt, redacted: true, scannerError: found.scannerError } : { value, redacted: false, scannerError: found.scannerError };
}
