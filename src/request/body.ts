import type { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { ParleyError } from '../errors/parley-error.js';
import { nodeBindings } from './node-bindings.js';

/**
 * Request bodies, read the same way by the REST routes and the MCP endpoint
 * (both mounted on the hub's one HTTP server). The size limit is checked against Content-Length before
 * anything is read, and counted while reading when the body is chunked. On the
 * Node server the body is read straight from the socket's IncomingMessage:
 * going through the fetch `Request` would build a web stream and an undici
 * Request for every call, which cost more than the rest of a post.
 */
export interface BodyVariables {
  maxBodyBytes: number;
}

export function bodyLimit(maxBytes: number): MiddlewareHandler<{ Variables: BodyVariables }> {
  return async (c, next) => {
    const declared = incomingOf(c)?.headers['content-length'] ?? c.req.header('content-length');
    if (declared !== undefined && Number(declared) > maxBytes) throw tooLarge(maxBytes);
    c.set('maxBodyBytes', maxBytes);
    await next();
  };
}

/**
 * Reads a JSON object body. A body not sent as application/json is refused
 * before it is read (UNSUPPORTED_MEDIA_TYPE naming Content-Type): a form or a
 * text/plain body is not parsed as JSON by chance. Malformed JSON is
 * INVALID_INPUT naming the body.
 */
export async function jsonBody(c: Context): Promise<Record<string, unknown>> {
  requireJsonContentType(c);
  const text = await readBodyText(c);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ParleyError('INVALID_INPUT', 'Invalid body: it is not valid JSON. Send a JSON object with Content-Type: application/json.', {
      field: 'body',
    });
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new ParleyError('INVALID_INPUT', 'Invalid body: must be a JSON object.', { field: 'body' });
  }
  return body as Record<string, unknown>;
}

/** A query flag: "true"/"1" is true, absent or "false"/"0" is false; anything else is INVALID_INPUT. */
export function boolQuery(c: Context, name: string): boolean {
  const value = c.req.query(name);
  if (value === undefined || value === 'false' || value === '0') return false;
  if (value === 'true' || value === '1' || value === '') return true;
  throw new ParleyError('INVALID_INPUT', `Invalid ${name}: "${value}" is not true or false.`, { field: name });
}

/** A query parameter as an integer, or undefined when absent; anything else is INVALID_INPUT naming it. */
export function intQuery(c: Context, name: string): number | undefined {
  const value = c.req.query(name);
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value)) throw new ParleyError('INVALID_INPUT', `Invalid ${name}: "${value}" is not an integer.`, { field: name });
  return Number(value);
}

/** Whether a Content-Type names the only body the hub reads: `application/json`, with no charset or a UTF-8 one. */
export function isJsonContentType(header: string | undefined): boolean {
  const [mediaType, ...parameters] = (header ?? '').split(';').map((part) => part.trim().toLowerCase());
  const charset = parameters.find((parameter) => parameter.startsWith('charset='))?.slice('charset='.length).replace(/^"(.*)"$/, '$1');
  return mediaType === 'application/json' && (charset === undefined || charset === 'utf-8' || charset === 'utf8');
}

function requireJsonContentType(c: Context): void {
  const header = c.req.header('content-type');
  if (isJsonContentType(header)) return;
  const sent = header === undefined ? 'no Content-Type' : `Content-Type "${header.slice(0, 100)}"`;
  throw new ParleyError('UNSUPPORTED_MEDIA_TYPE', `The request body was sent with ${sent}; send a JSON object with Content-Type: application/json.`, {
    field: 'Content-Type',
  });
}

/** Decodes the body's bytes; bytes that are not UTF-8 are refused rather than replaced with U+FFFD. */
function utf8Text(bytes: Uint8Array): string {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    throw new ParleyError('INVALID_INPUT', 'Invalid body: it is not valid UTF-8. Send the JSON encoded as UTF-8.', { field: 'body' });
  }
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

function tooLarge(maxBytes: number): ParleyError {
  return new ParleyError('PAYLOAD_TOO_LARGE', `The request body is over ${maxBytes} bytes; send less, or reference a file.`, { field: 'body' });
}

function incomingOf(c: Context): IncomingMessage | undefined {
  return nodeBindings(c).incoming;
}

/** The raw body as text, within the size limit (see bodyLimit); INVALID_INPUT when it is not UTF-8. */
export async function readBodyText(c: Context): Promise<string> {
  const maxBytes = (c.get('maxBodyBytes') as number | undefined) ?? Number.POSITIVE_INFINITY;
  const incoming = incomingOf(c);
  if (!incoming) {
    // In-process requests (app.request in tests, other fetch hosts).
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    if (bytes.byteLength > maxBytes) throw tooLarge(maxBytes);
    return utf8Text(bytes);
  }
  if (incoming.readableEnded) throw new ParleyError('INVALID_INPUT', 'The request body was already read.', { field: 'body' });
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = (): void => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        // Stop buffering; the adapter drains (or cuts) the rest after the 413 is sent.
        cleanup();
        incoming.pause();
        reject(tooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      try {
        resolve(utf8Text(Buffer.concat(chunks, size)));
      } catch (error) {
        reject(error as Error);
      }
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onError);
  });
}
