import { loadToken } from '../client/credentials.js';
import { hubUrl } from '../client/hub-address.js';
import { registerParticipant } from '../client/registration.js';
import { RestParticipant } from '../client/rest-participant.js';
import { DEFAULT_SESSION_NAME } from '../config/defaults.js';
import { resolveHome } from '../config/home.js';
import { readAdminToken } from '../home/admin-token.js';
import { ParleyError } from '../errors/parley-error.js';
import type { Participant } from '../schema/participant.js';
import type { ParleyOptions } from './options.js';

/**
 * A program's link to the hub as one participant. Found as the CLI finds it:
 * the hub at `url`, else `PARLEY_URL`, else the one running on the home once
 * it has proved it is that home's hub (none running: HUB_CLOSED); the token
 * given, else `PARLEY_TOKEN`, else the one kept in the home for this session
 * and handle, else — a handle not yet joined, on the local hub of this home —
 * it joins, as `parley mcp --as` does.
 */
export interface HubLink {
  api: RestParticipant;
  participant: Participant;
  session: string;
  /** Whether this participant has chat on the hub (the toggle is on and its kind is not excluded). */
  chat: boolean;
  close(): void;
}

export async function linkToHub(options: ParleyOptions, env: NodeJS.ProcessEnv = process.env): Promise<HubLink> {
  const home = resolveHome(options.home);
  const url = await hubUrl({ url: options.url, home }, env);
  const session = options.session ?? DEFAULT_SESSION_NAME;
  const given = options.token ?? (env.PARLEY_TOKEN || undefined);
  let token = given ?? loadToken(home, session, options.handle);
  let api = token === undefined ? undefined : new RestParticipant(url, token);
  let me = api ? await whoami(api) : undefined;
  if (!me) {
    api?.close();
    if (given !== undefined) throw new ParleyError('UNAUTHORIZED', `The token given for @${options.handle} is not a valid token of the hub at ${url}; pass the one "parley join ${options.handle}" printed.`, { field: 'token' });
    if (!readAdminToken(home)) {
      throw new ParleyError(
        'UNAUTHORIZED',
        `No token for @${options.handle} in session "${session}": run "parley join ${options.handle}" (same home), or pass token (or PARLEY_TOKEN).`,
        { field: 'token' },
      );
    }
    token = (await registerParticipant(url, home, { handle: options.handle, session, profile: { kind: 'agent' } })).token;
    api = new RestParticipant(url, token);
    me = await api.whoami();
  }
  if (me.participant.handle.toLowerCase() !== options.handle.toLowerCase()) {
    api?.close();
    throw new ParleyError('INVALID_INPUT', `Invalid token: it belongs to @${me.participant.handle}, not @${options.handle}; pass @${options.handle}'s token or its handle.`, { field: 'token' });
  }
  const link = api as RestParticipant;
  return { api: link, participant: me.participant, session: me.session.name, chat: me.hub?.chat !== false, close: () => link.close() };
}

/** Who the token names, or undefined when the hub does not know it (revoked, another hub's); a hub that does not answer is an error. */
async function whoami(api: RestParticipant): Promise<Awaited<ReturnType<RestParticipant['whoami']>> | undefined> {
  try {
    return await api.whoami();
  } catch (error) {
    if (error instanceof ParleyError && error.code === 'UNAUTHORIZED') return undefined;
    throw error;
  }
}
