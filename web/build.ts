import tailwind from 'bun-plugin-tailwind';
import { copyFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

/*
 * Production build of the web app into web/dist. The Tailwind plugin is given to Bun.build explicitly:
 * bunfig's [serve.static] plugins apply only to the dev server.
 * Minification is limited to whitespace and syntax (identifier minification has broken builds with this stack).
 */
// BPAY_WEB_DIST (the folder the server serves) may name another folder, e.g. for parallel e2e runs.
const outdir = process.env.BPAY_WEB_DIST ? resolve(process.env.BPAY_WEB_DIST) : join(import.meta.dir, 'dist');
rmSync(outdir, { recursive: true, force: true });
const result = await Bun.build({
  entrypoints: [join(import.meta.dir, 'index.html')],
  outdir,
  // Absolute asset URLs: client-side routes such as /auth/logout must still load /assets/...
  publicPath: '/',
  plugins: [tailwind],
  // Lazy routes (`import()`) become their own chunks; shared code goes into common chunks.
  splitting: true,
  minify: { whitespace: true, syntax: true, identifiers: false },
  sourcemap: 'linked',
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  naming: { asset: 'assets/[name]-[hash].[ext]', chunk: 'assets/[name]-[hash].[ext]', entry: '[dir]/[name].[ext]' },
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
// The merchant checkout widget: one plain script merchants include from bpay's origin, served as /widget.js.
copyFileSync(join(import.meta.dir, 'widget', 'bpay.js'), join(outdir, 'widget.js'));
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
