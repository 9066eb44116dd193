import { createElement, lazy, type ComponentType } from 'react';

/*
 * A component whose code loads on first use, as React.lazy's, that can also be loaded ahead (issue 31 §4). React.lazy
 * suspends on its first render even when the module arrived long before, and once a Suspense boundary has shown its
 * fallback React holds the content back for a throttle of about 300 ms: a tab whose code was prefetched still took a
 * third of a second to show. Here, once the module is loaded (by `preload` or an earlier render), the component
 * renders straight away, with no suspension.
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
  function Preloadable(props: P) {
    return loaded ? createElement(loaded, props) : createElement(Lazy, props);
  }
  return { Component: Preloadable, preload };
}
