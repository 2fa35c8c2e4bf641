import { ParleyError } from '../src/errors/parley-error.js';
import { SECTION_NAMES, type SectionName } from './figures.js';

/**
 * The options of `npm run bench -- [--quick] [--only NAME[,NAME]] [--compare FILE] [--json FILE]`.
 * BENCH_QUICK=1 in the environment is the same as --quick.
 */
export interface BenchArgs {
  quick: boolean;
  /** The sections to run, in the table's order; all of them unless --only. */
  sections: SectionName[];
  compare: string | undefined;
  json: string;
  help: boolean;
  /** How long the peer section streams 1,000 events/s to watch both hubs' memory; its default unless --peer-rss-seconds. */
  peerRssSeconds: number | undefined;
}

export const DEFAULT_JSON = 'bench-output/core.json';

export const USAGE = `usage: npm run bench -- [--quick] [--only NAME[,NAME...]] [--compare FILE] [--json FILE] [--peer-rss-seconds N]
  --quick          fewer calls and smaller stores (under 2 minutes); BENCH_QUICK=1 does the same
  --only NAME      run these sections only: ${SECTION_NAMES.join(', ')}
  --compare FILE   compare with a saved report; exits 1 when a figure got worse by more than 10%
  --json FILE      where to write this run's report (default ${DEFAULT_JSON})
  --peer-rss-seconds N
                   how long the peer section streams 1,000 events/s while it watches memory
                   (default 60, quick 10; the goal is read over 600)
`;

const invalid = (field: string, message: string): ParleyError => new ParleyError('INVALID_INPUT', `${field}: ${message}`, { field });

function isSection(name: string): name is SectionName {
  return (SECTION_NAMES as readonly string[]).includes(name);
}

export function parseBenchArgs(argv: readonly string[], env: NodeJS.ProcessEnv = {}): BenchArgs {
  const args: BenchArgs = { quick: env.BENCH_QUICK === '1', sections: [...SECTION_NAMES], compare: undefined, json: DEFAULT_JSON, help: false, peerRssSeconds: undefined };
  let only: SectionName[] | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    const inline = arg.startsWith('--') && eq > 0 ? arg.slice(eq + 1) : undefined;
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === '' || (inline === undefined && v.startsWith('--'))) throw invalid(name, `needs a value (${USAGE.split('\n')[0]})`);
      return v;
    };
    switch (name) {
      case '--quick':
        if (inline !== undefined) throw invalid(name, 'takes no value');
        args.quick = true;
        break;
      case '--only':
        for (const section of value().split(',').map((s) => s.trim())) {
          if (!isSection(section)) throw invalid('--only', `unknown section "${section}"; the sections are ${SECTION_NAMES.join(', ')}`);
          (only ??= []).push(section);
        }
        break;
      case '--compare':
        args.compare = value();
        break;
      case '--json':
        args.json = value();
        break;
      case '--peer-rss-seconds': {
        const text = value();
        const seconds = Number(text);
        if (!/^\d+$/.test(text) || seconds < 1 || seconds > 3600) throw invalid(name, `must be a whole number of seconds from 1 to 3600, not "${text}"`);
        args.peerRssSeconds = seconds;
        break;
      }
      case '--help':
      case '-h':
        args.help = true;
        break;
      default:
        throw invalid(name, `unknown option; ${USAGE.split('\n')[0]}`);
    }
  }
  if (only) args.sections = SECTION_NAMES.filter((s) => only.includes(s));
  return args;
}
