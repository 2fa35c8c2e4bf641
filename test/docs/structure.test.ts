import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLAIMS, ROOT, blocksOf, claimedBlocks, docFiles, isCommandBlock, readDoc, type ClaimName } from './pages.js';

/** A page's text without fenced blocks and inline code, where brackets are code, not links. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchors for a page's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, text] of markdown.replace(/^```[\s\S]*?^```$/gm, '').matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = text!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

describe('docs', () => {
  it('docs - README.md is at most 200 lines', () => {
    const lines = readDoc('README.md').split('\n');
    if (lines.at(-1) === '') lines.pop();
    expect(lines.length).toBeLessThanOrEqual(200);
  });

  it('docs - the README links to every page of docs/', () => {
    const readme = readDoc('README.md');
    for (const page of docFiles().filter((file) => file !== 'README.md')) expect(readme, page).toContain(`](${page})`);
    expect(readme).toContain('](docs/ARCHITECTURE.md)');
  });

  it('docs - every relative link in README.md and docs/ resolves to a file, and every #anchor to a heading of it', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const file of docFiles()) {
      for (const [, target] of prose(readDoc(file)).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        checked += 1;
        const [where, anchor] = target!.split('#') as [string, string | undefined];
        const resolved = where === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), where));
        if (!fs.existsSync(path.join(ROOT, resolved))) {
          broken.push(`${file}: ${target} (no file ${resolved})`);
          continue;
        }
        if (anchor !== undefined && resolved.endsWith('.md') && !anchorsOf(readDoc(resolved)).has(anchor)) {
          broken.push(`${file}: ${target} (no heading #${anchor} in ${resolved})`);
        }
      }
    }
    expect(checked).toBeGreaterThan(50);
    expect(broken).toEqual([]);
  });

  it('docs - the anchors are the ones GitHub makes', () => {
    expect([...anchorsOf('# Hooks: messages between tool calls and at stop\n## Merging, backups, undo\n## `parley install`\n## Merging, backups, undo\n')]).toEqual([
      'hooks-messages-between-tool-calls-and-at-stop',
      'merging-backups-undo',
      'parley-install',
      'merging-backups-undo-1',
    ]);
  });

  it('docs - every command block a user would run is run by a test, or checked to be what a test runs', () => {
    const unclaimed: string[] = [];
    const claimedBy = new Map<string, ClaimName>();
    for (const name of Object.keys(CLAIMS) as ClaimName[]) {
      const found = claimedBlocks(name);
      expect(found.length, `${name} finds its block in ${CLAIMS[name].file}`).toBeGreaterThan(0);
      if (name !== 'cliSession') expect(found.length, `${name} finds one block`).toBe(1);
      for (const block of found) {
        const key = `${block.file}\n${block.body}`;
        expect(claimedBy.get(key), `a block of ${block.file} claimed by ${name} and ${claimedBy.get(key)}`).toBeUndefined();
        claimedBy.set(key, name);
      }
      expect(fs.existsSync(path.join(ROOT, CLAIMS[name].test)), CLAIMS[name].test).toBe(true);
      expect(fs.readFileSync(path.join(ROOT, CLAIMS[name].test), 'utf8'), `${CLAIMS[name].test} uses the claim ${name}`).toMatch(new RegExp(`claimedBlock\\('${name}'\\)|'${name}'`));
    }
    for (const file of docFiles()) {
      for (const block of blocksOf(file).filter(isCommandBlock)) {
        if (!claimedBy.has(`${block.file}\n${block.body}`)) unclaimed.push(`${file}:\n${block.body}`);
      }
    }
    expect(unclaimed).toEqual([]);
  });
});
