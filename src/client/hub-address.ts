import { DEFAULT_HUB_QUERY_TIMEOUT_MS } from '../config/defaults.js';
import { resolveHome } from '../config/home.js';
import { ParleyError } from '../errors/parley-error.js';
import { proveHub } from './hub-proof.js';
import { givenHubAddress, isHttpUrl, liveHub, type LiveHub } from './live-hub.js';

/** The options a command was given that choose the hub (`--home`, `--url`), as parseArgs returns them. */
export interface HubChoice {
  home?: unknown;
  url?: unknown;
}

/**
 * Which hub a command talks to: `--url`, else `PARLEY_URL` (the user's own
 * choice, used as given), else the hub running on the command's home, where
 * its lock file says it serves, once the process there has proved it is that
 * hub. So `parley join X --home DIR` reaches DIR's hub on whatever port it
 * took, and a credential never goes to whatever else answers there or at a
 * default address. A typed address that is no http(s) URL is refused.
 */
export async function hubUrl(choice: HubChoice = {}, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const given = givenHubUrl(choice, env);
  if (given !== undefined) return given;
  const home = resolveHome(typeof choice.home === 'string' ? choice.home : undefined, env);
  return provenHubUrl(home, liveHub(home));
}

/** `--url`, else `PARLEY_URL`, checked and without a trailing slash; undefined when neither is given. */
export function givenHubUrl(choice: HubChoice, env: NodeJS.ProcessEnv): string | undefined {
  const given = givenHubAddress(typeof choice.url === 'string' ? choice.url : undefined, env);
  return given === undefined ? undefined : trimSlash(checkedUrl(given.url, given.from));
}

/**
 * The address of `holder`, the hub the home's lock file names, once the
 * process there has proved it holds that hub's key; nothing is sent to it
 * before. HUB_CLOSED saying why not, and how to start one when none runs.
 */
export async function provenHubUrl(home: string, holder: LiveHub | undefined): Promise<string> {
  if (!holder) {
    throw new ParleyError('HUB_CLOSED', `No hub is running on home ${home}; start one with "parley serve" (same --home), or give a hub's address with --url or PARLEY_URL.`);
  }
  const proof = await proveHub(holder, DEFAULT_HUB_QUERY_TIMEOUT_MS);
  if (!proof.ok) {
    throw new ParleyError(
      'HUB_CLOSED',
      `The hub of home ${home} (pid ${holder.pid}) was not reached: ${proof.reason}, so no credential was sent to it. Check "parley status" (same --home), or give a hub's address with --url.`,
    );
  }
  return proof.url;
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
