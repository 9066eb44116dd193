import { Check, Copy } from 'lucide-react';
import { useState, type ReactNode } from 'react';
import { Button, type ButtonProps } from '../../../components/ui/button';
import { toast } from '../../../components/ui/use-toast';
import { useT } from '../../../i18n';

/** Copies `text`; the toast names what was copied (spec §8: 'Copied to clipboard' / '{label} has been copied…'). */
export function CopyButton({
  text,
  label,
  testId,
  children,
  variant = 'outline',
  size = 'sm',
}: {
  text: string;
  /** What is copied, as the toast says it ("Publishable key"). */
  label: string;
  testId?: string;
  /** The button's text; "Copy" when not given. */
  children?: ReactNode;
  variant?: ButtonProps['variant'];
  size?: ButtonProps['size'];
}) {
  const t = useT();
  const [copied, setCopied] = useState(false);
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
      setTimeout(() => setCopied(false), 2000);
      toast({ title: t('merchants.copy.toast'), description: t('merchants.copy.toastBody', { label }) });
    } catch {
      toast({ title: t('merchants.copy.failed'), variant: 'destructive' });
    }
  }
  return (
    <Button
      variant={variant}
      size={size}
      onClick={copy}
      aria-label={children ? undefined : t('merchants.copy.label', { label })}
      data-testid={testId}
    >
      {copied ? <Check className="h-4 w-4 text-green-600" aria-hidden /> : <Copy className="h-4 w-4" aria-hidden />}
      {children ?? <span>{copied ? t('merchants.copy.copied') : t('merchants.copy.copy')}</span>}
    </Button>
  );
}
