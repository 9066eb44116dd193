import { useSyncExternalStore } from 'react';

const subscribe = () => () => {};

/**
 * False in the build's prerender and while React hydrates that HTML, true once the page is live (and at once on a
 * page React renders itself). A prerendered form shows disabled until then: what a visitor typed before would be
 * reset by hydration, and pressing Enter would submit the bare HTML form.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}
