// The layers of src/, from the bottom up. A folder imports only folders of
// lower layers (never its own layer's other folders, never upward), and the
// folders above the hub reach it only through src/hub/index.ts. ESLint
// (eslint.config.js) and test/architecture/layers.test.ts both read this
// table; docs/ARCHITECTURE.md explains each layer.

/** Each layer: the folders of src/ in it (`index` is src/index.ts, `version` src/version.ts). */
export const LAYERS = [
  ['errors', 'util', 'version'],
  ['schema', 'request'],
  ['config'],
  ['format', 'trust', 'redaction'],
  ['home', 'meeting'],
  ['store', 'search', 'install'],
  ['hub'],
  ['client', 'tools'],
  ['coordinator', 'middleware'],
  ['mcp', 'agent'],
  ['http', 'local-socket', 'peer'],
  ['cli'],
  ['index'],
];

/** Folders whose files others may import only through the folder's index.ts. */
export const PUBLIC_MODULES = ['hub', 'tools'];

/** Folders only the hub reaches: what is above it asks the hub instead. */
export const BEHIND_HUB = ['store'];

/** The layer number of a folder (0 at the bottom); undefined for a folder not in the table. */
export function layerOf(folder) {
  const at = LAYERS.findIndex((layer) => layer.includes(folder));
  return at < 0 ? undefined : at;
}

/**
 * ESLint flat-config entries that refuse, per folder, imports of its own
 * layer's other folders and of every layer above, and imports of a public
 * module's internals from outside it.
 */
export function layerLintRules() {
  const entries = [];
  for (const [at, layer] of LAYERS.entries()) {
    for (const folder of layer) {
      if (folder === 'index' || folder === 'version') continue;
      const above = LAYERS.slice(at).flat().filter((other) => other !== folder && other !== 'index' && other !== 'version');
      const patterns = [];
      if (above.length > 0) {
        patterns.push({
          group: above.flatMap((other) => [`**/${other}/**`, `**/${other}`]),
          message: `src/${folder} is in layer ${at} of scripts/layers.mjs: it imports only folders of lower layers.`,
        });
      }
      const guarded = PUBLIC_MODULES.filter((other) => other !== folder && !above.includes(other));
      if (layerOf(folder) > layerOf('hub')) {
        for (const other of BEHIND_HUB) patterns.push({ group: [`**/${other}/**`], message: `Only the hub reads and writes src/${other}: ask it through src/hub/index.ts.` });
      }
      for (const other of guarded) {
        patterns.push({ group: [`**/${other}/*`, `!**/${other}/index.js`], message: `Import src/${other} through its public module, ${other}/index.ts, not its internals.` });
      }
      if (patterns.length > 0) entries.push({ files: [`src/${folder}/**/*.ts`], rules: { 'no-restricted-imports': ['error', { patterns }] } });
    }
  }
  return entries;
}
