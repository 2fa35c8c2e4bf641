/**
 * The posting rules of one message: truncate, then redact secrets, then say so.
 * Scanning the truncated text rather than the original keeps the cost bounded
 * by maxMessageChars and never redacts text that is not stored.
 */

import { REDACTION_NOTE, REDACTION_PLACEHOLDER, TRUNCATION_MARKER } from '../config/defaults.js';
import type { Logger } from '../util/logger.js';
import { ALL_RULES, candidateRules, mightContainSecret } from './prefilter.js';
import { createSecretlintScanner, type SecretScanner, type SecretSpan } from './scanner.js';
import { truncateText } from './truncate.js';

export interface RedactionOptions {
  maxMessageChars: number;
  scannerEnabled: boolean;
  scannerTimeoutMs: number;
  logger: Logger;
  /** Default: createSecretlintScanner(), created on first need and reused. */
  scanner?: SecretScanner;
}

export interface RedactionResult {
  text: string;
  truncated: boolean;
  redacted: boolean;
  /** The scanner failed or timed out; the text was stored unredacted. */
  scannerError: boolean;
}

/** The secrets of several texts, one list of spans per text (in order). */
export interface SecretSearch {
  spans: TextSpan[][];
  /** The scanner failed or ran out of time; texts it did not finish are left as they are. */
  scannerError: boolean;
}

export interface Redactor {
  /** A message's text: truncate, redact, and append the note once. */
  apply(text: string): Promise<RedactionResult>;
  /**
   * Where the secrets of each text are, without changing anything (for fields
   * other than message text, see authored.ts). One scanner time budget covers
   * all the texts, so a value of many strings costs at most one timeout.
   */
  find(texts: readonly string[]): Promise<SecretSearch>;
}

/** A [start, end) range of a text, in UTF-16 code units. */
export type TextSpan = Pick<SecretSpan, 'start' | 'end'>;

/**
 * Sorts spans, clamps them to [0, length], drops empty ones and merges those
 * that overlap or touch, so that each secret becomes one placeholder even when
 * several rules report it.
 */
export function mergeSpans(spans: readonly TextSpan[], length: number): TextSpan[] {
  const clamped = spans
    .map(({ start, end }) => ({ start: Math.max(0, Math.min(start, length)), end: Math.max(0, Math.min(end, length)) }))
    .filter(({ start, end }) => end > start)
    .sort((a, b) => a.start - b.start || a.end - b.end);
  const merged: TextSpan[] = [];
  for (const span of clamped) {
    const last = merged[merged.length - 1];
    if (last && span.start <= last.end) last.end = Math.max(last.end, span.end);
    else merged.push({ ...span });
  }
  return merged;
}

/** Replaces each (merged) span of `text` with `[redacted]`. */
export function applySpans(text: string, spans: readonly TextSpan[]): string {
  let out = '';
  let cursor = 0;
  for (const { start, end } of mergeSpans(spans, text.length)) {
    out += text.slice(cursor, start) + REDACTION_PLACEHOLDER;
    cursor = end;
  }
  return out + text.slice(cursor);
}

class ScannerTimeoutError extends Error {
  override readonly name = 'ScannerTimeoutError';
  constructor(ms: number) {
    super(`secret scanner timed out after ${ms} ms`);
  }
}

/**
 * Rejects if `work` takes longer than `ms` (what is left of a budget of
 * `budgetMs`); the timer never outlives the race.
 */
async function withTimeout<T>(work: Promise<T>, ms: number, budgetMs: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new ScannerTimeoutError(budgetMs)), ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

export function createRedactor(options: RedactionOptions): Redactor {
  const { maxMessageChars, scannerEnabled, scannerTimeoutMs, logger } = options;
  let scanner = options.scanner;

  async function find(texts: readonly string[]): Promise<SecretSearch> {
    const spans: TextSpan[][] = texts.map(() => []);
    if (!scannerEnabled) return { spans, scannerError: false };
    // Taken at the first text worth scanning: clean texts (most) cost only the prefilter.
    let deadline: number | undefined;
    for (let i = 0; i < texts.length; i++) {
      const text = texts[i]!;
      if (!mightContainSecret(text)) continue;
      deadline ??= performance.now() + scannerTimeoutMs;
      try {
        scanner ??= createSecretlintScanner();
        // Called inside the try so that a scanner throwing synchronously also fails open.
        const rules = candidateRules(text);
        const left = deadline - performance.now();
        if (left <= 0) throw new ScannerTimeoutError(scannerTimeoutMs);
        spans[i] = await withTimeout(scanner.scan(text, rules === ALL_RULES ? undefined : rules), left, scannerTimeoutMs);
      } catch (error) {
        // Fail open: a broken scanner must not stop the conversation. The text
        // itself is never logged, since it may hold the very secret. What was
        // found before the failure is still redacted.
        const reason = error instanceof Error ? error.message : String(error);
        logger.warn('Secret scanner failed; text stored without redaction', { scannerError: true, reason });
        return { spans, scannerError: true };
      }
    }
    return { spans, scannerError: false };
  }

  return {
    find,
    async apply(input: string): Promise<RedactionResult> {
      const { text, truncated } = truncateText(input, maxMessageChars);
      const found = await find([text]);
      // The truncation marker is ours, not the author's: a span running into
      // it (a key block whose END was cut away) stops where the marker starts.
      const bodyEnd = truncated ? Math.max(0, text.length - TRUNCATION_MARKER.length) : text.length;
      const inBody = mergeSpans(found.spans[0] ?? [], bodyEnd);
      if (inBody.length === 0) return { text, truncated, redacted: false, scannerError: found.scannerError };
      return { text: applySpans(text, inBody) + REDACTION_NOTE, truncated, redacted: true, scannerError: found.scannerError };
    },
  };
}
