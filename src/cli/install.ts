import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, resolveHome } from '../config/load.js';
import { ParleyError } from '../errors/parley-error.js';
import { CLIENTS, isClientName } from '../install/clients.js';
import { shellQuote } from '../install/command-line.js';
import { addExcludes, removeExcludes } from '../install/git-exclude.js';
import { planGitExclusion, type GitExclusion } from '../install/keep-out-of-git.js';
import { readLedger, ledgerPath, sameRecord, writeLedger, type InstallRecord } from '../install/ledger.js';
import { applyInstall, applyUninstall, planInstall, planUninstall, type FileChange } from '../install/plan.js';
import { CLIENT_NAMES, type ClientName, type InstallContext, type Scope } from '../install/spec.js';
import { hookTiming } from '../install/timing.js';
import { HandleSchema, SessionNameSchema } from '../schema/names.js';
import { ensureHub } from './background-hub.js';
import type { CommandArgs, CommandRun } from './command.js';
import type { INSTALL_OPTIONS, UNINSTALL_OPTIONS } from './command-options.js';
import { loadToken } from '../client/credentials.js';
import { givenHubUrl } from '../client/hub-address.js';
import { OneShotJson } from '../client/one-shot-json.js';
import { ParticipantRoutes } from '../client/participant-routes.js';
import { registerParticipant } from '../client/registration.js';
import { notInRosterWarning } from './join.js';
import { PARLEY_BIN } from './parley-bin.js';

/**
 * `parley install CLIENT --as HANDLE` connects an agent CLI: its MCP server
 * entry and its hooks, written into that client's own config files (see
 * src/install/), and the participant joined so that `parley mcp --as` and
 * `parley hook --as` find its token in the home. `parley uninstall CLIENT`
 * takes out exactly what install put in.
 */
const CLIENT_LIST = CLIENT_NAMES.join('|');

const INSTALL_HELP = `Usage: parley install <${CLIENT_LIST}> --as HANDLE [--dir PROJECT] [--user] [--dry-run]
                      [--session NAME] [--home DIR] [--url URL] [--follow-symlinks]

Connects an agent CLI to Parley as HANDLE: writes Parley's MCP server
("parley mcp --as HANDLE") and its hooks ("parley hook CLIENT EVENT --as HANDLE")
into the client's own config files, and joins HANDLE (its token kept in the
home). When no hub runs on the home, one is started in the background there
with the home's settings, as "parley mcp" does.

  --dir PROJECT  The project whose config to change (default: the current folder)
  --user         Change the user's config (in the home folder) instead
  --dry-run      Print each file as it would be written; change nothing
  --follow-symlinks
                 Write through a symlink that leads out of the project (or, with
                 --user, out of the home folder); refused without it

The commands written are absolute (node and this Parley's bin/parley) and name
--home and --url when they are not the defaults, so they work from the client's
environment. Existing files are merged (other entries are kept) and their
originals kept in <home>/install-backups/; <home>/installs.json records what
was written for "parley uninstall". Running it again changes nothing. In a git
work tree, the files it wrote that hold this machine's paths are listed in the
clone's .git/info/exclude (a shared config you had before is left to you), so
git does not offer them for a commit; uninstall takes those lines out.
`;

const UNINSTALL_HELP = `Usage: parley uninstall <${CLIENT_LIST}> [--dir PROJECT] [--user] [--dry-run] [--home DIR]
                        [--follow-symlinks]

Takes out what "parley install" wrote for the client in the project (default:
the current folder) or, with --user, in the user's config: a file left as
install wrote it gets its original back (or goes, if install created it); a
file edited since keeps the edits and loses only Parley's entries. The
participant stays joined. A symlink that leads out of the project (or home
folder) is refused, as by install, unless --follow-symlinks is given.
`;

interface Where {
  client: ClientName;
  scope: Scope;
  root: string;
}

