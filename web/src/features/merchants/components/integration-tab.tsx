import { BookOpen } from 'lucide-react';
import { buttonClasses } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { useT } from '../../../i18n';
import { curlSnippet, nodeSnippet, widgetSnippet } from '../snippets';
import type { Merchant } from '../api';
import { CodeBlock } from './code-block';

/** Snippets with this merchant's real publishable key; the secret key is always a placeholder. */
export function IntegrationTab({ merchant }: { merchant: Merchant }) {
  const t = useT();
  const origin = window.location.origin;
  const steps = [
    {
      title: t('merchants.integration.server.title'),
      body: t('merchants.integration.server.body'),
      blocks: [
        { code: curlSnippet(origin, merchant.apiKey), label: t('merchants.integration.curlLabel'), testId: 'integration-curl' },
        { code: nodeSnippet(origin, merchant.apiKey), label: t('merchants.integration.nodeLabel'), testId: 'integration-node' },
      ],
    },
    {
      title: t('merchants.integration.widget.title'),
      body: t('merchants.integration.widget.body'),
      blocks: [{ code: widgetSnippet(origin, merchant.apiKey), label: t('merchants.integration.widgetLabel'), testId: 'integration-widget' }],
    },
    {
      title: t('merchants.integration.webhook.title'),
      body: t('merchants.integration.webhook.body'),
      blocks: [],
    },
  ];
  return (
    <Card>
      <CardHeader>
        <CardTitle>{t('merchants.integration.title')}</CardTitle>
        <CardDescription>{t('merchants.integration.description')}</CardDescription>
      </CardHeader>
      <CardContent className="space-y-8">
        <ol className="space-y-8">
          {steps.map((s, i) => (
            <li key={s.title} className="space-y-3">
              <h3 className="flex items-center gap-2 text-base font-semibold text-slate-900">
                <span className="flex h-6 w-6 items-center justify-center rounded-full bg-brand-600 text-xs text-white" aria-hidden>
                  {i + 1}
                </span>
                {s.title}
              </h3>
              <p className="text-sm text-slate-600">{s.body}</p>
              {s.blocks.map((b) => (
                <div key={b.testId} className="space-y-1.5">
                  <p className="text-xs font-medium text-slate-500">{b.label}</p>
                  <CodeBlock code={b.code} label={b.label} testId={b.testId} />
                </div>
              ))}
            </li>
          ))}
        </ol>
        <a href="/swagger" target="_blank" rel="noopener noreferrer" className={buttonClasses('outline')}>
          <BookOpen className="h-4 w-4" aria-hidden />
          {t('merchants.portal.api.viewDocs')}
        </a>
      </CardContent>
    </Card>
  );
}
