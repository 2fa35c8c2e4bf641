import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { DEFAULT_HUB_QUERY_TIMEOUT_MS } from '../config/defaults.js';
import { loadConfig, parseConfig, resolveHome } from '../config/load.js';
import { RetentionConfigSchema, ServerConfigSchema, type Config } from '../config/schema.js';
import { isParleyError } from '../errors/parley-error.js';
import { inspectStore, storedRoster, storeFileOf, vacuumStore, type StoreInspection } from '../hub/index.js';
import { acquireHomeLock } from '../home/home-lock.js';
import { givenHubUrl } from '../client/hub-address.js';
import { proveHub } from '../client/hub-proof.js';
import { liveHub, type LiveHub } from '../client/live-hub.js';
import { askHub, askHubSettings, type HubStatus } from './running-hub.js';
import { readRosterFile, rosterFileOf } from '../trust/roster-file.js';
import { isDraftInRosterFile, pendingDraftNotice, pendingDraftNoticeOf } from '../trust/roster-draft.js';
import type { Roster } from '../schema/roster.js';
import { trustSummary } from '../format/trust-summary.js';
import type { CommandArgs, CommandRun } from './command.js';
import type { DOCTOR_OPTIONS } from './command-options.js';
import { peersCheck } from './doctor-peers.js';

/**
 * `parley doctor`: checks what usually goes wrong — the home, the config, the
 * store's integrity, whether a hub answers (and is the one holding this home),
 * the port, and the password — and says what to do for each failure.
 */
interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

const HELP = `Usage: parley doctor [--home DIR] [--url URL] [--config FILE] [--json]
       parley doctor --vacuum [--home DIR]

Checks the home, the config, the store (its size, and what retention will
free now), the hub, the port, the password, the roster in force and the peer
links (the listener, the roster's hub entries, each kept peer's link).
The hub is the one running on the home (or at --url / PARLEY_URL); whether a
password is set is what that hub says, not this command's environment.
Retention and the port are checked with the settings that hub says it runs
with (its flags and environment included), else with the config file's; the
"settings" line says which.
Exits 0 when every check passes, 1 otherwise.

--vacuum compacts the store file and makes it give back the space retention
frees from then on (stores made before that was the default keep their size).
Stop the hub first: it holds the home.
`;

export const doctor: CommandRun<typeof DOCTOR_OPTIONS> = { help: HELP, run: checkHome };

async function checkHome({ values }: CommandArgs<typeof DOCTOR_OPTIONS>): Promise<number> {
  if (values.vacuum) return vacuumHome(resolveHome(values.home));
  const checks: Check[] = [];
  const home = resolveHome(values.home);
  const homeOk = fs.existsSync(home) && isWritable(home);
  checks.push({ name: 'home', ok: homeOk, detail: homeOk ? home : `${home} is missing or not writable; run "parley serve" once, or fix its permissions` });

  let config: Config | undefined;
  try {
    config = loadConfig({ home, configFile: values.config });
    checks.push({ name: 'config', ok: true, detail: values.config ?? path.join(home, 'config.json (or defaults)') });
  } catch (error) {
    checks.push({ name: 'config', ok: false, detail: isParleyError(error) ? error.message : String(error) });
  }

  const holder = liveHub(home);
  const given = givenHubUrl(values, process.env);
  const running = await runningHubSettings(home, holder, given);
  checks.push(running.check);
  const retention = running.retention ?? (config ?? parseConfig(undefined)).retention;

  let store: StoreInspection | undefined;
  try {
    store = inspectStore(home, retention, Date.now());
    if (!store) checks.push({ name: 'store', ok: true, detail: 'no store yet (the first "parley serve" creates it)' });
  } catch (error) {
    checks.push({ name: 'store', ok: false, detail: `${storeFileOf(home)} cannot be read: ${(error as Error).message}` });
  }
  if (store) {
    const { file, stats, version } = store;
    const size = `${formatBytes(stats.pages * stats.pageSize)} (${formatBytes(stats.freePages * stats.pageSize)} of it free pages)`;
    checks.push({
      name: 'store',
      ok: store.ok,
      detail: store.ok ? `${file}: integrity ok, schema v${version}, ${size}` : `${file}: integrity "${store.integrity}", schema v${version}; restore a backup or start a new home`,
    });
    if (store.freed) checks.push(retentionCheck(store.freed, retention, stats));
  }

  const { check: hubCheck, answers: hubAnswers } = await checkHub(home, holder, given);
  checks.push(hubCheck);
  // Set when this home's hub (or the one given) answers: whether it has a password, as it says itself.
  const passwordSet = hubAnswers ? await askPasswordSet(hubAnswers) : undefined;

  if (config) {
    checks.push(await portCheck(running.server ?? config.server, hubAnswers ? holder?.url : undefined));
  }
  if (passwordSet !== undefined) {
    // The running hub decides whether sign-in is on: its environment, not this command's, set the password.
    checks.push({ name: 'password', ok: passwordSet, detail: passwordSet ? 'set (the running hub has sign-in on)' : 'not set on the running hub: restart it with PARLEY_WEBUI_PASSWORD or webui.password so the human can sign in' });
  } else if (config) {
    const password = Boolean(config.webui.password);
    checks.push({ name: 'password', ok: password, detail: password ? 'set in the config a hub started here would read' : 'not set: set PARLEY_WEBUI_PASSWORD or webui.password so the human can sign in' });
  }

  if (config) {
    // What the running hub says of itself, asked once for the checks that show it.
    const answer = hubAnswers && holder ? await askHub(holder, home) : undefined;
    const status = answer?.ok ? answer.status : undefined;
    checks.push(await trustCheck(home, config, status));
    checks.push(await peersCheck(home, config, status ? holder : undefined, status));
  }

  if (values.json) process.stdout.write(`${JSON.stringify({ ok: checks.every((c) => c.ok), checks })}\n`);
  else for (const check of checks) process.stdout.write(`${check.ok ? 'ok  ' : 'FAIL'}  ${check.name.padEnd(9)} ${check.detail}\n`);
  return checks.every((c) => c.ok) ? 0 : 1;
}

