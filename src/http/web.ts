import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context } from 'hono';
import { ParleyError } from '../errors/parley-error.js';

/**
 * The web page's files (built by Vite into dist/web at install time), read
 * once at start and served from memory. Only files found in that folder can
 * be served, so no request path reaches the file system. Hashed assets are
 * cached for good; the page itself is revalidated on every load.
 */
export const WEB_ROOT = path.join(packageRoot(), 'dist', 'web');

/** The folder of Parley's package.json, whether this module runs compiled (dist/src) or from source (src). */
function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.map': 'application/json',
};

interface WebFile {
  body: Buffer;
  type: string;
}

/**
 * Defence in depth for the page: even if message text ever slipped past the
 * markdown renderer, the browser runs only the page's own script, fetches only
 * from the hub, and the page cannot be framed. (Styles set through the DOM by
 * the app are allowed by 'self' plus element style properties.)
 */
export const PAGE_SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
} as const;

/** Whether the page has been built (npm install builds it; a source checkout without a build has none). */
export function webPageBuilt(root: string = WEB_ROOT): boolean {
  return fs.existsSync(path.join(root, 'index.html'));
}

export class WebAssets {
  readonly #files = new Map<string, WebFile>();

  constructor(root: string = WEB_ROOT) {
    if (!fs.existsSync(root)) return;
    const walk = (dir: string): string[] =>
      fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? walk(path.join(dir, entry.name)) : [path.join(dir, entry.name)]));
    for (const file of walk(root)) {
      const urlPath = `/${path.relative(root, file).split(path.sep).join('/')}`;
      this.#files.set(urlPath, { body: fs.readFileSync(file), type: TYPES[path.extname(file)] ?? 'application/octet-stream' });
    }
  }

  get built(): boolean {
    return this.#files.has('/index.html');
  }

  page(c: Context): Response {
    const index = this.#files.get('/index.html');
    if (!index) throw new ParleyError('NOT_FOUND', 'The web page is not built; run "npm run build" in the Parley folder.');
    return c.body(new Uint8Array(index.body), 200, { 'content-type': index.type, 'cache-control': 'no-cache', ...PAGE_SECURITY_HEADERS });
  }

  asset(c: Context): Response {
    const file = this.#files.get(c.req.path);
    if (!file || !c.req.path.startsWith('/assets/')) throw new ParleyError('NOT_FOUND', `No file ${c.req.path} in the web page.`);
    return c.body(new Uint8Array(file.body), 200, { 'content-type': file.type, 'cache-control': 'public, max-age=31536000, immutable' });
  }
}
