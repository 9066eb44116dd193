import type { ReactNode } from 'react';
import { cn } from '../../../lib/cn';

/**
 * A mail or phone link whose target comes from the server. Until it is known the link keeps its place and its
 * label (no layout shift) but has no href: it looks disabled and is announced as a disabled link.
 */
export function ContactLink({
  href,
  className,
  children,
  testId,
}: {
  href: string | undefined;
  className: string;
  children: ReactNode;
  testId?: string;
}) {
  if (href)
    return (
      <a href={href} className={className} data-testid={testId}>
        {children}
      </a>
    );
  return (
    <a role="link" aria-disabled="true" className={cn(className, 'cursor-not-allowed opacity-60')} data-testid={testId}>
      {children}
    </a>
  );
}
