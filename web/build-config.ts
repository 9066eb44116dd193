import tailwind from 'bun-plugin-tailwind';
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/*
 * The web app's bundling options, shared by the production build (web/build.ts) and the budgets test
 * (web/src/budgets.test.ts), which builds into a temporary folder with exactly these options.
 * The Tailwind plugin is given to Bun.build explicitly: bunfig's [serve.static] plugins apply only to the dev server.
 */
export function webBuildConfig(outdir: string): Bun.BuildConfig {
  return {
    entrypoints: [join(import.meta.dir, 'index.html')],
    outdir,
    // Absolute asset URLs: client-side routes such as /auth/logout must still load /assets/...
    publicPath: '/',
    plugins: [tailwind],
    // Each route area (`lazy(() => import('./areas/...'))`) becomes its own chunk; shared code goes into common chunks.
    splitting: true,
    // Full minification. Identifier renaming was once off "because it broke builds"; see docs/DECISIONS.md
    // (Bundle splitting and minification) for what was checked.
    minify: true,
    sourcemap: 'linked',
    define: { 'process.env.NODE_ENV': JSON.stringify('production') },
    naming: { asset: 'assets/[name]-[hash].[ext]', chunk: 'assets/[name]-[hash].[ext]', entry: '[dir]/[name].[ext]' },
  };
}

/** Empties `outdir`, bundles the app into it and copies the merchant widget; throws with Bun's logs on failure. */
export async function bundleWeb(outdir: string): Promise<Bun.BuildOutput> {
  rmSync(outdir, { recursive: true, force: true });
  const result = await Bun.build(webBuildConfig(outdir));
  if (!result.success) throw new AggregateError(result.logs, `web build failed:\n${result.logs.join('\n')}`);
  // The merchant checkout widget: one plain script merchants include from bpay's origin, served as /widget.js.
  copyFileSync(join(import.meta.dir, 'widget', 'bpay.js'), join(outdir, 'widget.js'));
  return result;
}
