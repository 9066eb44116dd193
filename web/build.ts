import { join, resolve } from 'node:path';
import { bundleWeb } from './build-config';

/*
 * Production build of the web app into web/dist. The bundling options live in ./build-config.ts (re-exported here),
 * so the budgets test builds with exactly the same ones.
 */
export { bundleWeb, webBuildConfig } from './build-config';

// BPAY_WEB_DIST (the folder the server serves) may name another folder, e.g. for parallel e2e runs.
const outdir = process.env.BPAY_WEB_DIST ? resolve(process.env.BPAY_WEB_DIST) : join(import.meta.dir, 'dist');
let result: Bun.BuildOutput;
try {
  result = await bundleWeb(outdir);
} catch (error) {
  console.error(error instanceof AggregateError ? error.message : error);
  process.exit(1);
}
// The public pages rendered to HTML (pages/*.html), before compression so they get their copies too. A child process:
// React's server renderer and the app's modules stay out of this bundling process, and React runs its production build
// (NODE_ENV is read when React is first imported).
{
  const env = { ...process.env, NODE_ENV: 'production' };
  const res = Bun.spawnSync([process.execPath, join(import.meta.dir, 'prerender-pages.ts'), outdir], { env, stdout: 'inherit', stderr: 'inherit' });
  if (res.exitCode !== 0) {
    console.error('web: prerendering the public pages failed');
    process.exit(1);
  }
}
// Brotli and gzip copies beside every text file (the server picks one by Accept-Encoding). Imported here, at the
// end, so this step stays apart from the bundling options above.
{
  const { compressFolder } = await import('./compress');
  const compressed = compressFolder(outdir);
  const kb = (n: number) => `${(n / 1024).toFixed(0)} KB`;
  const total = (pick: (f: (typeof compressed)[number]) => number | undefined) => compressed.reduce((n, f) => n + (pick(f) ?? f.bytes), 0);
  console.log(
    `web: built ${result.outputs.length} files and widget.js into ${outdir}; compressed ${compressed.length} ` +
      `(${kb(total((f) => f.bytes))} -> br ${kb(total((f) => f.br))}, gzip ${kb(total((f) => f.gz))})`,
  );
}
