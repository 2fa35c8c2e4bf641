import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ACCESS_LEVELS } from '../../src/schema/access.js';
import { caught, openTestHub } from '../helpers/hub.js';

/**
 * The permission role (`access`: observer, member, operator, admin) and the
 * profile's free-text `roles` (planner, reviewer) are two things with two
 * names: no schema uses one key for both.
 */
type Json = { [key: string]: unknown };

/** Every property (name and schema) anywhere in a JSON Schema. */
function properties(schema: unknown, out: Array<[string, Json]> = []): Array<[string, Json]> {
  if (Array.isArray(schema)) for (const item of schema) properties(item, out);
  else if (schema && typeof schema === 'object') {
    const props = (schema as Json).properties;
    if (props && typeof props === 'object') for (const [name, value] of Object.entries(props as Json)) out.push([name, value as Json]);
    for (const value of Object.values(schema as Json)) properties(value, out);
  }
  return out;
}

const isAccessEnum = (schema: Json): boolean => JSON.stringify(schema).includes(JSON.stringify([...ACCESS_LEVELS]));

async function everySchema(): Promise<Array<[string, z.ZodType]>> {
  const dirs = ['src/schema', 'src/config', 'src/http'];
  const found: Array<[string, z.ZodType]> = [];
  for (const dir of dirs) {
    for (const file of fs.readdirSync(path.join(import.meta.dirname, '../..', dir)).filter((f) => f.endsWith('.ts'))) {
      const module = (await import(path.join(import.meta.dirname, '../..', dir, file))) as Record<string, unknown>;
      for (const [name, value] of Object.entries(module)) if (value instanceof z.ZodType) found.push([`${dir}/${file}:${name}`, value]);
    }
  }
  return found;
}

describe('access and profile roles', () => {
  it('access names - every key "access" is the permission role, no key "roles" is: the two never share a name', async () => {
    const schemas = await everySchema();
    expect(schemas.length).toBeGreaterThan(20);
    let accessKeys = 0;
    for (const [where, schema] of schemas) {
      const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
      for (const [name, property] of properties(json)) {
        if (name === 'roles') expect(isAccessEnum(property), `${where}: "roles" holds access levels`).toBe(false);
        if (name === 'access') {
          accessKeys++;
          expect(isAccessEnum(property), `${where}: "access" is not the permission role`).toBe(true);
        }
      }
    }
    expect(accessKeys).toBeGreaterThan(0);
  });

  it('access names - a profile role named like an access level grants nothing: it stays free text', async () => {
    const t = await openTestHub();
    try {
      const agent = await t.hub.join({ handle: 'coder', session: 's', profile: { roles: ['admin', 'planner'] } });
      const me = await agent.whoami();
      expect(me.participant.profile.roles).toEqual(['admin', 'planner']);
      expect(me.access).toBe('operator');
      expect((await caught(() => agent.pause('general'))).code).toBe('FORBIDDEN_ROLE');
    } finally {
      await t.close();
    }
  });
});
