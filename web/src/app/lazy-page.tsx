import { Component, use, type ComponentType, type ReactNode } from 'react';
import { useLanguage } from '../i18n';

/** A page in a lazily loaded chunk, with a way to load it ahead of its first render. */
export interface LazyPage {
  (): React.JSX.Element;
  /** Loads the page's chunk, once: a failed download stays failed until the page is reloaded. */
  preload(): Promise<ComponentType>;
}

/**
 * Like React.lazy, except that a page whose chunk has already loaded renders at once, without suspending even once.
 * That is what hydrating a prerendered page needs (main.tsx preloads the page, then hydrates): React.lazy would
 * suspend on its first render whatever happened before, and leave the page's HTML waiting for the next pass.
 * Like React.lazy, a failed download is not retried by rendering again (that would request the chunk in a loop, for
 * instance a tab left open across a deploy whose old chunks are gone): the error reaches ChunkErrorBoundary.
 */
export function lazyPage<M>(load: () => Promise<M>, pick: (module: M) => ComponentType): LazyPage {
  let loaded: ComponentType | null = null;
  let loading: Promise<ComponentType> | null = null;
  const preload = () => (loading ??= load().then((module) => (loaded = pick(module))));
  function Page() {
    const Page = loaded ?? use(preload());
    return <Page />;
  }
  Page.preload = preload;
  return Page;
}

function ChunkError() {
  const { t, dir } = useLanguage();
  return (
    <div dir={dir} role="alert" className="flex min-h-screen flex-col items-center justify-center gap-4 bg-slate-50 p-6 text-center">
      <p className="text-slate-700">{t('common.chunkError')}</p>
      <button
        type="button"
        onClick={() => window.location.reload()}
        className="rounded-md bg-brand-600 px-4 py-2 text-sm font-medium text-white hover:bg-brand-700"
      >
        {t('common.reload')}
      </button>
    </div>
  );
}

/** A page whose code could not be downloaded: say so and offer a reload (which fetches the current build). */
export class ChunkErrorBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };
  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }
  override render() {
    return this.state.failed ? <ChunkError /> : this.props.children;
  }
}
