import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Read from the source with the TypeScript compiler: every public method of
 * every entry object of the hub (a class holding the hub's gate, `#gate`)
 * goes through the gate, calling it itself or through another public method
 * of its class that does. A method added without the gate fails here, even
 * before any behaviour test calls it.
 */
const HUB_DIR = path.join(import.meta.dirname, '../../src/hub');

interface EntryClass {
  file: string;
  name: string;
  /** Public methods, each with whether its body calls the gate, and the methods of its class it calls. */
  methods: Map<string, { callsGate: boolean; calls: Set<string> }>;
}

function entryClasses(): EntryClass[] {
  const found: EntryClass[] = [];
  for (const file of fs.readdirSync(HUB_DIR).filter((f) => f.endsWith('.ts'))) {
    const source = ts.createSourceFile(file, fs.readFileSync(path.join(HUB_DIR, file), 'utf8'), ts.ScriptTarget.Latest, true);
    source.forEachChild((node) => {
      if (!ts.isClassDeclaration(node) || !node.name) return;
      const holdsGate = node.members.some((m) => ts.isPropertyDeclaration(m) && ts.isPrivateIdentifier(m.name) && m.name.text === '#gate');
      if (!holdsGate) return;
      const methods = new Map<string, { callsGate: boolean; calls: Set<string> }>();
      for (const member of node.members) {
        if (!ts.isMethodDeclaration(member) || !member.body || !ts.isIdentifier(member.name)) continue;
        const hidden = ts.getModifiers(member)?.some((m) => m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.ProtectedKeyword);
        if (hidden) continue;
        const seen = { callsGate: false, calls: new Set<string>() };
        const visit = (n: ts.Node): void => {
          if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression)) {
            const target = n.expression.expression;
            // this.#gate.call(…), this.#gate.open(…), this.#gate.check(…)
            if (ts.isPropertyAccessExpression(target) && target.expression.kind === ts.SyntaxKind.ThisKeyword && ts.isPrivateIdentifier(target.name) && target.name.text === '#gate') {
              seen.callsGate = true;
            }
            // this.other(…)
            if (target.kind === ts.SyntaxKind.ThisKeyword && ts.isIdentifier(n.expression.name)) seen.calls.add(n.expression.name.text);
          }
          n.forEachChild(visit);
        };
        visit(member.body);
        methods.set(member.name.text, seen);
      }
      found.push({ file, name: node.name.text, methods });
    });
  }
  return found;
}

/** The public methods of a class that reach the gate neither themselves nor through another public method that does. */
function bypassing(entry: EntryClass): string[] {
  const passes = new Set([...entry.methods].filter(([, m]) => m.callsGate).map(([name]) => name));
  for (let grew = true; grew; ) {
    grew = false;
    for (const [name, m] of entry.methods) {
      if (!passes.has(name) && [...m.calls].some((called) => passes.has(called))) {
        passes.add(name);
        grew = true;
      }
    }
  }
  return [...entry.methods.keys()].filter((name) => !passes.has(name));
}

describe('gate - read from the source', () => {
  it('gate static - the entry objects are the Actor and the peer entry, each with its methods', () => {
    const classes = entryClasses();
    expect(classes.map((c) => `${c.file}:${c.name}`).sort()).toEqual(['actor.ts:Actor', 'peer-entry.ts:PeerEntry']);
    expect(classes.find((c) => c.name === 'Actor')!.methods.size).toBeGreaterThan(50);
  });

  it('gate static - every public method of every entry object goes through the gate', () => {
    const offenders = entryClasses().flatMap((c) => bypassing(c).map((method) => `${c.name}.${method} (${c.file})`));
    expect(offenders).toEqual([]);
  });
});
