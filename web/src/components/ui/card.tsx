import type { HTMLAttributes } from 'react';
import { cn } from '../../lib/cn';

export function Card({ className, ...props }: HTMLAttributes<HTMLDivElement>) {
  return <div className={cn('rounded-xl border border-slate-200 bg-white shadow-sm', className)} {...props} />;
}
export function CardHeader({ className, ...props }: HTMLAttributes<HTMLDivElement>) {
  return <div className={cn('flex flex-col gap-1.5 p-6', className)} {...props} />;
}
/**
 * A card's heading: an h3 by default (a card inside a page section), `level={2}` for a card that sits right under the
 * page's h1, `level={1}` when the card is the page (sign-in), so heading levels never skip one (screen-reader
 * heading navigation, axe's heading-order).
 */
export function CardTitle({ className, level = 3, ...props }: HTMLAttributes<HTMLHeadingElement> & { level?: 1 | 2 | 3 }) {
  const Heading = (['h1', 'h2', 'h3'] as const)[level - 1]!;
  return <Heading className={cn('text-lg font-semibold leading-tight', className)} {...props} />;
}
export function CardDescription({ className, ...props }: HTMLAttributes<HTMLParagraphElement>) {
  return <p className={cn('text-sm text-slate-500', className)} {...props} />;
}
export function CardContent({ className, ...props }: HTMLAttributes<HTMLDivElement>) {
  return <div className={cn('p-6 pt-0', className)} {...props} />;
}
