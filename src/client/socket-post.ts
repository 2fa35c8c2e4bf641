import net from 'node:net';

/**
 * A POST to the hub over a plain socket: the proof that a process is the
 * home's hub (hub-proof.ts), and `parley hook`'s own request. Over a plain
 * socket for http:// rather than node:http: the hook runs on every tool call,
 * and loading node:http costs more than the request itself (about 8 ms on
 * Node 20 and 30 ms on Node 24, against 1 ms for node:net). The hub speaks
 * HTTP/1.1, so the request is written out and the answer read until the hub
 * closes the connection (`Connection: close`). An https:// hub (not on this
 * machine) goes through node:https.
 */
export interface PostResponse {
  status: number;
  text: string;
}

/** Rejected with this message when nothing listens at the address: the caller stays silent then. */
export const UNREACHABLE = 'unreachable';

const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ECONNRESET', 'EADDRNOTAVAIL']);

export function postJson(target: URL, headers: Record<string, string>, body: string, timeoutMs: number, signal: AbortSignal): Promise<PostResponse> {
  if (target.protocol === 'https:') return postOverHttps(target, headers, body, timeoutMs, signal);
  return new Promise((resolve, reject) => {
    let settled = false;
    const chunks: Buffer[] = [];
    const socket = net.connect({ host: target.hostname.replace(/^\[|\]$/g, ''), port: Number(target.port || 80) });
    const fail = (error: Error): void => {
      if (settled) return;
      settled = true;
      socket.destroy();
      reject(error);
    };
    const onAbort = (): void => fail(new Error('aborted'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    socket.setTimeout(timeoutMs, () => fail(new Error(`the hub did not answer within ${Math.round(timeoutMs / 1000)} s`)));
    socket.on('error', (error: NodeJS.ErrnoException) => fail(UNREACHABLE_CODES.has(error.code ?? '') && chunks.length === 0 ? new Error(UNREACHABLE) : error));
    // Complete when its length has come, or when the hub closes the connection (Connection: close).
    const finish = (): void => {
      signal.removeEventListener('abort', onAbort);
      if (settled) return;
      settled = true;
      socket.destroy();
      try {
        resolve(parseResponse(Buffer.concat(chunks)));
      } catch (error) {
        reject(error as Error);
      }
    };
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      // An answer with a length is complete once that much has come: no need to wait for the close.
      if (isComplete(Buffer.concat(chunks))) finish();
    });
    socket.on('end', finish);
    socket.on('close', finish);
    const head = [
      `POST ${target.pathname}${target.search} HTTP/1.1`,
      `Host: ${target.host}`,
      'Connection: close',
      ...Object.entries({ ...headers, 'content-length': String(Buffer.byteLength(body)) }).map(([name, value]) => `${name}: ${value}`),
    ];
    // Written whole and the socket left open: a half-close could read as the hook having gone away.
    socket.write(`${head.join('\r\n')}\r\n\r\n${body}`);
  });
}

/** What the hub's agent hook route answers: the context text (or, at a stop, the reason to go on), and whether the stop is blocked. */
export interface AgentHookAnswer {
  injected?: number;
  text?: string;
  block?: boolean;
}

/** `parley hook`'s one request, as the participant; rejects with UNREACHABLE when no hub answers, or with what the hub said. */
export async function postAgentHook(hubUrl: string, token: string, body: string, timeoutMs: number, signal: AbortSignal): Promise<AgentHookAnswer> {
  const response = await postJson(new URL(`${hubUrl}/api/v1/agent/hook`), { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body, timeoutMs, signal);
  let json: unknown;
  try {
    json = JSON.parse(response.text);
  } catch {
    // Not JSON: said below as the HTTP status.
    json = undefined;
  }
  if (response.status >= 200 && response.status < 300 && json !== null && typeof json === 'object') return json as AgentHookAnswer;
  const error = (json as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  throw new Error(typeof error?.message === 'string' ? `the hub answered ${String(error.code)}: ${error.message}` : `the hub answered HTTP ${response.status}`);
}

/** Whether the bytes hold a whole answer whose body length the headers give. */
function isComplete(raw: Buffer): boolean {
  const split = raw.indexOf('\r\n\r\n');
  if (split < 0) return false;
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(raw.subarray(0, split).toString('latin1'))?.[1];
  return length !== undefined && raw.length >= split + 4 + Number(length);
}

/** Status and body of an HTTP/1.1 answer read to its end (a chunked body decoded). */
export function parseResponse(raw: Buffer): PostResponse {
  const split = raw.indexOf('\r\n\r\n');
  if (split < 0) throw new Error("the hub's answer was cut off");
  const [statusLine = '', ...headerLines] = raw.subarray(0, split).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
  const headers = new Map(headerLines.map((line) => [line.slice(0, line.indexOf(':')).trim().toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  let body = raw.subarray(split + 4);
  if ((headers.get('transfer-encoding') ?? '').toLowerCase().includes('chunked')) body = dechunked(body);
  else if (headers.has('content-length')) {
    const length = Number(headers.get('content-length'));
    if (body.length < length) throw new Error("the hub's answer was cut off");
    body = body.subarray(0, length);
  }
  return { status, text: body.toString('utf8') };
}

function dechunked(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf('\r\n', at);
    if (lineEnd < 0) throw new Error("the hub's answer was cut off");
    const size = parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size)) throw new Error("the hub's answer was garbled");
    if (size === 0) return Buffer.concat(parts);
    const start = lineEnd + 2;
    if (body.length < start + size) throw new Error("the hub's answer was cut off");
    parts.push(body.subarray(start, start + size));
    at = start + size + 2;
  }
}

async function postOverHttps(target: URL, headers: Record<string, string>, body: string, timeoutMs: number, signal: AbortSignal): Promise<PostResponse> {
  const { request } = await import('node:https');
  return new Promise((resolve, reject) => {
    const req = request(target, { method: 'POST', agent: false, signal, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('error', () => reject(new Error("the hub's answer was cut off")));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`the hub did not answer within ${Math.round(timeoutMs / 1000)} s`)));
    req.on('error', (error: NodeJS.ErrnoException) => reject(UNREACHABLE_CODES.has(error.code ?? '') ? new Error(UNREACHABLE) : error));
    req.end(body);
  });
}
