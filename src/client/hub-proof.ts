import { HUB_PROOF_PATH, newHubProofNonce, verifyHubProof, type HubProofAnswer } from '../trust/hub-proof.js';
import { postJson, UNREACHABLE } from './socket-post.js';
import type { LiveHub } from './live-hub.js';

/**
 * Whether the process at the address a home's lock file names is that home's
 * hub: it must sign a fresh nonce with the key the hub recorded beside its
 * address (see trust/hub-proof.ts). Whatever answers there may be another
 * program that took the port, or another home's hub; a credential goes to it
 * only after this succeeds. Node's built-ins only, and the request over a
 * plain socket: `parley hook` asks on every tool call.
 */
export type HubProof = { ok: true; url: string } | { ok: false; reason: string; unreachable?: true };

export async function proveHub(holder: LiveHub, timeoutMs: number, signal: AbortSignal = new AbortController().signal): Promise<HubProof> {
  const url = holder.url?.replace(/\/+$/, '');
  if (!url) return { ok: false, reason: 'it has not said where it serves yet (still starting?)' };
  if (!holder.key) return { ok: false, reason: `its lock file holds no key to check the process at ${url} against (a hub of an older Parley: restart it)` };
  const target = new URL(`${url}${HUB_PROOF_PATH}`);
  const nonce = newHubProofNonce();
  let response;
  try {
    response = await postJson(target, { 'content-type': 'application/json' }, JSON.stringify({ nonce }), timeoutMs, signal);
  } catch (error) {
    const message = (error as Error).message;
    if (message === UNREACHABLE) return { ok: false, unreachable: true, reason: `nothing answers at ${url}` };
    return { ok: false, reason: `the process at ${url} gave no proof that it is this home's hub (${message})` };
  }
  let answer: Partial<HubProofAnswer> = {};
  try {
    const parsed = JSON.parse(response.text) as unknown;
    if (parsed !== null && typeof parsed === 'object') answer = parsed as Partial<HubProofAnswer>;
  } catch {
    // Not JSON: no proof, said below.
  }
  if (response.status !== 200 || typeof answer.key !== 'string') {
    return { ok: false, reason: `the process at ${url} gave no proof that it is this home's hub (it answered HTTP ${response.status})` };
  }
  if (answer.key !== holder.key) return { ok: false, reason: `the process at ${url} is another hub (key ${answer.key.slice(0, 80)}), not this home's` };
  if (!verifyHubProof(holder.key, target.host, nonce, answer.signature)) {
    return { ok: false, reason: `the process at ${url} named this home's hub key but could not sign with it` };
  }
  return { ok: true, url };
}
