import fs from 'node:fs';
import path from 'node:path';

/**
 * The documentation as the doc tests read it: README.md and docs/*.md, their
 * fenced blocks, and which test runs each block a user would run. A test
 * finds its block with `claimedBlock(name)`, the same finder the block test
 * uses to check that every command block is claimed by exactly one test.
 */
export const ROOT = path.resolve(import.meta.dirname, '../..');

/** README.md and every page of docs/, as paths relative to the repository. */
export function docFiles(): string[] {
  const pages = fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...pages];
}

export function readDoc(file: string): string {
  return fs.readFileSync(path.join(ROOT, file), 'utf8');
}

export interface Block {
  file: string;
  lang: string;
  body: string;
}

/** The fenced blocks of a page, with their language ('' when none). */
export function blocksOf(file: string): Block[] {
  return [...readDoc(file).matchAll(/^```([a-z]*)\n([\s\S]*?)^```$/gm)].map((m) => ({ file, lang: m[1]!, body: m[2]! }));
}

/** Whether a block is something a user would run: a shell block, a console transcript, or bare lines of commands. */
export function isCommandBlock(block: Block): boolean {
  if (['sh', 'bash', 'shell', 'console'].includes(block.lang)) return true;
  return block.lang === '' && /^(\$ |parley |npm |curl )/m.test(block.body);
}

/** Each command block of the docs, by the test that runs it (or that checks it is what a test runs). */
export const CLAIMS = {
  /** test/docs/readme-page.test.ts: the scripts these run. */
  twoCommands: { file: 'README.md', test: 'test/docs/readme-page.test.ts', match: (b: string) => b.startsWith('npm install && npm start') },
  /** test/docs/quick-start.test.ts runs it literally. */
  quickStart: { file: 'README.md', test: 'test/docs/quick-start.test.ts', match: (b: string) => b.includes('npm start') && b.includes('parley join') },
  /** test/docs/cli-page.test.ts runs every console block of the page in order. */
  cliSession: { file: 'docs/cli.md', test: 'test/docs/cli-page.test.ts', match: (b: string) => b.startsWith('$ ') },
  mcpStdio: { file: 'docs/agents-and-mcp.md', test: 'test/docs/agent-pages.test.ts', match: (b: string) => b.startsWith('claude mcp add parley -- parley mcp') },
  install: { file: 'docs/agent-clis.md', test: 'test/docs/agent-pages.test.ts', match: (b: string) => b.startsWith('parley install claude') },
  coordinate: { file: 'docs/coordinator.md', test: 'test/docs/agent-pages.test.ts', match: (b: string) => b.startsWith('parley coordinate') },
  webPassword: { file: 'docs/web.md', test: 'test/docs/agent-pages.test.ts', match: (b: string) => b.includes('PARLEY_WEBUI_PASSWORD=') },
  openapi: { file: 'docs/http-api.md', test: 'test/docs/http-page.test.ts', match: (b: string) => b.includes('/api/v1/openapi.json') },
  postAndStream: { file: 'docs/http-api.md', test: 'test/docs/http-page.test.ts', match: (b: string) => b.includes('/api/v1/stream') },
  roster: { file: 'docs/trust.md', test: 'test/docs/trust-page.test.ts', match: (b: string) => b.startsWith('parley roster init') },
  channelPolicy: { file: 'docs/trust.md', test: 'test/docs/trust-page.test.ts', match: (b: string) => b.startsWith('parley channel policy') },
  /** test/docs/peers-page.test.ts runs the five steps on two homes, each line on the machine its comment names. */
  peers: { file: 'docs/peers.md', test: 'test/docs/peers-page.test.ts', match: (b: string) => b.startsWith('# on A and on B: 1. keys') },
} as const;

export type ClaimName = keyof typeof CLAIMS;

/** The blocks a claim finds in its page. */
export function claimedBlocks(name: ClaimName): Block[] {
  const claim = CLAIMS[name];
  return blocksOf(claim.file).filter((block) => isCommandBlock(block) && claim.match(block.body));
}

/** The one block a claim finds (the block test checks there is exactly one, except for console sessions). */
export function claimedBlock(name: ClaimName): string {
  const found = claimedBlocks(name);
  if (found.length !== 1) throw new Error(`${CLAIMS[name].file}: expected one block for "${name}", found ${found.length}`);
  return found[0]!.body;
}

/** A block's command lines, without blank lines and trailing comments. */
export function commandLines(block: string): string[] {
  return block
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trimEnd())
    .filter((line) => line.trim() !== '');
}