/**
 * Which settings the checks below show: those of the hub running on the home,
 * as it says (flags and environment it started with included), else the
 * config file's. Only the parts read here are taken from its answer, each
 * checked against its schema.
 */
async function runningHubSettings(
  home: string,
  holder: LiveHub | undefined,
  given: string | undefined,
): Promise<{ check: Check; retention?: Config['retention']; server?: Config['server'] }> {
  const fromFile = (why: string): { check: Check } => ({ check: { name: 'settings', ok: true, detail: `settings from the config file; ${why}` } });
  if (!holder) return fromFile('no hub runs');
  if (given !== undefined && given !== holder.url) return fromFile(`the hub at ${given} is not this home's (pid ${holder.pid}), whose settings are not asked`);
  const answer = await askHubSettings(holder, home);
  if (!answer.ok) return fromFile(`the running hub (pid ${holder.pid}) did not say its own: ${answer.reason}`);
  const retention = RetentionConfigSchema.safeParse(answer.settings.config.retention);
  const server = ServerConfigSchema.safeParse(answer.settings.config.server);
  if (!retention.success || !server.success) return fromFile(`the running hub (pid ${holder.pid}) answered settings this Parley does not read`);
  return { check: { name: 'settings', ok: true, detail: `settings of the running hub (pid ${answer.settings.pid})` }, retention: retention.data, server: server.data };
}

/**
 * How permissions are decided: what the running hub says, else what a hub
 * started now would put in force (the newest of the store's roster chain and
 * the roster file; the hub itself decides whether it accepts the file); and
 * a pending roster draft, which is not a failure but waits for a signature.
 */
async function trustCheck(home: string, config: Config, status: HubStatus | undefined): Promise<Check> {
  const { file, configured } = rosterFileOf(config.trust.rosterPath, home);
  const withDraft = (detail: string, inForce: { org_id: string; version: number } | undefined): string => {
    const draft = pendingDraftNoticeOf(file, inForce);
    return draft ? `${detail}; ${draft}` : detail;
  };
  const trust = status?.trust;
  if (trust) return { name: 'trust', ok: true, detail: withDraft(trustSummary(trust), trust.mode === 'roster' ? { org_id: trust.org, version: trust.version } : undefined) };
  let stored: Roster | undefined;
  try {
    stored = storedRoster(home);
  } catch {
    // The store check above already says what is wrong with it.
  }
  let onFile: Roster | undefined;
  let fileProblem: string | undefined;
  if (configured || fs.existsSync(file)) {
    try {
      onFile = readRosterFile(file);
    } catch (error) {
      fileProblem = isParleyError(error) ? error.message : String(error);
    }
  }
  // An unsigned roster in the file itself, newer than the one held, is a draft an earlier version left there.
  const leftDraft = onFile && isDraftInRosterFile(onFile, stored) ? onFile : undefined;
  const newest = onFile && !leftDraft && (!stored || onFile.version > stored.version) ? onFile : stored;
  const summary = newest
    ? trustSummary({ mode: 'roster', org: newest.org_id, version: newest.version, members: newest.members.length })
    : trustSummary({ mode: 'local', localAccess: config.trust.localAccess });
  if (fileProblem) return { name: 'trust', ok: stored !== undefined, detail: `${summary}; the roster file cannot be used: ${fileProblem}` };
  const detail = `${summary}${newest === onFile && newest !== stored ? ` (from ${file}, once a hub accepts it)` : ''}`;
  if (leftDraft) return { name: 'trust', ok: true, detail: `${detail}; ${pendingDraftNotice(leftDraft, file, newest)}` };
  return { name: 'trust', ok: true, detail: withDraft(detail, newest) };
}

