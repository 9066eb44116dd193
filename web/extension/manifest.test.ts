import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { manifestFor, originOf } from './build';

/*
 * The manifest (manifest.template.json, written by build.ts): the fewest permissions that work (PERMISSIONS.md says
 * why each), the bpay origin as the only host permission, a strict CSP for extension pages, no remote URL.
 */

const ORIGIN = 'http://localhost:3100';
const m = manifestFor(ORIGIN) as {
  manifest_version: number;
  version: string;
  permissions: string[];
  host_permissions: string[];
  optional_host_permissions: string[];
  content_scripts: { matches: string[]; js: string[]; all_frames?: boolean; match_origin_as_fallback?: boolean; run_at?: string }[];
  content_security_policy: { extension_pages: string };
  background: Record<string, unknown>;
  browser_specific_settings: { gecko: { id: string; strict_min_version: string } };
  [key: string]: unknown;
};

describe('manifest', () => {
  test('Manifest V3 with exactly the permissions PERMISSIONS.md justifies', () => {
    expect(m.manifest_version).toBe(3);
    expect([...m.permissions].sort()).toEqual(['scripting', 'storage']);
    const justified = readFileSync(join(import.meta.dir, 'PERMISSIONS.md'), 'utf8');
    for (const p of [...m.permissions, 'host_permissions', 'optional_host_permissions', 'content_scripts']) expect(justified).toContain(`\`${p}\``);
  });

  test('the only host permission is the bpay origin; others only on request from the options page', () => {
    expect(m.host_permissions).toEqual([`${ORIGIN}/*`]);
    expect(m.optional_host_permissions).toEqual(['http://*/*', 'https://*/*']);
  });

  test('the detector runs in every http(s) frame; the bridge only on the origin connect page', () => {
    const [content, bridge, ...rest] = m.content_scripts;
    expect(rest).toEqual([]);
    expect(content).toEqual({ matches: ['http://*/*', 'https://*/*'], js: ['content.js'], run_at: 'document_idle', all_frames: true, match_origin_as_fallback: true });
    expect(bridge).toEqual({ matches: [`${ORIGIN}/extension/connect*`], js: ['bridge.js'], run_at: 'document_idle', all_frames: false });
  });

  test('extension pages: scripts from the extension only, no plugins, no <base>', () => {
    expect(m.content_security_policy).toEqual({ extension_pages: "script-src 'self'; object-src 'none'; base-uri 'none'" });
    expect(m.content_security_policy.extension_pages).not.toMatch(/unsafe|http|wasm|\*/);
  });

  test('nothing for pages to reach into: no web-accessible resources, no externally_connectable', () => {
    expect(m.web_accessible_resources).toBeUndefined();
    expect(m.externally_connectable).toBeUndefined();
  });

  test('no remote URL: every address in it is the bpay origin or a match pattern for all pages', () => {
    const urls = JSON.stringify(m).match(/[a-z][a-z0-9+.-]*:\/\/[^"]*/gi) ?? [];
    expect(urls.length).toBeGreaterThan(0);
    for (const u of urls) expect(u.startsWith(`${ORIGIN}/`) || u === 'http://*/*' || u === 'https://*/*').toBe(true);
  });

  test('the background: a service worker in Chromium, the same file as a background script in Firefox', () => {
    expect(m.background).toEqual({ service_worker: 'background.js', scripts: ['background.js'] });
    expect(Number(m.minimum_chrome_version)).toBeGreaterThanOrEqual(121);
    expect(m.browser_specific_settings.gecko.id).toMatch(/^[\w.-]+@[\w.-]+$/);
    expect(m.browser_specific_settings.gecko.strict_min_version).toMatch(/^\d+\.\d+$/);
    expect(m.version).toMatch(/^\d+(\.\d+){0,3}$/);
  });

  test('the template names no origin of its own', () => {
    const template = readFileSync(join(import.meta.dir, 'manifest.template.json'), 'utf8');
    expect(template).not.toContain('localhost');
    expect(template).toContain('__BPAY_ORIGIN__');
  });
});

test('originOf: BPAY_PUBLIC_URL as a bare origin, localhost:3000 by default', () => {
  expect(originOf(undefined)).toBe('http://localhost:3000');
  expect(originOf('')).toBe('http://localhost:3000');
  // As the server defaults its public URL: localhost on PORT.
  expect(originOf(undefined, '8080')).toBe('http://localhost:8080');
  expect(originOf('https://bpay.example.com', '8080')).toBe('https://bpay.example.com');
  expect(originOf('https://bpay.example.com/')).toBe('https://bpay.example.com');
  expect(originOf('http://localhost:3100/some/path')).toBe('http://localhost:3100');
  expect(() => originOf('ftp://bpay.example.com')).toThrow();
});
