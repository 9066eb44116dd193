import { Fragment, type ReactNode } from 'react';

/**
 * A catalogue text with elements in its {placeholders} ("Type {chrome} in the address bar"): the translator keeps
 * the sentence whole, and the code, file names and addresses inside it stay elements of their own (left to right).
 * An unknown placeholder is left as written.
 */
export function Rich({ text, values }: { text: string; values: Record<string, ReactNode> }) {
  const parts = text.split(/\{(\w+)\}/);
  return (
    <>
      {parts.map((part, i) =>
        i % 2 === 0 ? <Fragment key={i}>{part}</Fragment> : <Fragment key={i}>{part in values ? values[part] : `{${part}}`}</Fragment>,
      )}
    </>
  );
}

/** A browser address, file or folder name: monospace, left to right inside Arabic, allowed to wrap on a phone. */
export function Code({ children }: { children: ReactNode }) {
  return (
    <code dir="ltr" className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-[0.9em] text-slate-800 [overflow-wrap:anywhere]">
      {children}
    </code>
  );
}

/** A browser's own button or menu name, as its menus show it: isolated from the sentence around it (bidi). */
export function UiName({ children }: { children: ReactNode }) {
  return (
    <bdi dir="ltr" className="font-medium">
      {children}
    </bdi>
  );
}
