import { describe, expect, it } from 'vitest';
import { DEFAULT_JSON, parseBenchArgs } from '../../bench/args.js';
import { SECTION_NAMES } from '../../bench/figures.js';
import { ParleyError } from '../../src/errors/parley-error.js';

describe('the options of npm run bench', () => {
  it('parseBenchArgs - runs every section, full, writing the default JSON, with no option', () => {
    expect(parseBenchArgs([])).toEqual({ quick: false, sections: [...SECTION_NAMES], compare: undefined, json: DEFAULT_JSON, help: false, peerRssSeconds: undefined });
  });

  it('parseBenchArgs - --quick and BENCH_QUICK=1 both make a quick run', () => {
    expect(parseBenchArgs(['--quick']).quick).toBe(true);
    expect(parseBenchArgs([], { BENCH_QUICK: '1' }).quick).toBe(true);
    expect(parseBenchArgs([], { BENCH_QUICK: '0' }).quick).toBe(false);
  });

  it('parseBenchArgs - --only takes one section, a list, or several flags, run in the table order', () => {
    expect(parseBenchArgs(['--only', 'post']).sections).toEqual(['post']);
    expect(parseBenchArgs(['--only=rest,post']).sections).toEqual(['post', 'rest']);
    expect(parseBenchArgs(['--only', 'mcp', '--only', 'startup', '--quick']).sections).toEqual(['startup', 'mcp']);
  });

  it('parseBenchArgs - --help asks for the usage', () => {
    expect(parseBenchArgs(['--help']).help).toBe(true);
    expect(parseBenchArgs(['-h']).help).toBe(true);
  });

  it('parseBenchArgs - --compare and --json take a file, as NAME VALUE or NAME=VALUE', () => {
    expect(parseBenchArgs(['--compare', 'old.json', '--json=new.json'])).toMatchObject({ compare: 'old.json', json: 'new.json' });
  });

  it('parseBenchArgs - --peer-rss-seconds sets the peer memory watch, refusing what is not 1 to 3600 seconds', () => {
    expect(parseBenchArgs(['--peer-rss-seconds', '600']).peerRssSeconds).toBe(600);
    expect(parseBenchArgs(['--peer-rss-seconds=15']).peerRssSeconds).toBe(15);
    for (const bad of ['0', '3601', '1.5', 'ten']) {
      expect(() => parseBenchArgs(['--peer-rss-seconds', bad])).toThrow(`--peer-rss-seconds: must be a whole number of seconds from 1 to 3600, not "${bad}"`);
    }
  });

  it('parseBenchArgs - refuses an unknown section, an unknown option and a missing value, naming each', () => {
    const error = (argv: string[]): ParleyError => {
      try {
        parseBenchArgs(argv);
      } catch (caught) {
        if (caught instanceof ParleyError) return caught;
        throw caught;
      }
      throw new Error(`parseBenchArgs accepted ${argv.join(' ')}`);
    };
    expect(error(['--only', 'posts'])).toMatchObject({ code: 'INVALID_INPUT', field: '--only', message: `--only: unknown section "posts"; the sections are ${SECTION_NAMES.join(', ')}` });
    expect(error(['--fast'])).toMatchObject({ field: '--fast', message: expect.stringMatching(/^--fast: unknown option; usage: npm run bench -- /) });
    expect(error(['--compare'])).toMatchObject({ field: '--compare', message: expect.stringMatching(/^--compare: needs a value/) });
    expect(error(['--compare', '--quick'])).toMatchObject({ field: '--compare' });
    expect(error(['--quick=yes'])).toMatchObject({ field: '--quick', message: '--quick: takes no value' });
  });
});
