import { describe, expect, it } from 'vitest';
import { APP_BASE, appOf, openTestHub } from '../helpers/hub.js';

describe('openapi', () => {
  it('openapi - the document covers every route the app serves, with body schemas from zod', async () => {
    const t = await openTestHub();
    try {
      await t.hub.join({ handle: 'a', session: 's' });
      const token = await t.hub.issueToken('a', 's');
      const admin = { file: 'x', verify: () => false };
      const app = appOf(t, { admin });
      const unauthenticated = await app.request(`${APP_BASE}/api/v1/openapi.json`);
      expect(unauthenticated.status).toBe(401);
      const res = await app.request(`${APP_BASE}/api/v1/openapi.json`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
      const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { properties?: object } }> } }>> };
      expect(doc.openapi).toBe('3.1.0');
      const documented = new Set(Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`)));
      const served = new Set(
        app.routes
          .filter((r) => r.method !== 'ALL')
          .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}').replace(/(.)\/$/, '$1')}`),
      );
      expect([...served].filter((route) => !documented.has(route))).toEqual([]);
      expect([...documented].filter((route) => !served.has(route))).toEqual([]);
      const post = doc.paths['/api/v1/threads/{thread}/messages']?.post;
      expect(Object.keys(post?.requestBody?.content['application/json']?.schema.properties ?? {})).toEqual(['text', 'to', 'reply_to', 'tags']);
    } finally {
      await t.close();
    }
  });
});
