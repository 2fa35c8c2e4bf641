// Checks the commit messages since the house rule for them began: a subject
// of at most 72 characters, no "WIP", and, except for merges, a body that
// says why. Older history is left as it was written. Run by `npm run lint`.
import { execFileSync } from 'node:child_process';

/** The last commit written before the rule; everything after it is checked. */
const RULE_SINCE = 'e03ce04';
const MAX_SUBJECT = 72;

function git(args) {
  return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
}

let log;
try {
  git(['cat-file', '-e', `${RULE_SINCE}^{commit}`]);
  log = git(['log', '--format=%H%x1f%P%x1f%s%x1f%b%x1e', `${RULE_SINCE}..HEAD`]);
} catch {
  // A tarball or a shallow clone has no history to check.
  process.stdout.write('commit messages: no git history here, nothing checked\n');
  process.exit(0);
}

const problems = [];
for (const record of log.split('\x1e')) {
  if (record.trim() === '') continue;
  const [hash, parents, subject, body] = record.replace(/^\n/, '').split('\x1f');
  const short = hash.slice(0, 7);
  if (subject.length > MAX_SUBJECT) problems.push(`${short}: the subject has ${subject.length} characters (at most ${MAX_SUBJECT})`);
  if (/\bWIP\b/i.test(subject)) problems.push(`${short}: "WIP" in the subject; finish the step before committing it`);
  const merge = parents.trim().split(' ').length > 1;
  if (!merge && (body ?? '').trim() === '') problems.push(`${short}: no body; say why the change is made`);
}
if (problems.length > 0) {
  process.stderr.write(`commit messages:\n${problems.map((line) => `  ${line}`).join('\n')}\n`);
  process.exit(1);
}
process.stdout.write(`commit messages: ${log.split('\x1e').filter((r) => r.trim()).length} checked since ${RULE_SINCE}\n`);
