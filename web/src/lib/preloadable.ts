import { createElement, lazy, useEffect, useState, type ComponentType, type ReactNode } from 'react';

/*
 * A component whose code loads on first use, as React.lazy's, that can also be loaded ahead (issue 31 §4), and that
 * never suspends. React.lazy suspends on its first render even when the module arrived long before, and once a
 * Suspense boundary has shown its fallback React holds the content back for a throttle of about 300 ms: a tab whose
 * code was fetched a moment before still took a third of a second to show. Here the component renders `fallback`
 * itself while its code loads and the content the moment it is in; once loaded (by `preload` or an earlier render)
 * it renders straight away. A download that fails hands over to React.lazy, which tries again and throws to the
 * nearest error boundary.
 */
export function preloadable<P extends object>(load: () => Promise<ComponentType<P>>) {
  let loaded: ComponentType<P> | null = null;
  let pending: Promise<ComponentType<P>> | null = null;
  const preload = (): Promise<ComponentType<P>> =>
    (pending ??= load().then(
      (c) => (loaded = c),
      (e: unknown) => {
        // A failed download (a bad network) may be tried again by the next preload or render.
        pending = null;
        throw e;
      },
    ));
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
    if (loaded) return createElement(loaded, props as P);
    return state === 'failed' ? createElement(Lazy, props as P) : fallback;
  }
  return { Component: Preloadable, preload };
}
