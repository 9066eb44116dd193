import { createContext, useContext, useEffect } from 'react';

/** The title of a page that sets none (index.html's). */
export const DEFAULT_TITLE = 'bpay';

/*
 * The page's <title>. In the browser an effect sets document.title and puts the default back when the page goes
 * (not the title found on arrival: on a prerendered page that is already the page's own, and it would stick). The build's prerender (web/src/app/prerender.tsx) runs no effects: it reads the title through this sink
 * while rendering and writes it into the page's <head>, so a prerendered page has its own title before any script.
 */
const TitleSink = createContext<((title: string) => void) | null>(null);

/** Given by the prerender only; in the browser there is no sink. */
export const TitleSinkProvider = TitleSink.Provider;

export function useDocumentTitle(title: string): void {
  const sink = useContext(TitleSink);
  sink?.(title);
  useEffect(() => {
    document.title = title;
    return () => {
      document.title = DEFAULT_TITLE;
    };
  }, [title]);
}
