import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { defineMessages, LANGUAGE_KEY, LanguageProvider } from '../../../src/i18n';
import * as bcards from '../../../src/i18n/messages/bcards';
import * as split from '../../../src/i18n/messages/split';
import { writeSetting } from '../../../src/lib/storage';
import { STORAGE } from '../lib/config';
import { resolveLanguage } from '../lib/messages';
import { App } from './app';

/*
 * The popup's entry. It renders with the web app's LanguageProvider and catalogues (the split configurator's and the
 * bcard progress texts); the extension's language (options page choice, else the browser's) is handed to it as the
 * saved language of this page's origin, which is what the provider reads.
 */
defineMessages(split, bcards);

void chrome.storage.local.get(STORAGE.language).then((got) => {
  writeSetting(LANGUAGE_KEY, resolveLanguage(got[STORAGE.language], navigator.language));
  const root = document.getElementById('root');
  if (!root) return;
  createRoot(root).render(
    <StrictMode>
      <LanguageProvider>
        <App />
      </LanguageProvider>
    </StrictMode>,
  );
});
