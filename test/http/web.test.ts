import { describe, expect, it } from 'vitest';
import { APP_BASE, appOf, testHubsClosedAfterEach } from '../helpers/hub.js';

const hubs = testHubsClosedAfterEach();

describe('the web page files', () => {
  it('web - / serves the built page without credentials; its scripts come from the hub, with long caching; nothing else of the disk is reachable', async () => {
    const t = await hubs.open();
    const app = appOf(t);
    const page = await app.request(`${APP_BASE}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const html = await page.text();
    // Offline: nothing is loaded from another host.
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    const scripts = [...html.matchAll(/src="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    for (const script of scripts) {
      const asset = await app.request(`${APP_BASE}${script}`);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(asset.headers.get('cache-control')).toContain('immutable');
      expect((await asset.text()).length).toBeGreaterThan(100);
    }
    for (const probe of ['/assets/../../package.json', '/assets/%2e%2e/%2e%2e/package.json', '/assets/nope.js']) {
      const refused = await app.request(`${APP_BASE}${probe}`);
      expect(refused.status, probe).toBe(404);
    }
    // A page from another origin cannot load it through DNS rebinding either.
    expect((await app.request('http://evil.example:7420/')).status).toBe(403);
  });
});
