import { checkOrigin, currentOrigin, DEFAULT_ORIGIN, originPattern, STORAGE } from '../lib/config';
import { resolveLanguage, tx, type ExtKey, type Lang } from '../lib/messages';
import type { Connection, PopupRequest, Result } from '../lib/protocol';

/*
 * The options page: which bpay this browser talks to, and the extension's language. A new origin needs its host
 * permission (chrome.permissions.request, asked first thing in the click so the browser sees the user's gesture;
 * optional_host_permissions allows any http(s) origin), then the background forgets the token of the old origin and
 * moves the bridge script to the new one.
 */

const $ = <E extends HTMLElement>(id: string) => document.getElementById(id) as E;
const form = $<HTMLFormElement>('form');
const originInput = $<HTMLInputElement>('origin');
const languageSelect = $<HTMLSelectElement>('language');
const status = $<HTMLParagraphElement>('status');

let lang: Lang = 'en';

function render(): void {
  document.documentElement.lang = lang;
  document.documentElement.dir = lang === 'ar' ? 'rtl' : 'ltr';
  document.title = tx(lang, 'ext.options.title');
  const texts: Record<string, ExtKey> = {
    title: 'ext.options.title',
    'origin-label': 'ext.options.origin',
    'origin-hint': 'ext.options.originHint',
    'language-label': 'ext.options.language',
    'language-auto': 'ext.options.language.auto',
    'language-en': 'ext.options.language.en',
    'language-ar': 'ext.options.language.ar',
    save: 'ext.options.save',
  };
  for (const [id, key] of Object.entries(texts)) $(id).textContent = tx(lang, key);
}

/** Shows the outcome; `originError` also marks the address field invalid. */
function say(text: string, kind: 'ok' | 'error' | 'originError' = 'ok'): void {
  status.textContent = text;
  status.className = kind === 'ok' ? '' : 'error';
  originInput.setAttribute('aria-invalid', String(kind === 'originError'));
}

async function load(): Promise<void> {
  const got = await chrome.storage.local.get(STORAGE.language);
  const choice = got[STORAGE.language];
  languageSelect.value = choice === 'en' || choice === 'ar' ? choice : 'auto';
  lang = resolveLanguage(choice, navigator.language);
  originInput.value = await currentOrigin();
  originInput.placeholder = DEFAULT_ORIGIN;
  render();
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  const check = checkOrigin(originInput.value);
  if (!check.ok) {
    say(tx(lang, check.reason === 'scheme' ? 'ext.options.error.scheme' : check.reason === 'path' ? 'ext.options.error.path' : 'ext.options.error.invalid'), 'originError');
    return;
  }
  // Requested synchronously in the submit handler: the browser grants it only during the user's gesture.
  const granted = check.origin === DEFAULT_ORIGIN ? Promise.resolve(true) : chrome.permissions.request({ origins: [originPattern(check.origin)] });
  void save(check.origin, granted);
});

async function save(origin: string, granted: Promise<boolean>): Promise<void> {
  const choice = languageSelect.value;
  await chrome.storage.local.set({ [STORAGE.language]: choice });
  lang = resolveLanguage(choice, navigator.language);
  render();
  if (!(await granted.catch(() => false))) {
    say(tx(lang, 'ext.options.error.permission'), 'originError');
    return;
  }
  const request: PopupRequest = { type: 'set-origin', origin };
  const answer = await chrome.runtime.sendMessage<PopupRequest, Result<Connection> | undefined>(request).catch(() => undefined);
  if (!answer?.ok) {
    say(tx(lang, 'ext.options.error.failed', { message: answer?.error.message ?? 'No answer from the extension.' }), 'error');
    return;
  }
  originInput.value = answer.value.origin;
  say(tx(lang, 'ext.options.saved'));
}

void load();