/** What retention will free now (the hub's next pass, as of this moment), and how the file gives the space back. */
function retentionCheck(freed: NonNullable<StoreInspection['freed']>, retention: Config['retention'], file: StoreInspection['stats']): Check {
  const limits = `keeps ${retention.hours} h or the ${retention.messages} newest events of each thread, whichever is less`;
  const now =
    freed.events === 0
      ? `nothing to free now (${limits})`
      : `will free ${freed.events} events (~${formatBytes(freed.bytes)}) in ${freed.threads} thread${freed.threads === 1 ? '' : 's'} now (${limits})`;
  const reclaim =
    file.autoVacuum === 'incremental'
      ? ''
      : '; this store was made before the file gave space back, so what retention frees is reused but the file does not shrink: stop the hub and run "parley doctor --vacuum" once';
  return { name: 'retention', ok: true, detail: `${now}${reclaim}` };
}

/** `--vacuum`: the store compacted (see vacuumStore), holding the home's lock so no hub writes meanwhile. */
function vacuumHome(home: string): number {
  const storeFile = storeFileOf(home);
  if (!fs.existsSync(storeFile)) {
    process.stdout.write(`no store at ${storeFile}: nothing to vacuum\n`);
    return 0;
  }
  let lock;
  try {
    lock = acquireHomeLock(home);
  } catch (error) {
    process.stderr.write(`${isParleyError(error) ? error.message : String(error)}\nStop the hub ("parley stop"), then run "parley doctor --vacuum" again.\n`);
    return 1;
  }
  try {
    const vacuumed = vacuumStore(home);
    if (vacuumed) process.stdout.write(`vacuumed ${vacuumed.file}: ${formatBytes(vacuumed.before)} -> ${formatBytes(vacuumed.after)}; retention now gives freed space back as it prunes\n`);
  } finally {
    lock.release();
  }
  return 0;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  return `${(bytes / (1024 * 1024 * 1024)).toFixed(2)} GiB`;
}

/**
 * The hub: the one given (--url, PARLEY_URL), else the one running on the
 * home, which must also prove it is that home's hub. `answers`: the address
 * of a hub that answers as it should.
 */
async function checkHub(home: string, holder: LiveHub | undefined, given: string | undefined): Promise<{ check: Check; answers?: string }> {
  const url = given ?? holder?.url;
  if (url === undefined) return { check: { name: 'hub', ok: false, detail: `no hub is running on home ${home}; start one with "parley serve"` } };
  let body: { ok?: boolean; version?: string };
  try {
    const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(DEFAULT_HUB_QUERY_TIMEOUT_MS) });
    body = (await response.json()) as typeof body;
    if (!response.ok || body.ok !== true) throw new Error(`HTTP ${response.status}`);
  } catch {
    return { check: { name: 'hub', ok: false, detail: `no hub answers at ${url}; start one with "parley serve"${holder?.url ? ` (this home's hub said it serves ${holder.url})` : ''}` } };
  }
  const answers = { name: 'hub', detail: `${url} answers (version ${body.version ?? '?'})` };
  if (holder?.url !== undefined && holder.url !== url) {
    return { check: { ...answers, ok: false, detail: `${url} answers, but this home's hub serves ${holder.url}; drop --url/PARLEY_URL, or set it to ${holder.url}` }, answers: url };
  }
  if (given === undefined && holder) {
    const proof = await proveHub(holder, DEFAULT_HUB_QUERY_TIMEOUT_MS);
    if (!proof.ok) return { check: { ...answers, ok: false, detail: `${url} answers, but ${proof.reason}: no command will send it a credential; stop it, and restart this home's hub` } };
  }
  return { check: { ...answers, ok: true }, answers: url };
}

/** Whether the hub at url has a password (sign-in on), from its public login route; undefined when it does not say. */
async function askPasswordSet(url: string): Promise<boolean | undefined> {
  try {
    const response = await fetch(`${url}/api/v1/login`, { signal: AbortSignal.timeout(3000) });
    const body = (await response.json()) as { passwordSet?: unknown };
    return typeof body.passwordSet === 'boolean' ? body.passwordSet : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The port: where this home's hub actually listens when it runs (the port it
 * bound, which differs from the configured one with --port or port 0), or, when
 * no hub runs, whether the configured port is free for one.
 */
async function portCheck(server: Pick<Config['server'], 'host' | 'port'>, servingUrl: string | undefined): Promise<Check> {
  const configured = `${server.host}:${server.port}`;
  if (servingUrl) {
    const bound = new URL(servingUrl).port;
    const differs = server.port === 0 ? ' (configured 0: it picked a free port)' : Number(bound) !== server.port ? ` (configured ${configured})` : '';
    return { name: 'port', ok: true, detail: `the hub listens on port ${bound}${differs}` };
  }
  if (server.port === 0) return { name: 'port', ok: true, detail: 'configured 0: the hub picks a free port when it starts' };
  const free = await portIsFree(server.host, server.port);
  return free
    ? { name: 'port', ok: true, detail: `${configured} is free for "parley serve"` }
    : { name: 'port', ok: false, detail: `${configured} is taken by another program; stop it, or start the hub with --port (or PARLEY_PORT) and a free port` };
}

function portIsFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });
}

function isWritable(dir: string): boolean {
  try {
    fs.accessSync(dir, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
