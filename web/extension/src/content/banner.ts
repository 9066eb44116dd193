import { tx, type Lang } from '../lib/messages';

/*
 * The "Split $X with bpay" banner: only on a detected checkout, in the top frame. Everything lives in a closed shadow
 * root (the page's CSS cannot reach in, its scripts cannot read it), with its own styles inside; the host element
 * resets every inherited property. Fixed at the bottom corner, on the left in Arabic.
 */

export interface BannerOptions {
  doc: Document;
  lang: Lang;
  /** The formatted total, or null when none was found. */
  amount: string | null;
  onSplit(): void;
  onDismiss(): void;
}

const STYLE = `
:host { all: initial; }
.b { box-sizing: border-box; display: flex; align-items: center; gap: 10px; max-width: min(360px, calc(100vw - 32px));
  padding: 10px 10px 10px 14px; border-radius: 12px; background: #fff; color: #0f172a; border: 1px solid #e2e8f0;
  box-shadow: 0 10px 30px rgba(15, 23, 42, .18); font: 500 14px/1.35 ui-sans-serif, system-ui, -apple-system, "Segoe UI",
  Roboto, "Noto Sans", "Noto Sans Arabic", Tahoma, sans-serif; }
.b[dir=rtl] { padding: 10px 14px 10px 10px; }
.m { flex: none; width: 28px; height: 28px; border-radius: 8px; background: #4f46e5; color: #fff; display: grid;
  place-items: center; font-weight: 700; font-size: 16px; }
.t { flex: 1; min-width: 0; }
button { font: inherit; cursor: pointer; border: 0; border-radius: 8px; }
.s { flex: none; padding: 8px 14px; background: #4f46e5; color: #fff; font-weight: 600; }
.s:hover { background: #4338ca; }
.x { flex: none; width: 28px; height: 28px; background: transparent; color: #64748b; font-size: 18px; line-height: 1; }
.x:hover { background: #f1f5f9; color: #0f172a; }
button:focus-visible { outline: 2px solid #4f46e5; outline-offset: 2px; }
`;

/** Adds the banner; answers a function that removes it. */
export function showBanner({ doc, lang, amount, onSplit, onDismiss }: BannerOptions): () => void {
  const rtl = lang === 'ar';
  const host = doc.createElement('bpay-split-banner');
  host.setAttribute(
    'style',
    `all: initial !important; position: fixed !important; z-index: 2147483647 !important; bottom: 16px !important; ${rtl ? 'left' : 'right'}: 16px !important;`,
  );
  const root = host.attachShadow({ mode: 'closed' });
  const style = doc.createElement('style');
  style.textContent = STYLE;
  const box = doc.createElement('div');
  box.className = 'b';
  box.setAttribute('dir', rtl ? 'rtl' : 'ltr');
  box.setAttribute('lang', lang);
  box.setAttribute('role', 'region');
  box.setAttribute('aria-label', tx(lang, 'ext.banner.label'));
  const mark = doc.createElement('span');
  mark.className = 'm';
  mark.setAttribute('aria-hidden', 'true');
  mark.textContent = 'b';
  const text = doc.createElement('span');
  text.className = 't';
  // The amount keeps its own direction inside Arabic text (an isolate).
  text.textContent = amount ? tx(lang, 'ext.banner.text', { amount: rtl ? `\u2066${amount}\u2069` : amount }) : tx(lang, 'ext.banner.textNoTotal');
  const split = doc.createElement('button');
  split.type = 'button';
  split.className = 's';
  split.textContent = tx(lang, 'ext.banner.split');
  const close = doc.createElement('button');
  close.type = 'button';
  close.className = 'x';
  close.textContent = '×';
  close.setAttribute('aria-label', tx(lang, 'ext.banner.dismiss'));
  close.title = tx(lang, 'ext.banner.dismiss');

  const remove = () => host.remove();
  split.addEventListener('click', () => onSplit());
  close.addEventListener('click', () => {
    remove();
    onDismiss();
  });
  box.append(mark, text, split, close);
  root.append(style, box);
  doc.documentElement.append(host);
  return remove;
}
