import { ParleyError } from '../errors/parley-error.js';
import { hubAddress, isHttpUrl } from './live-hub.js';

export { liveHub, processAlive, type LiveHub } from './live-hub.js';

/** The options a command was given that choose the hub (`--home`, `--url`), as parseArgs returns them. */
export interface HubChoice {
  home?: unknown;
  url?: unknown;
}

/**
 * Which hub a command talks to: `--url`, else `PARLEY_URL`, else the hub
 * running on the command's home (its lock file says where it serves), else
 * the default address. So `parley join X --home DIR` reaches DIR's hub on
 * whatever port it took. A typed address that is no http(s) URL is refused.
 */
export function hubUrl(choice: HubChoice = {}, env: NodeJS.ProcessEnv = process.env): string {
  const { url, from } = hubAddress({ url: typeof choice.url === 'string' ? choice.url : undefined, home: typeof choice.home === 'string' ? choice.home : undefined }, env);
  return trimSlash(from === undefined ? url : checkedUrl(url, from));
}

/** A hub address someone typed: an http(s) URL, or INVALID_INPUT naming where it came from. */
function checkedUrl(value: string, field: string): string {
  if (!isHttpUrl(value)) {
    throw new ParleyError('INVALID_INPUT', `Invalid ${field}: "${value}" is not an http:// or https:// URL; give the hub's address, e.g. http://127.0.0.1:7420.`, { field });
  }
  return value;
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
