import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** Every file of a tree and the files of that tree it imports (type-only and dynamic imports included). */
export type ImportGraph = Map<string, string[]>;

const SOURCE = /\.(ts|tsx|mjs)$/;

/** Reads the relative imports of every source file under `dir`, as paths relative to `root`. */
export function readImportGraph(root: string, dir: string): ImportGraph {
  const graph: ImportGraph = new Map();
  const files: string[] = [];
  const walk = (at: string): void => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(full);
    }
  };
  walk(path.join(root, dir));
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .map((imported) => imported.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => resolveSource(path.resolve(path.dirname(file), name)))
      .filter((target): target is string => target !== undefined && !target.endsWith('.css'))
      .map((target) => path.relative(root, target));
    graph.set(path.relative(root, file), [...new Set(targets)]);
  }
  return graph;
}

/** The source file an import names: `x.js` is written for `x.ts` (or `x.tsx`). */
function resolveSource(target: string): string | undefined {
  const candidates = [target, target.replace(/\.js$/, '.ts'), target.replace(/\.js$/, '.tsx'), `${target}.ts`, `${target}.tsx`, path.join(target, 'index.ts')];
  return candidates.find((candidate) => fs.existsSync(candidate) && fs.statSync(candidate).isFile());
}

/** The circles of a graph: each strongly connected set of more than one file (or a file importing itself), sorted. */
export function findCircles(graph: ImportGraph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) === index.get(file)) {
      const members: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        members.push(member);
      } while (member !== file);
      if (members.length > 1 || (graph.get(file) ?? []).includes(file)) circles.push(members.sort());
    }
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return circles;
}
