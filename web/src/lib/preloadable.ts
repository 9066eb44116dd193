import { createElement, lazy, useEffect, useState, type ComponentType, type ReactNode } from 'react';

/*
 * A component whose code loads on first use, as React.lazy's, that can also be loaded ahead (issue 31 §4), and that
 * never suspends. React.lazy suspends on its first render even when the module arrived long before, and once a
 * Suspense boundary has shown its fallback React holds the content back for a throttle of about 300 ms: a tab whose
 * code was fetched a moment before still took a third of a second to show. Here the component renders `fallback`
 * itself while its code loads and the content the moment it is in; once loaded (by `preload` or an earlier render)
 * it renders straight away.
 *
 * A download that fails is not asked for again (as app/lazy-page.tsx: after a deploy the old chunk is gone for good):
 * the component hands over to React.lazy, whose failed load throws to the nearest error boundary (the app's chunk
 * boundary offers a reload), and keeps it from then on, so no later render swaps the element type and remounts it.
 */
export function preloadable<P extends object>(load: () => Promise<ComponentType<P>>) {
  let loaded: ComponentType<P> | null = null;
  let pending: Promise<ComponentType<P>> | null = null;
  const preload = (): Promise<ComponentType<P>> => (pending ??= load().then((c) => (loaded = c)));
  const Lazy = lazy(() => preload().then((c) => ({ default: c })));
  function Preloadable({ fallback = null, ...props }: P & { fallback?: ReactNode }) {
    const [state, setState] = useState<'loaded' | 'loading' | 'failed'>(() => (loaded ? 'loaded' : 'loading'));
    useEffect(() => {
      if (state !== 'loading') return;
      let live = true;
      preload().then(
        () => live && setState('loaded'),
        () => live && setState('failed'),
      );
      return () => {
        live = false;
      };
    }, [state]);
    if (state === 'failed') return createElement(Lazy, props as P);
    if (loaded) return createElement(loaded, props as P);
    return fallback;
  }
  return { Component: Preloadable, preload };
}
