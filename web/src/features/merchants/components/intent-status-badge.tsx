import { Badge } from '../../../components/ui/badge';
import { useT } from '../../../i18n';
import { deliveryStatusBadge, intentStatusBadge } from '../display';

export function IntentStatusBadge({ status }: { status: string }) {
  const t = useT();
  const { tone, label } = intentStatusBadge(status);
  return (
    <Badge tone={tone} className="whitespace-nowrap" data-testid="intent-status" data-status={status}>
      {label ? t(label) : status}
    </Badge>
  );
}

export function DeliveryStatusBadge({ status }: { status: string }) {
  const t = useT();
  const { tone, label } = deliveryStatusBadge(status);
  return (
    <Badge tone={tone} className="whitespace-nowrap" data-testid="delivery-status" data-status={status}>
      {label ? t(label) : status}
    </Badge>
  );
}
