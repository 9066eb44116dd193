import { Badge } from '../../../components/ui/badge';
import { useT, type MessageKey } from '../../../i18n';
import { cn } from '../../../lib/cn';
import { statusDot } from '../transactions';

const badgeTone = { completed: 'green', pending: 'yellow', failed: 'red', refunded: 'neutral' } as const;
const statusLabel: Record<keyof typeof badgeTone, MessageKey> = {
  completed: 'dashboard.status.completed',
  pending: 'dashboard.status.pending',
  failed: 'dashboard.status.failed',
  refunded: 'dashboard.status.refunded',
};
const isKnown = (s: string): s is keyof typeof badgeTone => Object.hasOwn(badgeTone, s);

/** Completed green, pending yellow, failed red; refunded and any other status neutral (spec §3), unknown ones by raw name. */
export function StatusBadge({ status }: { status: string }) {
  const t = useT();
  return (
    <Badge tone={isKnown(status) ? badgeTone[status] : 'neutral'} data-testid="transaction-status">
      {isKnown(status) ? t(statusLabel[status]) : status}
    </Badge>
  );
}

const dotClass = {
  completed: 'bg-green-500',
  pending: 'bg-yellow-400',
  failed: 'bg-red-500',
  refunded: 'bg-slate-400',
  created: 'bg-blue-500',
} as const;
const dotLabel = {
  completed: 'dashboard.activity.completed',
  pending: 'dashboard.activity.pending',
  failed: 'dashboard.activity.failed',
  refunded: 'dashboard.activity.refunded',
  created: 'dashboard.activity.created',
} as const satisfies Record<keyof typeof dotClass, MessageKey>;

/** Spec §4: completed green, pending yellow; failed red and refunded grey say so; anything else blue 'Transaction created'. */
export function StatusDot({ status }: { status: string }) {
  const t = useT();
  const kind = statusDot(status);
  return (
    <span
      className="inline-flex items-center gap-1.5 text-xs text-slate-500"
      data-testid="status-dot"
      data-status={kind}
    >
      <span className={cn('h-2 w-2 shrink-0 rounded-full', dotClass[kind])} aria-hidden />
      {t(dotLabel[kind])}
    </span>
  );
}