/** The client word, and the project folder or the user's home folder. */
function where(positionals: string[], values: { dir?: string | undefined; user?: boolean | undefined }, command: string): Where | number {
  const [client, ...extra] = positionals;
  if (!isClientName(client) || extra.length > 0) {
    const got = client === undefined ? 'no client' : `"${[client, ...extra].join(' ')}"`;
    process.stderr.write(`parley: ${command} takes one client, ${CLIENT_NAMES.join(', ')} (got ${got}); run "parley ${command} --help".\n`);
    return 2;
  }
  if (values.user && values.dir !== undefined) {
    process.stderr.write(`parley: ${command} takes --dir (a project) or --user (your home), not both; run "parley ${command} --help".\n`);
    return 2;
  }
  if (values.user) return { client, scope: 'user', root: os.homedir() };
  const root = path.resolve(values.dir ?? process.cwd());
  if (!fs.statSync(root, { throwIfNoEntry: false })?.isDirectory()) {
    throw new ParleyError('INVALID_INPUT', `Invalid --dir: ${root} is not an existing folder; give the project's folder.`, { field: '--dir' });
  }
  // One spelling per folder (a symlinked path names the same project), so uninstall finds what install recorded.
  return { client, scope: 'project', root: fs.realpathSync(root) };
}

function validated<T>(schema: { safeParse: (v: unknown) => { success: true; data: T } | { success: false; error: { issues: Array<{ message: string }> } } }, value: string, flag: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ParleyError('INVALID_INPUT', `Invalid ${flag} "${value}": ${parsed.error.issues[0]?.message ?? 'not allowed'}.`, { field: flag });
  return parsed.data;
}

function describe(target: Where): string {
  return target.scope === 'user' ? `user scope, ${target.root}` : `project ${target.root}`;
}

function printFile(change: FileChange, verb: { create: string; change: string; same: string; remove: string }): void {
  if (change.after === change.before) {
    process.stdout.write(`${verb.same} ${change.path}\n`);
    return;
  }
  if (change.after === undefined) {
    process.stdout.write(`${verb.remove} ${change.path}\n`);
    return;
  }
  process.stdout.write(`--- ${change.before === undefined ? verb.create : verb.change} ${change.path}:\n${change.after}${change.after.endsWith('\n') ? '' : '\n'}`);
}

/**
 * Lists the files to keep out of git in the work tree's exclude file, and
 * what to say about it. The lines for the ledger include those of an earlier
 * install, so uninstall takes out every line install ever added. A failure
 * here leaves the install itself done: it is said, with what to add by hand.
 */
function keepOutOfGit(exclusion: GitExclusion | undefined, previous: InstallRecord['gitExclude']): { gitExclude: InstallRecord['gitExclude']; said: string[]; warned: string[] } {
  if (!exclusion) return { gitExclude: previous, said: [], warned: [] };
  const said: string[] = [];
  const warned: string[] = [];
  if (exclusion.patterns.length > 0) {
    try {
      addExcludes(exclusion.file, exclusion.patterns);
      said.push(`Kept out of git (listed in ${exclusion.file}): ${exclusion.paths.join(', ')}`);
    } catch (error) {
      warned.push(`parley: could not list the files in ${exclusion.file} (${(error as Error).message}); add these lines to it yourself: ${exclusion.patterns.join(' ')}`);
    }
  }
  for (const file of exclusion.shown) said.push(`Git still shows ${file.path}: ${file.why}.`);
  const kept = previous?.file === exclusion.file ? previous.patterns : [];
  const patterns = [...kept, ...exclusion.patterns.filter((p) => !kept.includes(p))];
  return { gitExclude: patterns.length === 0 ? undefined : { file: exclusion.file, patterns }, said, warned };
}

/** The handle a kept token names, when the hub takes it. */
async function joinedAs(url: string, token: string): Promise<string | undefined> {
  try {
    return (await new ParticipantRoutes(new OneShotJson(url, token)).whoami()).participant.handle;
  } catch {
    // A token the hub does not take is replaced by joining again, which says its own refusal.
    return undefined;
  }
}

