import { createContext, useContext, useEffect } from 'react';

/*
 * The page's <title>. In the browser an effect sets document.title and puts the previous one back when the page
 * goes. The build's prerender (web/src/app/prerender.tsx) runs no effects: it reads the title through this sink
 * while rendering and writes it into the page's <head>, so a prerendered page has its own title before any script.
 */
const TitleSink = createContext<((title: string) => void) | null>(null);

/** Given by the prerender only; in the browser there is no sink. */
export const TitleSinkProvider = TitleSink.Provider;

export function useDocumentTitle(title: string): void {
  const sink = useContext(TitleSink);
  sink?.(title);
  useEffect(() => {
    const previous = document.title;
    document.title = title;
    return () => {
      document.title = previous;
    };
  }, [title]);
}
