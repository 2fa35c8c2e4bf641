import { hubUrl } from '../client/hub-address.js';
import type { Registration } from '../client/hub-admin.js';
import { registerParticipant, rotateParticipantToken } from '../client/registration.js';
import { resolveHome } from '../config/home.js';
import { shellQuote } from '../install/command-line.js';
import { formatPublicKey } from '../trust/node-id.js';
import type { CommandArgs, CommandRun } from './command.js';
import type { JOIN_OPTIONS, TOKEN_ROTATE_OPTIONS } from './command-options.js';


const JOIN_HELP = `Usage: parley join HANDLE [--kind agent|human] [--client NAME] [--model NAME] [--role ROLE ...]
                   [--nickname NAME] [--wake-on all|addressed] [--session NAME] [--home DIR] [--url URL] [--json]

Registers HANDLE with the running hub (joining again keeps the same identity and
updates the profile fields given) and prints a new bearer token for it in the
session (default "default"). The token is also kept in <home>/credentials.json.
The hub is the one running on the home (its lock file says where it serves),
unless --url or PARLEY_URL names another.

With a roster in force that leaves HANDLE's key out, it still joins (the token
works once an admin adds the key) and warns on stderr, with the commands that
add the key ("warning" in --json).

--wake-on says what ends the participant's wait: "all" (channel messages too;
the hub's default, agents.wakeOn) or "addressed" (only DMs, mentions, requests,
responses, prods and invites; channel messages stay in its inbox to read).
`;

const ROTATE_HELP = `Usage: parley token rotate HANDLE [--session NAME] [--home DIR] [--url URL] [--json]

Revokes every token of HANDLE in the session and prints a new one.
`;

/**
 * The warning for a participant joined while a roster in force leaves its key
 * out: the token is kept (it works once the key is added), but until then
 * every call fails. Says the commands that add the key; undefined when the
 * participant is a member, or in local mode.
 */
export function notInRosterWarning(result: Registration, home: string | undefined): string | undefined {
  const { trust } = result;
  if (trust?.mode !== 'roster' || result.access !== null) return undefined;
  const key = formatPublicKey(Buffer.from(result.participant.publicKey, 'base64'));
  const where = home === undefined ? '' : ` --home ${/^[\w./:@+-]+$/.test(home) ? home : shellQuote(home)}`;
  return (
    `@${result.participant.handle} is not in roster ${trust.org} v${trust.version}: its calls will fail with NOT_IN_ROSTER until an admin adds its key. ` +
    `Add it with: parley roster add ${key} --role member${where} && parley roster sign${where}`
  );
}

export const join: CommandRun<typeof JOIN_OPTIONS> = { help: JOIN_HELP, run: joinParticipant };

async function joinParticipant({ values, positionals }: CommandArgs<typeof JOIN_OPTIONS>): Promise<number> {
  const [handle, ...extra] = positionals;
  if (!handle || extra.length > 0) {
    process.stderr.write('parley: join takes exactly one HANDLE; run "parley join --help".\n');
    return 2;
  }
  const home = resolveHome(values.home);
  const profile = {
    ...(values.kind === undefined ? {} : { kind: values.kind }),
    ...(values.client === undefined ? {} : { client: values.client }),
    ...(values.model === undefined ? {} : { model: values.model }),
    ...(values.nickname === undefined ? {} : { nickname: values.nickname }),
    ...(values.role === undefined ? {} : { roles: values.role }),
    ...(values['wake-on'] === undefined ? {} : { wakeOn: values['wake-on'] }),
  };
  const result = await registerParticipant(await hubUrl(values), home, {
    handle,
    ...(values.session === undefined ? {} : { session: values.session }),
    ...(Object.keys(profile).length ? { profile } : {}),
  });
  const warning = notInRosterWarning(result, values.home === undefined ? undefined : home);
  if (warning) process.stderr.write(`parley: warning: ${warning}\n`);
  if (values.json) process.stdout.write(`${JSON.stringify(warning ? { ...result, warning } : result)}\n`);
  else {
    process.stdout.write(
      `Joined as @${result.participant.handle} (${result.participant.profile.kind}) in session "${result.session.name}".\n` +
        `Token (also saved in the home): ${result.token}\n` +
        `Use it as: export PARLEY_TOKEN=${result.token}\n`,
    );
  }
  return 0;
}

export const rotateToken: CommandRun<typeof TOKEN_ROTATE_OPTIONS> = { help: ROTATE_HELP, run: rotate };

async function rotate({ values, positionals }: CommandArgs<typeof TOKEN_ROTATE_OPTIONS>): Promise<number> {
  const [handle, ...extra] = positionals;
  if (!handle || extra.length > 0) {
    process.stderr.write('parley: token rotate takes exactly one HANDLE; run "parley token rotate --help".\n');
    return 2;
  }
  const home = resolveHome(values.home);
  const result = await rotateParticipantToken(await hubUrl(values), home, handle, values.session);
  if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
  else process.stdout.write(`New token for @${result.handle} in session "${result.session}" (older ones are revoked): ${result.token}\n`);
  return 0;
}