/** Joins HANDLE unless the home already holds a token the hub accepts; says which. */
async function joinIfNeeded(choice: { url?: string | undefined }, home: string, handle: string, session: string | undefined): Promise<string> {
  const url = await ensureHub(choice, home);
  const token = loadToken(home, session ?? 'default', handle);
  if (token) {
    const known = await joinedAs(url, token);
    if (known) return `@${known} was already joined (its token is in ${home}).`;
  }
  const joined = await registerParticipant(url, home, { handle, ...(session === undefined ? {} : { session }), profile: { kind: 'agent' } });
  // As with "parley join": the client's calls would all fail until an admin adds the key.
  const warning = notInRosterWarning(joined, home);
  if (warning) process.stderr.write(`parley: warning: ${warning}\n`);
  return `Joined @${joined.participant.handle} in session "${joined.session.name}" (its token is kept in ${home}).`;
}

export const install: CommandRun<typeof INSTALL_OPTIONS> = { help: INSTALL_HELP, run: installClient };

export const uninstall: CommandRun<typeof UNINSTALL_OPTIONS> = { help: UNINSTALL_HELP, run: uninstallClient };

async function installClient({ values, positionals }: CommandArgs<typeof INSTALL_OPTIONS>): Promise<number> {
  const target = where(positionals, values, 'install');
  if (typeof target === 'number') return target;
  if (values.as === undefined) {
    process.stderr.write('parley: install needs --as HANDLE (who the agent is on Parley); run "parley install --help".\n');
    return 2;
  }
  const handle = validated(HandleSchema, values.as, '--as');
  const session = values.session === undefined ? undefined : validated(SessionNameSchema, values.session, '--session');
  const home = resolveHome(values.home);
  const url = givenHubUrl(values, process.env);
  const spec = CLIENTS[target.client];
  const context: InstallContext = {
    scope: target.scope,
    root: target.root,
    launch: {
      node: process.execPath,
      bin: PARLEY_BIN,
      handle,
      ...(session === undefined || session === 'default' ? {} : { session }),
      // Always the home, so a PARLEY_HOME in the client's environment cannot send the agent elsewhere;
      // the URL only when one was given: otherwise the hub is found through the home, on whatever port it runs.
      home,
      ...(url === undefined ? {} : { url }),
    },
    timing: hookTiming(loadConfig({ home })),
  };
  const installs = readLedger(home);
  const plan = planInstall(spec, context, installs, { followSymlinks: values['follow-symlinks'] === true });
  const exclusion = target.scope === 'project' ? planGitExclusion(target.root, plan.changes) : undefined;

  if (values['dry-run']) {
    process.stdout.write(`Dry run: nothing is written. "parley install ${target.client}" as @${handle} (${describe(target)}) would:\n`);
    const hub = url === undefined ? `the hub running on ${home} (starting one there if none runs)` : `the hub at ${url} (starting one on ${home} if none answers)`;
    process.stdout.write(`join @${handle} with ${hub}, unless ${home} already holds its token\n`);
    for (const change of plan.changes) printFile(change, { create: 'create', change: 'change', same: 'leave unchanged', remove: 'remove' });
    if (exclusion && exclusion.patterns.length > 0) process.stdout.write(`keep out of git, in ${exclusion.file}: ${exclusion.patterns.join(' ')}\n`);
    for (const file of exclusion?.shown ?? []) process.stdout.write(`leave ${file.path} to git: ${file.why}\n`);
    process.stdout.write(`record the install in ${ledgerPath(home)}\n`);
    return 0;
  }

  const joined = await joinIfNeeded({ url }, home, handle, session);
  const written = applyInstall(plan, home);
  const others = installs.filter((r) => !sameRecord(r, written));
  const previous = installs.find((r) => sameRecord(r, written));
  const git = keepOutOfGit(exclusion, previous?.gitExclude);
  const record: InstallRecord = { ...written, ...(git.gitExclude ? { gitExclude: git.gitExclude } : {}) };
  if (JSON.stringify(previous) !== JSON.stringify(record)) writeLedger(home, [...others, record]);

  for (const line of git.warned) process.stderr.write(`${line}\n`);
  process.stdout.write(`Parley is installed for ${spec.title} as @${handle} (${describe(target)}):\n`);
  for (const change of plan.changes) {
    const file = record.files.find((f) => f.path === change.path)!;
    const line = change.after === change.before ? 'unchanged' : change.before === undefined ? 'created' : 'changed';
    process.stdout.write(`  ${line} ${change.path}${line === 'changed' && file.backup ? ` (original kept in ${file.backup})` : ''}\n`);
  }
  for (const line of git.said) process.stdout.write(`${line}\n`);
  process.stdout.write(`${joined}\nBefore the next session:\n${spec.notes(context).map((note) => `  - ${note}\n`).join('')}`);
  const undo = [`parley uninstall ${target.client}`, target.scope === 'user' ? '--user' : `--dir ${shellQuote(target.root)}`, ...(context.launch.home ? [`--home ${shellQuote(home)}`] : [])];
  process.stdout.write(`Undo with: ${undo.join(' ')}\n`);
  return 0;
}

