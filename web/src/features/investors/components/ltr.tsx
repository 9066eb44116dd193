import { Fragment, type ReactNode } from 'react';
import { cn } from '../../../lib/cn';
import { splitTemplate } from '../template';

/**
 * A figure ("$2.5M", "500+", "0.9%–2.9%", "2025–2027") kept left-to-right: inside Arabic text the bidi algorithm
 * would otherwise reorder its parts ("2025–2027" would read "2027–2025"). `dir` on an inline element also isolates
 * it from the text around it. It stays inline (not inline-block) so screen readers read it as part of the sentence.
 */
export function Ltr({ children, className }: { children: ReactNode; className?: string }) {
  return (
    <span dir="ltr" className={cn('whitespace-nowrap', className)}>
      {children}
    </span>
  );
}

/** A catalogue template with elements in its {placeholders}; an unknown placeholder is left as written. */
export function Rich({ template, values }: { template: string; values: Record<string, ReactNode> }) {
  return (
    <>
      {splitTemplate(template).map((part, i) =>
        typeof part === 'string' ? (
          <Fragment key={i}>{part}</Fragment>
        ) : (
          <Fragment key={i}>{part.name in values ? values[part.name] : `{${part.name}}`}</Fragment>
        ),
      )}
    </>
  );
}
