import { useQuery } from '@tanstack/react-query';
import { Fragment } from 'react';
import { Link } from 'wouter';
import { Badge } from '../../../components/ui/badge';
import { Button, buttonClasses } from '../../../components/ui/button';
import { useT, type MessageKey } from '../../../i18n';
import { ApiError, messageOf } from '../../../lib/api';
import { useDocumentTitle } from '../../../lib/document-title';
import { emailOutboxQuery, type EmailOutbox } from '../api';
import { getAdminToken } from '../session';

type Message = EmailOutbox['messages'][number];

/*
 * /email-outbox: the messages bpay sent or would send. The server decides who may see them (an admin token from this
 * tab, or a local install's own browser); this page only shows its answer, and its refusal in words.
 */

const STATUS_TONE: Record<Message['status'], string> = {
  pending: 'bg-amber-100 text-amber-800',
  sent: 'bg-emerald-100 text-emerald-800',
  failed: 'bg-red-100 text-red-800',
};

/** The body with its links clickable (the reset link is what a local developer came for). */
function Body({ text }: { text: string }) {
  const parts = text.split(/(https?:\/\/[^\s<>"]+)/g);
  return (
    <pre dir="ltr" className="whitespace-pre-wrap break-words rounded-md bg-slate-50 p-3 text-start font-sans text-sm text-slate-800">
      {parts.map((p, i) =>
        /^https?:\/\//.test(p) ? (
          <a key={i} href={p} className="break-all text-brand-600 underline" rel="noreferrer noopener">
            {p}
          </a>
        ) : (
          <Fragment key={i}>{p}</Fragment>
        ),
      )}
    </pre>
  );
}

export function EmailOutboxPage() {
  const t = useT();
  useDocumentTitle(t('outbox.meta.title'));
  const token = getAdminToken();
  const outbox = useQuery(emailOutboxQuery(token));
  const forbidden = outbox.error instanceof ApiError && (outbox.error.status === 403 || outbox.error.status === 401);

  return (
    <main className="mx-auto min-h-screen max-w-4xl px-4 py-8">
      <div className="mb-6 flex flex-wrap items-center justify-between gap-3">
        <div>
          <Link href="/" className="text-sm font-bold text-brand-600">
            bpay
          </Link>
          <h1 className="text-2xl font-bold text-slate-900">{t('outbox.title')}</h1>
          {outbox.data && (
            <p className="mt-1 text-sm text-slate-600">
              {t(outbox.data.access === 'local' ? 'outbox.subtitle.local' : 'outbox.subtitle.admin')}{' '}
              {t(outbox.data.smtpConfigured ? 'outbox.smtp.on' : 'outbox.smtp.off')}
            </p>
          )}
        </div>
        {outbox.data && (
          <Button variant="outline" size="sm" onClick={() => void outbox.refetch()} disabled={outbox.isFetching}>
            {t('outbox.refresh')}
          </Button>
        )}
      </div>
      {outbox.isPending && (
        <p role="status" aria-busy="true" className="text-sm text-slate-600">
          {t('outbox.loading')}
        </p>
      )}
      {forbidden && (
        <div role="alert" className="space-y-3 rounded-md bg-amber-50 p-4 text-sm text-amber-900">
          <p>{t('outbox.forbidden')}</p>
          <Link href="/admin-login" className={buttonClasses('outline', 'sm')}>
            {t('outbox.adminSignIn')}
          </Link>
        </div>
      )}
      {outbox.isError && !forbidden && (
        <p role="alert" className="rounded-md bg-red-50 p-3 text-sm text-red-700">
          {messageOf(outbox.error)}
        </p>
      )}
      {outbox.data && outbox.data.messages.length === 0 && <p className="text-sm text-slate-600">{t('outbox.empty')}</p>}
      {outbox.data && outbox.data.messages.length > 0 && (
        <ol className="space-y-4" aria-label={t('outbox.title')}>
          {outbox.data.messages.map((m) => (
            <li key={m.id} className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm" data-testid="outbox-message">
              <article aria-labelledby={`outbox-${m.id}`}>
                <h2 id={`outbox-${m.id}`} className="break-words text-base font-semibold text-slate-900">
                  {m.subject}
                </h2>
                <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
                  <dt className="text-slate-500">{t('outbox.to')}</dt>
                  <dd dir="ltr" className="break-all text-start">
                    {m.to}
                  </dd>
                  <dt className="text-slate-500">{t('outbox.kind')}</dt>
                  <dd>{t(`outbox.kind.${m.kind}` as MessageKey)}</dd>
                  <dt className="text-slate-500">{t('outbox.status')}</dt>
                  <dd>
                    <Badge className={STATUS_TONE[m.status]}>{t(`outbox.status.${m.status}` as MessageKey)}</Badge>
                    {m.attempts > 0 && (
                      <span className="ms-2 text-slate-500">
                        {t('outbox.attempts')}: {m.attempts}
                      </span>
                    )}
                  </dd>
                  <dt className="text-slate-500">{t('outbox.created')}</dt>
                  <dd>
                    <time dateTime={m.createdAt}>{new Date(m.createdAt).toLocaleString()}</time>
                  </dd>
                  {m.lastError && (
                    <>
                      <dt className="text-slate-500">{t('outbox.lastError')}</dt>
                      <dd dir="ltr" className="break-words text-start text-red-700">
                        {m.lastError}
                      </dd>
                    </>
                  )}
                </dl>
                <div className="mt-3">
                  <Body text={m.text} />
                </div>
              </article>
            </li>
          ))}
        </ol>
      )}
    </main>
  );
}
