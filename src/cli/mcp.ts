import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { loadToken } from '../client/credentials.js';
import { registerParticipant } from '../client/registration.js';
import type { RestParticipant } from '../client/rest-participant.js';
import { SocketParticipant } from '../client/socket-participant.js';
import { loadConfig, resolveHome } from '../config/load.js';
import { ParleyError } from '../errors/parley-error.js';
import { humanHandles } from '../mcp/instructions.js';
import { createMcpServer } from '../mcp/server.js';
import type { Participant } from '../schema/participant.js';
import { inBackground } from '../util/background.js';
import { createStderrLogger } from '../util/logger.js';
import { ensureHub } from './background-hub.js';
import type { CommandArgs, CommandRun } from './command.js';
import type { MCP_OPTIONS } from './command-options.js';

/**
 * `parley mcp --as HANDLE`: the stdio MCP server that agent CLIs spawn. Its
 * tools act as HANDLE (joined on first use, its token kept in the home)
 * through the hub's local socket when the hub runs on this home, else
 * through its REST API (another host, or a hub without the socket). When no
 * hub runs on the home it starts one in the background with the home's
 * settings and waits for it; several starting at once end with one hub,
 * because only one can take the home's lock. Nothing
 * but protocol is written to stdout; diagnostics go to stderr.
 */
const HELP = `Usage: parley mcp --as HANDLE [--session NAME] [--rooms ROOM,...|all]
                  [--kind agent|human] [--client NAME] [--model NAME] [--role ROLE ...] [--home DIR] [--url URL]

Serves MCP on stdin/stdout for an agent CLI, acting as HANDLE in the session
(default "default"). Configure it in the agent's MCP settings with the full
path of bin/parley (a client may not read the shell's PATH), e.g.
  {"command": "/path/to/parley/bin/parley", "args": ["mcp", "--as", "coder-1"]}
("parley install CLIENT --as HANDLE" writes this entry for you).
The hub is the one at --url or PARLEY_URL, else the one running on the home
(used once it proves it is that home's hub); when none runs there, one is
started in the background on the home, with the home's settings (its port).
PARLEY_TOKEN, when set, is used as the token.
`;

export const mcp: CommandRun<typeof MCP_OPTIONS> = { help: HELP, run: serveMcp };

async function serveMcp({ values }: CommandArgs<typeof MCP_OPTIONS>): Promise<number> {
  if (!values.as && !process.env.PARLEY_TOKEN) {
    process.stderr.write('parley: mcp needs --as HANDLE (or PARLEY_TOKEN); run "parley mcp --help".\n');
    return 2;
  }
  const home = resolveHome(values.home);
  const config = loadConfig({ home });
  const url = await ensureHub(values, home);

  const session = values.session ?? 'default';
  // One connection to the hub's socket in the home carries every call; REST when the hub there is not the one at `url`.
  const link = await SocketParticipant.link(home, url);
  const participantOf = (token: string): Promise<RemoteParticipant> => (link ? Promise.resolve(new SocketParticipant(link, token)) : restParticipant(url, token));
  let token = process.env.PARLEY_TOKEN || (values.as ? loadToken(home, session, values.as) : undefined);
  let api = token ? await participantOf(token) : undefined;
  let me = api ? await whoamiIfTaken(api) : undefined;
  if (!me && values.as) {
    // First use (or a revoked token): join, which keeps the identity and issues a token.
    api?.close();
    const profile = {
      kind: values.kind ?? 'agent',
      ...(values.client === undefined ? {} : { client: values.client }),
      ...(values.model === undefined ? {} : { model: values.model }),
      ...(values.role === undefined ? {} : { roles: values.role }),
    };
    token = (await registerParticipant(url, home, { handle: values.as, session, profile })).token;
    api = await participantOf(token);
    me = await api.whoami();
  }
  if (!api || !me) throw new ParleyError('UNAUTHORIZED', 'PARLEY_TOKEN is not a valid token of this hub; unset it, or use --as HANDLE.');

  const humans = await humanHandles(api);
  const rooms = values.rooms === undefined ? undefined : values.rooms.trim() === 'all' ? ('all' as const) : values.rooms.split(',').map((r) => r.trim()).filter(Boolean);
  // The hub says whether this participant has chat (its toggle, its excluded kinds); this process's own config may differ.
  const chat = me.hub?.chat;
  const { server } = createMcpServer({
    api,
    config,
    participant: me.participant,
    session: me.session.name,
    humans,
    ...(rooms ? { rooms } : {}),
    ...(chat === undefined ? {} : { chat }),
    // The tools follow the access the hub gave at start (the hub refuses by the access it holds now).
    ...(me.access === undefined ? {} : { access: () => me.access }),
  });
  const participant: Participant = me.participant;
  const client = api;
  server.oninitialized = () => {
    // The agent's client names itself in initialize: record it in the profile when none was given.
    const name = server.getClientVersion()?.name;
    // The client's name is only shown to others: the session works the same without it, and stdout is the protocol's.
    if (name && !participant.profile.client) inBackground(client.updateProfile({ client: name.slice(0, 64) }), createStderrLogger('warn'), 'recording the client name');
  };
  // Present on the hub from before the first message until the session ends (stdin closes or the process exits).
  const connection = await client.connect();
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  // Closing the server aborts waits; the calls still on their way (a meeting_join sent just before
  // the agent quit) land before the connection ends, so the hub's leaving on disconnect comes after them.
  try {
    await server.close();
  } catch {
    // The session is over either way; what is left to do is letting the calls in flight land.
  }
  await client.settle();
  connection.close();
  client.close();
  link?.close();
  return 0;
}

/** What `parley mcp` acts through: the hub's local socket, or its REST API. */
type RemoteParticipant = SocketParticipant | RestParticipant;

/** Over REST: loaded only then, since its HTTP client costs start-up time that the socket does not need. */
async function restParticipant(url: string, token: string): Promise<RemoteParticipant> {
  const { RestParticipant } = await import('../client/rest-participant.js');
  return new RestParticipant(url, token);
}

/** Who the token names; undefined when the hub does not take it (or does not answer). */
async function whoamiIfTaken(api: RemoteParticipant): Promise<Awaited<ReturnType<RemoteParticipant['whoami']>> | undefined> {
  try {
    return await api.whoami();
  } catch {
    // A token the hub does not take is joined anew; with no HANDLE, the refusal is said then. A hub that does not answer says so there too.
    return undefined;
  }
}
