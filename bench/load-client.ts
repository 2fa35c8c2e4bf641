import http from 'node:http';
import { Pool } from 'undici';
import { summarize, type Summary } from './stats.js';

/**
 * The HTTP benchmarks' load generator, run as its own process (forked by
 * bench/http.ts) so that the clients do not share the server's event loop:
 * on a machine with few cores the server would otherwise spend half its time
 * being its own client. It receives one job over IPC and answers with figures.
 */
export interface RestJob {
  kind: 'rest';
  port: number;
  path: string;
  headers: Record<string, string>;
  body: string;
  clients: number;
  total: number;
  /** Requests sent first and not timed, by this same process: its code and connections warm, as the server's are. */
  warmup: number;
}

export type LoadJob =
  | RestJob
  | {
      kind: 'sse';
      port: number;
      /** One stream per entry: its path and headers. */
      streams: Array<{ path: string; headers: Record<string, string> }>;
      post: { path: string; headers: Record<string, string> };
      posts: number;
    };

export interface RestResult {
  clients: number;
  requests: number;
  perSecond: number;
  latency: Summary;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

function send(port: number, path: string, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: 'POST', path, agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function rest(job: RestJob): Promise<RestResult> {
  // undici's pool: a client several times cheaper per request than node:http's, so the server is what is measured.
  const pool = new Pool(`http://127.0.0.1:${job.port}`, { connections: job.clients, pipelining: 1 });
  const samples: number[] = [];
  const round = async (total: number, timed: boolean): Promise<void> => {
    let next = 0;
    await Promise.all(
      Array.from({ length: job.clients }, async () => {
        while (next++ < total) {
          const t0 = performance.now();
          const res = await pool.request({ method: 'POST', path: job.path, headers: job.headers, body: job.body });
          await res.body.dump();
          if (res.statusCode >= 300) throw new Error(`request failed with ${res.statusCode}`);
          if (timed) samples.push(performance.now() - t0);
        }
      }),
    );
  };
  let start = 0;
  try {
    await round(job.warmup, false);
    start = performance.now();
    await round(job.total, true);
  } finally {
    await pool.close();
  }
  const seconds = (performance.now() - start) / 1000;
  return { clients: job.clients, requests: job.total, perSecond: job.total / seconds, latency: summarize(samples) };
}

/** Opens every stream, then posts one message at a time and times its arrival on each stream. */
async function sse(job: Extract<LoadJob, { kind: 'sse' }>): Promise<Summary> {
  const samples: number[] = [];
  const sentAt = new Map<string, number>();
  let pending = 0;
  let wake: (() => void) | undefined;
  const requests: http.ClientRequest[] = [];
  await Promise.all(
    job.streams.map(
      (stream) =>
        new Promise<void>((resolve, reject) => {
          const req = http.get({ host: '127.0.0.1', port: job.port, path: stream.path, headers: stream.headers }, (res) => {
            if (res.statusCode !== 200) reject(new Error(`stream answered ${res.statusCode}`));
            resolve();
            let buffer = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
              buffer += chunk;
              for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
                const frame = buffer.slice(0, end);
                buffer = buffer.slice(end + 2);
                const marker = /"text":"(sse \d+)"|"content":"(sse \d+)"/.exec(frame);
                const start = marker ? sentAt.get(marker[1] ?? marker[2] ?? '') : undefined;
                if (start === undefined) continue;
                samples.push(performance.now() - start);
                if (--pending === 0) wake?.();
              }
            });
          });
          req.on('error', () => undefined);
          requests.push(req);
        }),
    ),
  );
  for (let i = 0; i < job.posts; i++) {
    const text = `sse ${i}`;
    const delivered = new Promise<void>((resolve) => (wake = resolve));
    pending = job.streams.length;
    sentAt.set(text, performance.now());
    const status = await send(job.port, job.post.path, job.post.headers, JSON.stringify({ text }));
    if (status >= 300) throw new Error(`post failed with ${status}`);
    await delivered;
  }
  for (const req of requests) req.destroy();
  return summarize(samples);
}

process.once('message', (job: LoadJob) => {
  const run = job.kind === 'rest' ? rest(job) : sse(job);
  run.then(
    (result) => process.send?.({ ok: true, result }, () => process.exit(0)),
    (error: unknown) => process.send?.({ ok: false, error: String(error) }, () => process.exit(1)),
  );
});
