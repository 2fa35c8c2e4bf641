import type { Config } from './schema.js';

/**
 * The settings a hub runs with (defaults, file, PARLEY_* variables and
 * flags, merged), fit to hand out: the hub password becomes whether one is
 * set, and the values of the environment given to coordinator adapters
 * (often API keys) are replaced by this mark, their names kept.
 */
export const SECRET_VALUE = '[secret]';

export type PublicConfig = Omit<Config, 'webui'> & {
  webui: Omit<Config['webui'], 'password'> & { passwordSet: boolean };
};

export function publicConfig(config: Config): PublicConfig {
  const copy = structuredClone(config);
  const { password, ...webui } = copy.webui;
  for (const agent of Object.values(copy.coordinator.agents)) {
    agent.env = Object.fromEntries(Object.keys(agent.env).map((name) => [name, SECRET_VALUE]));
  }
  return { ...copy, webui: { ...webui, passwordSet: password !== '' } };
}
