import { FileText, Loader2 } from 'lucide-react';
import { useEffect, useState } from 'react';
import { useT } from '../../../i18n';
import { fetchKycDocument, type KycDocument } from '../api';

type State = { kind: 'loading' } | { kind: 'error' } | { kind: 'ready'; url: string; type: string };

/** The only types shown in the page; anything else is offered as a download typed application/octet-stream. */
const VIEWABLE = new Set(['image/jpeg', 'image/png', 'application/pdf']);

/**
 * Shows one verification document. The bytes are read with the admin's Bearer token (an <img src> could not
 * send it) into a blob URL that is revoked when the viewer goes away. The server sends documents as attachments,
 * which a fetch does not mind; a blob URL belongs to this page's origin, so a blob is only ever given one of the
 * three viewable types (never text/html or SVG, which could run script here).
 */
export function DocumentViewer({ doc }: { doc: KycDocument }) {
  const t = useT();
  const [state, setState] = useState<State>({ kind: 'loading' });
  useEffect(() => {
    let url: string | null = null;
    let alive = true;
    setState({ kind: 'loading' });
    fetchKycDocument(doc.id).then(
      (blob) => {
        if (!alive) return;
        const type = VIEWABLE.has(blob.type) ? blob.type : 'application/octet-stream';
        url = URL.createObjectURL(blob.type === type ? blob : new Blob([blob], { type }));
        setState({ kind: 'ready', url, type });
      },
      () => alive && setState({ kind: 'error' }),
    );
    return () => {
      alive = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [doc.id]);

  const name = doc.name ?? t('admin.kyc.document');
  return (
    <figure className="overflow-hidden rounded-lg border border-slate-200 bg-slate-50" data-testid="kyc-document">
      <div className="flex min-h-40 items-center justify-center">
        {state.kind === 'loading' && <Loader2 className="h-6 w-6 animate-spin text-slate-400" aria-label={t('common.loading')} />}
        {state.kind === 'error' && (
          <p role="alert" className="p-4 text-sm text-red-700">
            {t('admin.kyc.documentFailed')}
          </p>
        )}
        {state.kind === 'ready' &&
          (state.type === 'image/png' || state.type === 'image/jpeg' ? (
            <img src={state.url} alt={t('admin.kyc.documentAlt', { name })} className="max-h-96 w-auto object-contain" data-testid="kyc-document-image" />
          ) : state.type === 'application/pdf' ? (
            <object data={state.url} type="application/pdf" className="h-96 w-full" aria-label={name} data-testid="kyc-document-pdf">
              <a href={state.url} download={name} className="flex items-center gap-2 p-4 text-sm text-brand-600 underline">
                <FileText className="h-4 w-4" aria-hidden />
                {t('admin.kyc.openDocument', { name })}
              </a>
            </object>
          ) : (
            <a href={state.url} download={name} className="p-4 text-sm text-brand-600 underline">
              {t('admin.kyc.openDocument', { name })}
            </a>
          ))}
      </div>
      <figcaption className="border-t border-slate-200 bg-white px-3 py-2 text-xs text-slate-500" dir="auto">
        {name}
      </figcaption>
    </figure>
  );
}
