import { expect, test } from 'bun:test';
import pkg from '../package.json';

// One Bun everywhere (docs/DECISIONS.md, Platform): the version npm installs globally (packageManager), the engines
// field, the types, and the copy bun-plugin-tailwind's peer dependency puts in node_modules/.bin, which every npm
// script runs first. Once that copy was a newer Bun than the pin, and builds ran on it unnoticed.
test('packageManager, engines, bun and bun-types name the same Bun, and this test runs on it', () => {
  const pinned = pkg.packageManager.replace(/^bun@/, '');
  expect(pkg.engines.bun).toBe(pinned);
  expect(pkg.devDependencies.bun).toBe(pinned);
  expect(pkg.devDependencies['bun-types']).toBe(pinned);
  expect(Bun.version).toBe(pinned);
});
