import { use, type ComponentType } from 'react';

/** A page in a lazily loaded chunk, with a way to load it ahead of its first render. */
export interface LazyPage {
  (): React.JSX.Element;
  /** Loads the page's chunk (once; again after a failure). */
  preload(): Promise<ComponentType>;
}

/**
 * Like React.lazy, except that a page whose chunk has already loaded renders at once, without suspending even once.
 * That is what hydrating a prerendered page needs (main.tsx preloads the page, then hydrates): React.lazy would
 * suspend on its first render whatever happened before, and leave the page's HTML waiting for the next pass.
 */
export function lazyPage<M>(load: () => Promise<M>, pick: (module: M) => ComponentType): LazyPage {
  let loaded: ComponentType | null = null;
  let loading: Promise<ComponentType> | null = null;
  const preload = () =>
    (loading ??= load().then(
      (module) => (loaded = pick(module)),
      (error: unknown) => {
        // A failed download (a flaky network) is tried again on the next render or preload.
        loading = null;
        throw error;
      },
    ));
  function Page() {
    const Component = loaded ?? use(preload());
    return <Component />;
  }
  Page.preload = preload;
  return Page;
}