async function uninstallClient({ values, positionals }: CommandArgs<typeof UNINSTALL_OPTIONS>): Promise<number> {
  const target = where(positionals, values, 'uninstall');
  if (typeof target === 'number') return target;
  const home = resolveHome(values.home);
  const installs = readLedger(home);
  const record: InstallRecord | undefined = installs.find((r) => sameRecord(r, target));
  if (!record) {
    throw new ParleyError('NOT_FOUND', `No install for ${CLIENTS[target.client].title} (${describe(target)}) is recorded in ${ledgerPath(home)}; check --dir, --user and --home.`);
  }
  const links = { followSymlinks: values['follow-symlinks'] === true };
  const changes = planUninstall(record, links);
  const dry = values['dry-run'] === true;
  if (dry) process.stdout.write(`Dry run: nothing is changed. "parley uninstall ${target.client}" (${describe(target)}) would leave:\n`);
  else {
    applyUninstall(record, changes, links);
    writeLedger(home, installs.filter((r) => r !== record));
    process.stdout.write(`Parley is uninstalled from ${CLIENTS[target.client].title} (${describe(target)}); @${record.handle} stays joined:\n`);
  }
  for (const change of changes) {
    if (dry && change.after !== undefined && change.after !== change.before) process.stdout.write(`--- ${change.path} ${change.how}:\n${change.after}${change.after.endsWith('\n') ? '' : '\n'}`);
    else process.stdout.write(`  ${change.path}: ${change.how}\n`);
  }
  // Linked worktrees share one exclude file: a line another install there still needs stays.
  const own = record.gitExclude;
  const needed = own ? installs.flatMap((r) => (r !== record && r.gitExclude?.file === own.file ? r.gitExclude.patterns : [])) : [];
  const excluded = own && { file: own.file, patterns: own.patterns.filter((p) => !needed.includes(p)) };
  if (excluded && dry) process.stdout.write(`take out of ${excluded.file}: ${excluded.patterns.join(' ')}\n`);
  else if (excluded) {
    try {
      const removed = removeExcludes(excluded.file, excluded.patterns);
      if (removed.length > 0) process.stdout.write(`  ${excluded.file}: Parley's lines taken out (${removed.join(' ')})\n`);
    } catch (error) {
      process.stderr.write(`parley: could not take Parley's lines out of ${excluded.file} (${(error as Error).message}); remove them yourself: ${excluded.patterns.join(' ')}\n`);
    }
  }
  return 0;
}
